package org.archpool.orchestrator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.archpool.orchestrator.manifest.ManifestReader;
import org.archpool.orchestrator.pool.ThreadWorkerLauncher;
import org.archpool.orchestrator.pool.WorkerPool;
import org.archpool.orchestrator.schedule.JobOutcome;
import org.archpool.orchestrator.schedule.Scheduler;
import org.archpool.orchestrator.schedule.SchedulerConfig;
import org.archpool.orchestrator.schedule.SchedulerListener;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;
import org.archpool.worker.JobRunner;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The service core over in-memory connections, with real thread-mode workers running {@code sh -c} jobs. */
@Tag("process")
class JobServiceTest {

    @TempDir
    Path dir;

    private final Clock clock = Clock.systemUTC();
    private WorkerPool pool;
    private Scheduler scheduler;
    private JobService service;

    private static final ServerMessage.Hello HELLO = new ServerMessage.Hello(1, "test", 1,
            new ServerMessage.Hello.Target("cuda", List.of("90"), "flag", "--arch 90"),
            new ServerMessage.Hello.Pool("thread", "local", 1, "environment"), "/logs", "/logs/report.json");

    private JobService start(int slots) {
        return start(slots, new Target(Platform.CUDA, List.of("90")));
    }

    /** A service of these targets (the hello names only the first: what a client is told is not tested here). */
    private JobService start(int slots, Target... targets) {
        pool = new WorkerPool(new ThreadWorkerLauncher(JobRunner.standard()), slots, clock);
        scheduler = new Scheduler(pool, new SchedulerConfig(targets[0], dir.resolve("logs"), 0, 1, 0, true), clock,
                SchedulerListener.NONE);
        service = new JobService(scheduler, pool, new ManifestReader(), clock, HELLO, List.of(targets),
                platform -> List.of());
        return service;
    }

    @AfterEach
    void stop() {
        if (service != null) {
            service.shutdown(true, "the test ended");
            service.drained().orTimeout(20, TimeUnit.SECONDS).join();
            scheduler.close();
            pool.close();
        }
    }

    /** A connected client: its outbox, hello taken. */
    private record Client(JobService.Connection connection, RecordingOutbox outbox) {
        void send(String json) {
            connection.receive(new LineReader.Line.Text(json.getBytes(StandardCharsets.UTF_8)));
        }
    }

    private Client connect() {
        RecordingOutbox outbox = new RecordingOutbox();
        JobService.Connection c = service.connect(outbox, "test client");
        assertThat(outbox.next(ServerMessage.Hello.class)).isEqualTo(HELLO);
        return new Client(c, outbox);
    }

    private String submit(String clientJobId, String id, String script) {
        return "{\"type\":\"submit\",\"clientJobId\":\"" + clientJobId + "\",\"cwd\":\"" + dir + "\",\"job\":{\"id\":\""
                + id + "\",\"kind\":\"command\",\"argv\":[\"sh\",\"-c\",\"" + script + "\"]}}";
    }

    /** A script that waits until the file {@code name} exists in the test's folder. */
    private String until(String name) {
        return "while [ ! -e " + dir.resolve(name) + " ]; do sleep 0.02; done";
    }

    private void open(String gate) throws Exception {
        Files.createFile(dir.resolve(gate));
    }

    @Test
    void aSubmitIsAcceptedThenGetsItsResult() {
        start(2);
        Client c = connect();
        c.send(submit("c1", "hello", "echo hi"));
        ServerMessage.Accepted accepted = c.outbox().next(ServerMessage.Accepted.class);
        assertThat(accepted).isEqualTo(new ServerMessage.Accepted("c1", "hello.1", false));
        ServerMessage.Result result = c.outbox().next(ServerMessage.Result.class);
        assertThat(result.clientJobId()).isEqualTo("c1");
        assertThat(result.shared()).isFalse();
        assertThat(result.job().id()).isEqualTo("hello.1");
        assertThat(result.job().clientJobId()).isEqualTo("c1");
        assertThat(result.job().outcome()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(result.job().logPath()).isEqualTo(dir.resolve("logs/hello.1.log").toString());
        assertThat(service.outcomes()).extracting(JobOutcome::clientJobId).containsExactly("c1");
    }

    /** A submit of a command job with these extra fields (JSON, starting with a comma). */
    private String submitWith(String clientJobId, String id, String script, String fields) {
        return submit(clientJobId, id, script).replace("]}}", "]" + fields + "}}");
    }

    @Test
    void aSubmitIsBuiltForTheTargetItsPlatformsAllowNarrowedToItsArchsOrSkipped() {
        start(2, new Target(Platform.CUDA, List.of("80", "90")), new Target(Platform.HIP, List.of("gfx942")));
        Client c = connect();
        c.send(submitWith("open", "k", "true", ""));
        ServerMessage.Error refused = c.outbox().next(ServerMessage.Error.class);
        assertThat(refused.code()).isEqualTo(ErrorCode.INVALID_JOB);
        assertThat(refused.message()).contains("builds for cuda and hip").contains("\"platforms\": [\"cuda\"]");

        c.send(submitWith("hopper", "k", "true", ",\"platforms\":[\"cuda\"],\"archs\":[\">=90\"]"));
        c.outbox().next(ServerMessage.Accepted.class);
        ServerMessage.Result built = c.outbox().next(ServerMessage.Result.class);
        assertThat(built.job().outcome()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(built.job().target()).isEqualTo(new Target(Platform.CUDA, List.of("90")));

        c.send(submitWith("fp8", "k", "true", ",\"platforms\":[\"cuda\"],\"archs\":[\"90a\"]"));
        assertThat(c.outbox().next(ServerMessage.Accepted.class).clientJobId()).isEqualTo("fp8");
        ServerMessage.Result skipped = c.outbox().next(ServerMessage.Result.class);
        assertThat(skipped.job().outcome()).isEqualTo(Outcome.SKIPPED);
        assertThat(skipped.job().message()).startsWith("skipped: ").contains("90a").contains("80;90");
        assertThat(skipped.job().clientJobId()).isEqualTo("fp8");
        assertThat(skipped.job().worker()).isNull();

        c.send(submitWith("amd", "k", "true", ",\"platforms\":[\"hip\"]"));
        c.outbox().next(ServerMessage.Accepted.class);
        assertThat(c.outbox().next(ServerMessage.Result.class).job().target())
                .isEqualTo(new Target(Platform.HIP, List.of("gfx942")));
        assertThat(service.outcomeCounts()).containsEntry("succeeded", 2).containsEntry("skipped", 1);
    }

    @Test
    void aSubmitLimitedToAPlatformTheServiceDoesNotBuildIsSkipped() {
        start(1);
        Client c = connect();
        c.send(submitWith("amd", "k", "true", ",\"platforms\":[\"hip\"]"));
        c.outbox().next(ServerMessage.Accepted.class);
        ServerMessage.Result r = c.outbox().next(ServerMessage.Result.class);
        assertThat(r.job().outcome()).isEqualTo(Outcome.SKIPPED);
        assertThat(r.job().message()).isEqualTo("skipped: it is limited to hip, and this serve builds for cuda");
    }

    @Test
    void identicalJobsInFlightShareOneBuildAndBothGetItsResult() throws Exception {
        start(2);
        Client a = connect();
        Client b = connect();
        a.send(submit("a1", "k", until("go")));
        b.send(submit("b1", "other-id", until("go")));
        assertThat(a.outbox().next(ServerMessage.Accepted.class).shared()).isFalse();
        ServerMessage.Accepted shared = b.outbox().next(ServerMessage.Accepted.class);
        assertThat(shared).isEqualTo(new ServerMessage.Accepted("b1", "k.1", true));
        open("go");
        ServerMessage.Result ra = a.outbox().next(ServerMessage.Result.class);
        ServerMessage.Result rb = b.outbox().next(ServerMessage.Result.class);
        assertThat(ra.job().outcome()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(rb.shared()).isTrue();
        assertThat(rb.job().id()).isEqualTo("k.1");
        assertThat(rb.job().clientJobId()).isEqualTo("b1");
        assertThat(service.outcomes()).hasSize(1);
    }

    /** A submit of a cmake job of the project {@code kern} in the test's folder, with its default build folder. */
    private String cmake(String clientJobId, String op) throws Exception {
        Path src = Files.createDirectories(dir.resolve("kern"));
        Files.writeString(src.resolve("CMakeLists.txt"), "project(kern NONE)\n");
        return "{\"type\":\"submit\",\"clientJobId\":\"" + clientJobId + "\",\"cwd\":\"" + dir + "\",\"job\":{"
                + "\"id\":\"kern\",\"kind\":\"cmake\",\"sourceDir\":\"kern\",\"defines\":{\"OP\":\"" + op + "\"}}}";
    }

    @Test
    void aCmakeJobWhoseBuildFolderAnotherQueuedJobHasIsRefusedUntilThatOneEnds() throws Exception {
        start(1);
        Client c = connect();
        c.send(submit("hold", "hold", until("go"))); // the only slot: the cmake jobs stay queued
        c.outbox().next(ServerMessage.Accepted.class);
        c.send(cmake("axpy", "axpy"));
        String first = c.outbox().next(ServerMessage.Accepted.class).jobId();

        c.send(cmake("scale", "scale"));
        ServerMessage.Error refused = c.outbox().next(ServerMessage.Error.class);
        assertThat(refused.code()).isEqualTo(ErrorCode.BUILD_DIR_IN_USE);
        assertThat(refused.clientJobId()).isEqualTo("scale");
        assertThat(refused.message()).contains("its build folder " + dir.resolve("build/kern") + " is the build folder"
                + " of job " + first).contains("give this job a build folder of its own");

        c.send(cmake("axpy-again", "axpy"));
        assertThat(c.outbox().next(ServerMessage.Accepted.class).shared()).as("the same job joins the build").isTrue();

        c.send("{\"type\":\"cancel\",\"clientJobId\":\"axpy\"}");
        c.send("{\"type\":\"cancel\",\"clientJobId\":\"axpy-again\"}");
        c.outbox().next(ServerMessage.Result.class);
        c.outbox().next(ServerMessage.Result.class);
        c.send(cmake("scale", "scale"));
        assertThat(c.outbox().next(ServerMessage.Accepted.class).shared()).as("its folder is free again").isFalse();
        open("go");
    }

    @Test
    void aJobHandedToAWorkerIsStartedBeforeItsResult() {
        start(1);
        Client c = connect();
        c.send(submit("c1", "hello", "echo hi"));
        c.outbox().next(ServerMessage.Accepted.class);
        assertThat(c.outbox().next(ServerMessage.Started.class))
                .isEqualTo(new ServerMessage.Started("c1", "hello.1", "w1", 1));
        assertThat(c.outbox().next(ServerMessage.Result.class).job().worker()).isEqualTo("w1");
    }

    @Test
    void aSharedBuildTellsEverySubmitThatItStartedAndOneThatJoinsLateAtOnce() throws Exception {
        start(1);
        Client a = connect();
        Client b = connect();
        Client late = connect();
        a.send(submit("blocker", "first", until("go")));
        a.outbox().next(ServerMessage.Accepted.class);
        assertThat(a.outbox().next(ServerMessage.Started.class).clientJobId()).isEqualTo("blocker");
        a.send(submit("a1", "k", until("go2")));
        b.send(submit("b1", "k", until("go2")));
        a.outbox().next(ServerMessage.Accepted.class);
        assertThat(b.outbox().next(ServerMessage.Accepted.class).shared()).isTrue();
        b.outbox().nothingWithin(200); // queued behind the blocker: not started
        open("go");
        assertThat(a.outbox().next(ServerMessage.Result.class).clientJobId()).isEqualTo("blocker");
        assertThat(a.outbox().next(ServerMessage.Started.class))
                .isEqualTo(new ServerMessage.Started("a1", "k.2", "w1", 1));
        assertThat(b.outbox().next(ServerMessage.Started.class))
                .isEqualTo(new ServerMessage.Started("b1", "k.2", "w1", 1));
        late.send(submit("l1", "k", until("go2")));
        assertThat(late.outbox().next(ServerMessage.Accepted.class).shared()).isTrue();
        assertThat(late.outbox().next(ServerMessage.Started.class))
                .as("joined a running build: told at once, after its accepted")
                .isEqualTo(new ServerMessage.Started("l1", "k.2", "w1", 1));
        open("go2");
        for (Client c : List.of(a, b, late)) {
            assertThat(c.outbox().next(ServerMessage.Result.class).job().outcome()).isEqualTo(Outcome.SUCCEEDED);
        }
    }

    @Test
    void aJobThatEndedIsBuiltAgain() {
        start(1);
        Client c = connect();
        c.send(submit("c1", "k", "true"));
        c.outbox().next(ServerMessage.Accepted.class);
        c.outbox().next(ServerMessage.Result.class);
        c.send(submit("c1", "k", "true"));
        assertThat(c.outbox().next(ServerMessage.Accepted.class)).isEqualTo(new ServerMessage.Accepted("c1", "k.2", false));
        assertThat(c.outbox().next(ServerMessage.Result.class).job().outcome()).isEqualTo(Outcome.SUCCEEDED);
    }

    @Test
    void aCancelledQueuedJobEndsAtOnce() throws Exception {
        start(1);
        Client c = connect();
        c.send(submit("first", "a", until("go")));
        c.send(submit("second", "b", "true"));
        c.outbox().next(ServerMessage.Accepted.class);
        c.outbox().next(ServerMessage.Accepted.class);
        c.send("{\"type\":\"cancel\",\"clientJobId\":\"second\"}");
        ServerMessage.Result r = c.outbox().next(ServerMessage.Result.class);
        assertThat(r.clientJobId()).isEqualTo("second");
        assertThat(r.job().outcome()).isEqualTo(Outcome.CANCELLED);
        assertThat(r.job().attempts()).isZero();
        assertThat(r.job().message()).contains("not started").contains("cancelled by its client");
        open("go");
        assertThat(c.outbox().next(ServerMessage.Result.class).job().outcome()).isEqualTo(Outcome.SUCCEEDED);
    }

    @Test
    void aCancelledRunningJobIsKilledAndEndsCancelled() throws Exception {
        start(1);
        Client c = connect();
        Path started = dir.resolve("started");
        c.send(submit("c1", "a", "touch " + started + "; sleep 60"));
        c.outbox().next(ServerMessage.Accepted.class);
        await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(started));
        long before = System.nanoTime();
        c.send("{\"type\":\"cancel\",\"clientJobId\":\"c1\"}");
        ServerMessage.Result r = c.outbox().next(ServerMessage.Result.class);
        assertThat(r.job().outcome()).isEqualTo(Outcome.CANCELLED);
        assertThat(r.job().attempts()).isEqualTo(1);
        assertThat(r.job().message()).contains("cancelled by its client");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - before)).isLessThan(10_000);
        // the slot is free again
        c.send(submit("c2", "b", "true"));
        c.outbox().next(ServerMessage.Accepted.class);
        assertThat(c.outbox().next(ServerMessage.Result.class).job().outcome()).isEqualTo(Outcome.SUCCEEDED);
    }

    @Test
    void cancellingOneSubmitOfASharedBuildLetsTheBuildGoOnForTheOther() throws Exception {
        start(1);
        Client a = connect();
        Client b = connect();
        a.send(submit("a1", "k", until("go")));
        b.send(submit("b1", "k", until("go")));
        a.outbox().next(ServerMessage.Accepted.class);
        b.outbox().next(ServerMessage.Accepted.class);
        a.send("{\"type\":\"cancel\",\"clientJobId\":\"a1\"}");
        ServerMessage.Result ra = a.outbox().next(ServerMessage.Result.class);
        assertThat(ra.job().outcome()).isEqualTo(Outcome.CANCELLED);
        assertThat(ra.job().message()).contains("the build goes on");
        open("go");
        ServerMessage.Result rb = b.outbox().next(ServerMessage.Result.class);
        assertThat(rb.job().outcome()).isEqualTo(Outcome.SUCCEEDED);
        a.outbox().nothingWithin(200);
    }

    @Test
    void statusCountsTheWholeService() throws Exception {
        start(1);
        Client a = connect();
        Client b = connect();
        a.send(submit("a1", "k", until("go")));
        a.send(submit("a2", "j", "true"));
        a.outbox().next(ServerMessage.Accepted.class);
        a.outbox().next(ServerMessage.Accepted.class);
        await().atMost(Duration.ofSeconds(20)).until(() -> scheduler.busy() == 1);
        b.send("{\"type\":\"status\",\"requestId\":\"s1\"}");
        ServerMessage.Status s = b.outbox().next(ServerMessage.Status.class);
        assertThat(s.requestId()).isEqualTo("s1");
        assertThat(s.queued()).isEqualTo(1);
        assertThat(s.running()).isEqualTo(1);
        assertThat(s.accepted()).isEqualTo(2);
        assertThat(s.clients()).isEqualTo(2);
        assertThat(s.workers()).isEqualTo(new ServerMessage.Status.Workers(1, 1));
        assertThat(s.outcomes()).isEmpty();
        assertThat(s.shuttingDown()).isFalse();
        open("go");
        a.outbox().next(ServerMessage.Result.class);
        a.outbox().next(ServerMessage.Result.class);
        b.send("{\"type\":\"status\"}");
        ServerMessage.Status after = b.outbox().next(ServerMessage.Status.class);
        assertThat(after.requestId()).isNull();
        assertThat(after.outcomes()).containsEntry("succeeded", 2);
        assertThat(after.queued()).isZero();
    }

    @Test
    void aShutdownThatLetsJobsRunWaitsForEveryResultAndRefusesNewJobs() throws Exception {
        start(1);
        Client c = connect();
        c.send(submit("c1", "a", until("go")));
        c.send(submit("c2", "b", "true"));
        c.outbox().next(ServerMessage.Accepted.class);
        c.outbox().next(ServerMessage.Accepted.class);
        c.send("{\"type\":\"shutdown\",\"cancelRunning\":false}");
        assertThat(service.shutdownAsked()).isCompletedWithValue(false);
        c.send(submit("c3", "c", "true"));
        ServerMessage.Error refused = c.outbox().next(ServerMessage.Error.class);
        assertThat(refused.code()).isEqualTo(ErrorCode.SHUTTING_DOWN);
        assertThat(refused.clientJobId()).isEqualTo("c3");
        assertThat(service.drained()).isNotDone();
        open("go");
        assertThat(c.outbox().next(ServerMessage.Result.class).job().outcome()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(c.outbox().next(ServerMessage.Result.class).job().outcome()).isEqualTo(Outcome.SUCCEEDED);
        service.drained().get(20, TimeUnit.SECONDS);
        service.bye("/r.json", null);
        ServerMessage.Bye bye = c.outbox().next(ServerMessage.Bye.class);
        assertThat(bye.report()).isEqualTo("/r.json");
        assertThat(bye.outcomes()).containsEntry("succeeded", 2);
        assertThat(c.outbox().closed()).isTrue();
    }

    @Test
    void aShutdownThatCancelsEndsQueuedAndRunningJobsCancelled() throws Exception {
        start(1);
        Client c = connect();
        c.send(submit("c1", "a", "sleep 60"));
        c.send(submit("c2", "b", "true"));
        c.outbox().next(ServerMessage.Accepted.class);
        c.outbox().next(ServerMessage.Accepted.class);
        await().atMost(Duration.ofSeconds(20)).until(() -> scheduler.busy() == 1);
        c.send("{\"type\":\"shutdown\",\"cancelRunning\":true}");
        service.drained().get(20, TimeUnit.SECONDS);
        List<ServerMessage> results = c.outbox().drain();
        assertThat(results).hasSize(2).allSatisfy(m -> assertThat(((ServerMessage.Result) m).job().outcome())
                .isEqualTo(Outcome.CANCELLED));
    }

    @Test
    void everyErrorCodeIsAReplyAndTheConnectionGoesOn() throws Exception {
        start(1);
        Client c = connect();
        c.send("not json");
        assertThat(c.outbox().next(ServerMessage.Error.class).code()).isEqualTo(ErrorCode.BAD_LINE);
        c.send("[1, 2]");
        assertThat(c.outbox().next(ServerMessage.Error.class).code()).isEqualTo(ErrorCode.BAD_LINE);
        c.connection().receive(new LineReader.Line.Text(new byte[] {'{', '"', (byte) 0xff, '"', ':', '1', '}'}));
        assertThat(c.outbox().next(ServerMessage.Error.class).message()).contains("UTF-8");
        c.connection().receive(new LineReader.Line.TooLong(5 << 20));
        assertThat(c.outbox().next(ServerMessage.Error.class).message()).contains("4194304");
        c.send("{\"type\":\"launch\",\"clientJobId\":\"z\"}");
        ServerMessage.Error unknown = c.outbox().next(ServerMessage.Error.class);
        assertThat(unknown.code()).isEqualTo(ErrorCode.BAD_MESSAGE);
        assertThat(unknown.clientJobId()).isEqualTo("z");
        c.send("{\"type\":\"submit\",\"cwd\":\"/\",\"job\":{}}");
        assertThat(c.outbox().next(ServerMessage.Error.class).message()).contains("clientJobId");
        c.send("{\"type\":\"submit\",\"clientJobId\":\"r\",\"cwd\":\"relative\",\"job\":{}}");
        assertThat(c.outbox().next(ServerMessage.Error.class).message()).contains("not absolute");
        c.send("{\"type\":\"status\",\"requestId\":7}");
        assertThat(c.outbox().next(ServerMessage.Error.class).code()).isEqualTo(ErrorCode.BAD_MESSAGE);
        c.send("{\"type\":\"submit\",\"clientJobId\":\"k\",\"cwd\":\"" + dir + "\",\"job\":{\"id\":\"k\","
                + "\"kind\":\"cmake\",\"sourceDir\":\"nothere\"}}");
        ServerMessage.Error invalid = c.outbox().next(ServerMessage.Error.class);
        assertThat(invalid.code()).isEqualTo(ErrorCode.INVALID_JOB);
        assertThat(invalid.clientJobId()).isEqualTo("k");
        assertThat(invalid.message()).contains("sourceDir").contains(dir.resolve("nothere").toString());
        c.send(submit("d", "a", until("go")));
        c.outbox().next(ServerMessage.Accepted.class);
        c.send(submit("d", "b", "true"));
        ServerMessage.Error duplicate = c.outbox().next(ServerMessage.Error.class);
        assertThat(duplicate.code()).isEqualTo(ErrorCode.DUPLICATE_CLIENT_JOB_ID);
        c.send("{\"type\":\"cancel\",\"clientJobId\":\"nobody\"}");
        assertThat(c.outbox().next(ServerMessage.Error.class).code()).isEqualTo(ErrorCode.UNKNOWN_JOB);
        open("go");
        assertThat(c.outbox().next(ServerMessage.Result.class).clientJobId()).isEqualTo("d");
        // once it has its result, the name is free again, and a cancel of it is unknown
        c.send("{\"type\":\"cancel\",\"clientJobId\":\"d\"}");
        assertThat(c.outbox().next(ServerMessage.Error.class).code()).isEqualTo(ErrorCode.UNKNOWN_JOB);
        c.send(submit("d", "b", "true"));
        assertThat(c.outbox().next(ServerMessage.Accepted.class).jobId()).isEqualTo("b.2");
    }

    @Test
    void aClientThatGoesAwayCancelsItsJobsButNotBuildsOthersShare() throws Exception {
        start(2);
        Client a = connect();
        Client b = connect();
        a.send(submit("own", "mine", "sleep 60"));
        a.send(submit("shared", "both", until("go")));
        b.send(submit("b1", "both", until("go")));
        a.outbox().next(ServerMessage.Accepted.class);
        a.outbox().next(ServerMessage.Accepted.class);
        b.outbox().next(ServerMessage.Accepted.class);
        a.connection().gone("the test closed it");
        assertThat(a.outbox().closed()).isTrue();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> service.outcomes().size() == 1);
        assertThat(service.outcomes().get(0).outcome()).isEqualTo(Outcome.CANCELLED);
        assertThat(service.outcomes().get(0).message()).contains("its client disconnected");
        open("go");
        assertThat(b.outbox().next(ServerMessage.Result.class).job().outcome()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(a.outbox().drain()).isEmpty();
    }

    @Test
    void aLongIdIsCutSoThatTheNumberedIdFits() {
        start(1);
        Client c = connect();
        String id = "x".repeat(128);
        c.send(submit("c", id, "true"));
        String jobId = c.outbox().next(ServerMessage.Accepted.class).jobId();
        assertThat(jobId).hasSize(128).endsWith(".1");
        assertThat(c.outbox().next(ServerMessage.Result.class).job().outcome()).isEqualTo(Outcome.SUCCEEDED);
    }

    @Test
    void aClientFoundGoneWhileItsResultsAreSentLeavesTheServiceWhole() throws Exception {
        start(1);
        // a connection whose first result finds it gone, as a writer that finds its client not reading does
        JobService.Connection[] self = new JobService.Connection[1];
        RecordingOutbox seen = new RecordingOutbox();
        Outbox stalls = new Outbox() {
            @Override
            public void send(ServerMessage message) {
                seen.send(message);
                if (message instanceof ServerMessage.Result) {
                    self[0].gone("it does not read");
                }
            }

            @Override
            public void close() {
                seen.close();
            }
        };
        self[0] = service.connect(stalls, "stalling client");
        Client other = connect();
        String job = submit("a1", "k", until("go"));
        self[0].receive(new LineReader.Line.Text(job.getBytes(StandardCharsets.UTF_8)));
        self[0].receive(new LineReader.Line.Text(job.replace("a1", "a2").getBytes(StandardCharsets.UTF_8)));
        other.send(submit("b1", "k", until("go")));
        other.outbox().next(ServerMessage.Accepted.class);
        open("go");
        assertThat(other.outbox().next(ServerMessage.Result.class).job().outcome()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(seen.closed()).isTrue();
        other.send("{\"type\":\"status\"}");
        ServerMessage.Status status = other.outbox().next(ServerMessage.Status.class);
        assertThat(status.clients()).isEqualTo(1);
        assertThat(status.outcomes()).containsEntry("succeeded", 1);
    }
}
