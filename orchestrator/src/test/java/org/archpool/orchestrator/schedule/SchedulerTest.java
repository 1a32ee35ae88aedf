package org.archpool.orchestrator.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.archpool.orchestrator.pool.ThreadWorkerLauncher;
import org.archpool.orchestrator.pool.Worker;
import org.archpool.orchestrator.pool.WorkerFailedException;
import org.archpool.orchestrator.pool.WorkerFailure;
import org.archpool.orchestrator.pool.WorkerLauncher;
import org.archpool.orchestrator.pool.WorkerPool;
import org.archpool.orchestrator.pool.WorkerState;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Step;
import org.archpool.protocol.Target;
import org.archpool.protocol.codec.MessageReader;
import org.archpool.worker.JobRunner;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("process")
class SchedulerTest {

    @TempDir
    Path dir;

    private final Clock clock = Clock.systemUTC();

    private SchedulerConfig config(int retries, boolean keepGoing) {
        return new SchedulerConfig(new Target(Platform.CUDA, List.of("90")), dir.resolve("logs"), 0, 1, retries,
                keepGoing);
    }

    private JobSpec sh(String id, String script) {
        return new CommandJob(id, List.of("sh", "-c", script), dir.toString(), null, null, null);
    }

    private List<JobOutcome> runAll(WorkerLauncher launcher, int slots, SchedulerConfig config, List<JobSpec> jobs) {
        List<JobOutcome> outcomes = new ArrayList<>();
        try (WorkerPool pool = new WorkerPool(launcher, slots, clock);
             Scheduler scheduler = new Scheduler(pool, config, clock, SchedulerListener.NONE)) {
            List<CompletableFuture<JobOutcome>> futures = new ArrayList<>();
            jobs.forEach(j -> futures.add(scheduler.submit(j)));
            futures.forEach(f -> outcomes.add(f.join()));
        }
        return outcomes;
    }

    @Test
    void everyJobGetsExactlyOneOutcomeInOrder() {
        List<JobSpec> jobs = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            jobs.add(sh("j" + i, i == 3 ? "exit 7" : "true"));
        }
        List<JobOutcome> outcomes = runAll(new ThreadWorkerLauncher(JobRunner.standard()), 3, config(1, true), jobs);
        assertThat(outcomes).extracting(JobOutcome::id).containsExactly("j0", "j1", "j2", "j3", "j4", "j5", "j6", "j7");
        assertThat(outcomes.get(3).outcome()).isEqualTo(Outcome.FAILED);
        assertThat(outcomes.get(3).exitCode()).isEqualTo(7);
        assertThat(outcomes).filteredOn(o -> o.outcome() == Outcome.SUCCEEDED).hasSize(7);
        assertThat(outcomes).extracting(JobOutcome::worker).allMatch(w -> w.matches("w[123]"));
    }

    @Test
    void withoutKeepGoingTheFirstFailureStopsDispatching() {
        List<JobOutcome> outcomes = runAll(new ThreadWorkerLauncher(JobRunner.standard()), 1, config(1, false),
                List.of(sh("ok", "true"), sh("bad", "exit 1"), sh("later", "true")));
        assertThat(outcomes).extracting(JobOutcome::outcome)
                .containsExactly(Outcome.SUCCEEDED, Outcome.FAILED, Outcome.CANCELLED);
        assertThat(outcomes.get(2).message()).contains("not started").contains("'bad' failed");
    }

    /** A launcher whose first {@code crashes} workers die under their first request, as a killed JVM would. */
    private static final class CrashingLauncher implements WorkerLauncher {
        private final WorkerLauncher real = new ThreadWorkerLauncher(JobRunner.standard());
        private final AtomicInteger toCrash;
        final List<String> launched = new ArrayList<>();

        CrashingLauncher(int crashes) {
            toCrash = new AtomicInteger(crashes);
        }

        @Override
        public Worker launch(String id) throws WorkerFailedException {
            launched.add(id);
            Worker worker = real.launch(id);
            if (toCrash.getAndDecrement() <= 0) {
                return worker;
            }
            return new Worker() {
                private boolean dead;

                public String id() {
                    return id;
                }

                public long pid() {
                    return -1;
                }

                public CompletableFuture<BuildResult> execute(BuildRequest r, Consumer<Phase> p) {
                    dead = true;
                    return CompletableFuture.failedFuture(new WorkerFailedException(WorkerFailure.EXIT, "worker " + id + " exited with status 137"));
                }

                public void cancel(String requestId) {
                }

                public WorkerState state() {
                    return dead ? new WorkerState.Dead(WorkerFailure.EXIT, "exited with status 137") : WorkerState.IDLE;
                }

                public void close() {
                    worker.close();
                }
            };
        }

        @Override
        public String mode() {
            return "test";
        }
    }

    @Test
    void aCrashedWorkerIsReplacedAndTheJobRetried() {
        CrashingLauncher launcher = new CrashingLauncher(1);
        List<JobOutcome> outcomes = runAll(launcher, 1, config(1, true), List.of(sh("a", "true"), sh("b", "true")));
        assertThat(outcomes.get(0).outcome()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(outcomes.get(0).attempts()).isEqualTo(2);
        assertThat(outcomes.get(0).worker()).isEqualTo("w1.2");
        assertThat(outcomes.get(0).logPath()).as("a retry's log, a name no job id can take")
                .isEqualTo(dir.resolve("logs/a@attempt2.log").toString());
        assertThat(outcomes.get(0).attemptFailures()).singleElement().asString().contains("status 137");
        assertThat(outcomes.get(1).attempts()).isEqualTo(1);
        assertThat(launcher.launched).containsExactly("w1", "w1.2");
    }

    @Test
    void retriesAreBoundedThenTheJobIsCrashed() {
        List<JobOutcome> outcomes = runAll(new CrashingLauncher(5), 1, config(2, true), List.of(sh("a", "true")));
        assertThat(outcomes.get(0).outcome()).isEqualTo(Outcome.CRASHED);
        assertThat(outcomes.get(0).attempts()).isEqualTo(3);
        assertThat(outcomes.get(0).attemptFailures()).hasSize(3);
        assertThat(outcomes.get(0).message()).contains("status 137");
    }

    /** A launcher whose workers remember every request they are sent, then run it as a thread worker does. */
    private static final class RecordingLauncher implements WorkerLauncher {
        private final WorkerLauncher real = new ThreadWorkerLauncher(JobRunner.standard());
        final List<BuildRequest> requests = new CopyOnWriteArrayList<>();

        @Override
        public Worker launch(String id) throws WorkerFailedException {
            Worker worker = real.launch(id);
            return new Worker() {
                public String id() {
                    return worker.id();
                }

                public long pid() {
                    return worker.pid();
                }

                public CompletableFuture<BuildResult> execute(BuildRequest r, Consumer<Phase> p) {
                    requests.add(r);
                    return worker.execute(r, p);
                }

                public void cancel(String requestId) {
                    worker.cancel(requestId);
                }

                public WorkerState state() {
                    return worker.state();
                }

                public void close() {
                    worker.close();
                }
            };
        }

        @Override
        public String mode() {
            return "test";
        }
    }

    private SchedulerConfig config(Target target) {
        return new SchedulerConfig(target, dir.resolve("logs"), 0, 1, 0, true);
    }

    @Test
    void aCommandJobIsSentWithItsPlaceholdersExpanded() throws Exception {
        RecordingLauncher launcher = new RecordingLauncher();
        Target target = new Target(Platform.CUDA, List.of("90", "80-real"));
        String script = "printf '%s\\n' \"$@\" > argv.txt";
        CommandJob job = new CommandJob("k", List.of("sh", "-c", script, "sh", "{offload-arch-flags}", "--archs={archs}"),
                dir.toString(), null, null, null);
        List<JobOutcome> outcomes = runAll(launcher, 1, config(target), List.of(job));

        List<String> flags = List.of("-gencode=arch=compute_90,code=[compute_90,sm_90]",
                "-gencode=arch=compute_80,code=sm_80", "--archs=90;80-real");
        assertThat(outcomes).singleElement().extracting(JobOutcome::outcome).isEqualTo(Outcome.SUCCEEDED);
        assertThat(launcher.requests).singleElement().satisfies(request -> {
            assertThat(request.target()).isEqualTo(target);
            assertThat(request.job()).isInstanceOf(CommandJob.class);
            assertThat(((CommandJob) request.job()).argv()).containsExactly("sh", "-c", script, "sh",
                    flags.get(0), flags.get(1), flags.get(2));
        });
        assertThat(Files.readAllLines(dir.resolve("argv.txt"))).containsExactlyElementsOf(flags);
        assertThat(Files.readString(dir.resolve("logs/k.log"))).contains("\n$ sh -c " + script + " sh "
                + String.join(" ", flags) + "\n");
        assertThat(job.argv()).contains("{offload-arch-flags}", "--archs={archs}");
    }

    @Test
    void eachRequestCarriesTheLogCap() {
        CommandJob job = new CommandJob("k", List.of("true"), dir.toString(), null, null, null);
        RecordingLauncher byDefault = new RecordingLauncher();
        runAll(byDefault, 1, config(new Target(Platform.CUDA, List.of("90"))), List.of(job));
        assertThat(byDefault.requests).singleElement().extracting(r -> r.maxLogBytes()).isEqualTo(64L << 20);
        RecordingLauncher uncapped = new RecordingLauncher();
        runAll(uncapped, 1, config(new Target(Platform.CUDA, List.of("90"))).withMaxLogBytes(null), List.of(job));
        assertThat(uncapped.requests).singleElement().extracting(r -> r.maxLogBytes()).isNull();
    }

    @Test
    void aRequestTooLongForTheProtocolFailsUnsent() {
        RecordingLauncher launcher = new RecordingLauncher();
        // the manifest reader refuses such a job; one made in code reaches the check before sending
        CommandJob job = new CommandJob("huge", List.of("echo", "x".repeat(MessageReader.DEFAULT_MAX_LINE_BYTES / 2)),
                dir.toString(), null, null, null);
        List<JobOutcome> outcomes = runAll(launcher, 1, config(1, true), List.of(job, sh("next", "true")));
        assertThat(outcomes.get(0).outcome()).isEqualTo(Outcome.FAILED);
        assertThat(outcomes.get(0).message()).contains("its request to a worker would be ")
                .contains("over the protocol's limit of 4194304 bytes per message");
        assertThat(outcomes.get(0).attempts()).isZero();
        assertThat(outcomes.get(1).outcome()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(launcher.requests).extracting(r -> r.job().id()).containsExactly("next");
    }

    @Test
    void aCmakeJobIsSentWithItsStepsConcreteForTheTarget() {
        RecordingLauncher launcher = new RecordingLauncher();
        CmakeJob job = new CmakeJob("c", dir.resolve("no-such-project").toString(), dir.resolve("build").toString(),
                null, null, null, null, null, null, null, null, null);
        runAll(launcher, 1, new SchedulerConfig(new Target(Platform.HIP, List.of("gfx942")), dir.resolve("logs"), 0, 3,
                0, true), List.of(job));
        assertThat(launcher.requests).singleElement().satisfies(request -> {
            assertThat(request.job()).isSameAs(job);
            assertThat(request.steps()).extracting(Step::phase).containsExactly(Phase.CONFIGURE, Phase.BUILD);
            assertThat(request.steps().get(0).argv()).contains("-DCMAKE_HIP_ARCHITECTURES=gfx942");
            assertThat(request.steps().get(1).argv()).containsSequence("--parallel", "3");
            assertThat(request.steps()).allSatisfy(step -> assertThat(step.env()).containsEntry("HIPARCHS", "gfx942"));
        });
    }

    @Test
    void anArchitectureWithoutACompilerFlagFailsTheJobBeforeItIsSent() {
        RecordingLauncher launcher = new RecordingLauncher();
        List<JobOutcome> outcomes = runAll(launcher, 1, config(new Target(Platform.CUDA, List.of("sm_90"))),
                List.of(new CommandJob("flags", List.of("nvcc", "{offload-arch-flags}"), dir.toString(), null, null,
                        null), sh("list", "test '{archs}' = sm_90")));
        assertThat(outcomes.get(0).outcome()).isEqualTo(Outcome.FAILED);
        assertThat(outcomes.get(0).attempts()).isZero();
        assertThat(outcomes.get(0).worker()).isNull();
        assertThat(outcomes.get(0).logPath()).isNull();
        assertThat(outcomes.get(0).message()).isEqualTo("its argv could not be expanded for the target: "
                + "'sm_90' is not a CUDA architecture in CMake's spelling");
        assertThat(outcomes.get(1).outcome()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(launcher.requests).extracting(r -> r.job().id()).containsExactly("list");
    }

    @Test
    void aQueuedJobCancelledOnItsOwnEndsAtOnceAndTheOthersRun() throws Exception {
        Path gate = dir.resolve("go");
        try (WorkerPool pool = new WorkerPool(new ThreadWorkerLauncher(JobRunner.standard()), 1, clock);
             Scheduler scheduler = new Scheduler(pool, config(1, false), clock, SchedulerListener.NONE)) {
            CompletableFuture<JobOutcome> first = scheduler.submit(sh("first", "while [ ! -e " + gate + " ]; do sleep 0.02; done"));
            CompletableFuture<JobOutcome> second = scheduler.submit(sh("second", "true"));
            CompletableFuture<JobOutcome> third = scheduler.submit(sh("third", "true"));
            scheduler.cancel("second", "cancelled by its client");
            boolean atOnce = second.isDone();
            Files.createFile(gate);
            assertThat(atOnce).as("cancelled while the only slot is busy: at once, not when its turn comes").isTrue();
            JobOutcome cancelled = second.get(10, TimeUnit.SECONDS);
            assertThat(cancelled.outcome()).isEqualTo(Outcome.CANCELLED);
            assertThat(cancelled.attempts()).isZero();
            assertThat(cancelled.message()).isEqualTo("not started: cancelled by its client");
            assertThat(first.join().outcome()).isEqualTo(Outcome.SUCCEEDED);
            // a cancelled job is not a failure that stops the others, even without keep-going
            assertThat(third.join().outcome()).isEqualTo(Outcome.SUCCEEDED);
        }
    }

    @Test
    void aRunningJobCancelledOnItsOwnIsKilledAndNotRetried() throws Exception {
        Path started = dir.resolve("started");
        try (WorkerPool pool = new WorkerPool(new ThreadWorkerLauncher(JobRunner.standard()), 2, clock);
             Scheduler scheduler = new Scheduler(pool, config(1, true), clock, SchedulerListener.NONE)) {
            CompletableFuture<JobOutcome> running = scheduler.submit(sh("long", "touch " + started + "; sleep 60"));
            CompletableFuture<JobOutcome> other = scheduler.submit(sh("other", "sleep 1"));
            await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(started));
            scheduler.cancel("long", "cancelled by its client");
            JobOutcome outcome = running.get(15, TimeUnit.SECONDS);
            assertThat(outcome.outcome()).isEqualTo(Outcome.CANCELLED);
            assertThat(outcome.attempts()).isEqualTo(1);
            assertThat(outcome.message()).isEqualTo("cancelled: cancelled by its client");
            assertThat(other.join().outcome()).isEqualTo(Outcome.SUCCEEDED);
            scheduler.cancel("other", "too late");
            assertThat(scheduler.submit(sh("after", "true")).join().outcome()).isEqualTo(Outcome.SUCCEEDED);
        }
    }

    @Test
    void anInterruptedBuildAwaitsItsRunningJobsNotTheQueuedOnes() throws Exception {
        // the interrupt hook's grace is for the jobs that run: the queued ones' outcomes need no worker
        Path started = dir.resolve("started");
        try (WorkerPool pool = new WorkerPool(new ThreadWorkerLauncher(JobRunner.standard()), 1, clock);
             Scheduler scheduler = new Scheduler(pool, config(0, true), clock, SchedulerListener.NONE)) {
            assertThat(scheduler.awaitNoneRunning(Duration.ofMillis(1))).as("nothing submitted").isTrue();
            CompletableFuture<JobOutcome> running = scheduler.submit(sh("long", "touch " + started + "; sleep 60"));
            List<CompletableFuture<JobOutcome>> queued = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                queued.add(scheduler.submit(sh("queued" + i, "true")));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(started));
            assertThat(scheduler.awaitNoneRunning(Duration.ofMillis(200))).as("the long job runs").isFalse();
            scheduler.interrupt("the build was interrupted");
            assertThat(scheduler.awaitNoneRunning(Duration.ofSeconds(15))).isTrue();
            assertThat(running.get(5, TimeUnit.SECONDS).message()).isEqualTo("cancelled: the build was interrupted");
            for (CompletableFuture<JobOutcome> q : queued) {
                assertThat(q.get(5, TimeUnit.SECONDS).message()).isEqualTo("not started: the build was interrupted");
            }
        }
    }

    @Test
    void manyJobsCancelledInOneCallEndAtOnceAndTheOthersRun() throws Exception {
        // as serve cancels a disconnected client's jobs: one call, keep-going on (serve's scheduler always is)
        Path started = dir.resolve("started");
        try (WorkerPool pool = new WorkerPool(new ThreadWorkerLauncher(JobRunner.standard()), 1, clock);
             Scheduler scheduler = new Scheduler(pool, config(1, true), clock, SchedulerListener.NONE)) {
            CompletableFuture<JobOutcome> running = scheduler.submit(sh("long", "touch " + started + "; sleep 60"));
            List<String> named = new ArrayList<>(List.of("long"));
            List<CompletableFuture<JobOutcome>> cancelled = new ArrayList<>();
            List<CompletableFuture<JobOutcome>> kept = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                if (i % 500 == 250) {
                    kept.add(scheduler.submit(sh("kept" + i, "true")));
                }
                named.add("queued" + i);
                cancelled.add(scheduler.submit(sh("queued" + i, "true")));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(started));
            scheduler.cancel(named, "its client disconnected");
            assertThat(cancelled).as("every queued job named: cancelled at once, not when its turn comes")
                    .allMatch(CompletableFuture::isDone);
            for (CompletableFuture<JobOutcome> f : cancelled) {
                JobOutcome outcome = f.join();
                assertThat(outcome.outcome()).isEqualTo(Outcome.CANCELLED);
                assertThat(outcome.attempts()).isZero();
                assertThat(outcome.message()).isEqualTo("not started: its client disconnected");
            }
            JobOutcome killed = running.get(15, TimeUnit.SECONDS);
            assertThat(killed.outcome()).isEqualTo(Outcome.CANCELLED);
            assertThat(killed.attempts()).isEqualTo(1);
            assertThat(killed.message()).isEqualTo("cancelled: its client disconnected");
            assertThat(kept).extracting(f -> f.join().outcome()).containsOnly(Outcome.SUCCEEDED);
            assertThat(scheduler.submit(sh("after", "true")).join().outcome()).isEqualTo(Outcome.SUCCEEDED);
        }
    }

    @Test
    void eachAttemptHandedToAWorkerIsReportedStartedBeforeTheOutcome() {
        CrashingLauncher launcher = new CrashingLauncher(1);
        List<JobStart> starts = new CopyOnWriteArrayList<>();
        try (WorkerPool pool = new WorkerPool(launcher, 1, clock);
             Scheduler scheduler = new Scheduler(pool, config(1, true), clock, SchedulerListener.NONE)) {
            CompletableFuture<JobOutcome> retried = scheduler.submit(sh("a", "true"), starts::add);
            List<JobStart> beforeOutcome = new ArrayList<>();
            JobOutcome outcome = retried.whenComplete((o, e) -> beforeOutcome.addAll(starts)).join();
            assertThat(outcome.attempts()).isEqualTo(2);
            assertThat(beforeOutcome).as("every start is told before the outcome completes the future")
                    .containsExactly(new JobStart("a", "w1", 1), new JobStart("a", "w1.2", 2));
            starts.clear();
            assertThat(scheduler.submit(sh("b", "true"), starts::add).join().outcome()).isEqualTo(Outcome.SUCCEEDED);
            assertThat(starts).containsExactly(new JobStart("b", "w1.2", 1));
        }
    }

    @Test
    void aJobThatNeverReachesAWorkerIsNeverReportedStarted() throws Exception {
        Path gate = dir.resolve("go");
        List<JobStart> starts = new CopyOnWriteArrayList<>();
        try (WorkerPool pool = new WorkerPool(new ThreadWorkerLauncher(JobRunner.standard()), 1, clock);
             Scheduler scheduler = new Scheduler(pool, config(0, true), clock, SchedulerListener.NONE)) {
            CompletableFuture<JobOutcome> first = scheduler.submit(sh("first",
                    "while [ ! -e " + gate + " ]; do sleep 0.02; done"), starts::add);
            CompletableFuture<JobOutcome> queued = scheduler.submit(sh("queued", "true"), starts::add);
            try {
                await().atMost(Duration.ofSeconds(20)).until(() -> !starts.isEmpty());
                scheduler.cancel("queued", "cancelled by its client");
            } finally {
                Files.createFile(gate); // else closing the scheduler would wait for ever for the first job
            }
            assertThat(queued.join().outcome()).isEqualTo(Outcome.CANCELLED);
            assertThat(first.join().outcome()).isEqualTo(Outcome.SUCCEEDED);
            assertThat(starts).extracting(JobStart::jobId).containsExactly("first");
        }
    }
}
