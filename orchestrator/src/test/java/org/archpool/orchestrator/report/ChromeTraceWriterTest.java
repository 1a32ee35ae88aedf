package org.archpool.orchestrator.report;

import static org.archpool.orchestrator.report.ReportTestData.MAPPER;
import static org.archpool.orchestrator.report.ReportTestData.job;
import static org.archpool.orchestrator.report.ReportTestData.report;
import static org.archpool.orchestrator.report.ReportTestData.workerEvent;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.archpool.orchestrator.schedule.JobOutcome;
import org.archpool.protocol.PhaseTiming;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ChromeTraceWriterTest {

    @TempDir
    Path dir;

    private final ChromeTraceWriter writer = new ChromeTraceWriter();

    /** Writes the trace and parses the text back, so what is checked is what a viewer reads. */
    private JsonNode trace(BuildReport report) throws IOException {
        return MAPPER.readTree(writer.toJson(report));
    }

    private static List<JsonNode> events(JsonNode trace) {
        return StreamSupport.stream(trace.get("traceEvents").spliterator(), false).toList();
    }

    private static Stream<JsonNode> phase(JsonNode trace, String ph) {
        return events(trace).stream().filter(e -> e.path("ph").asText().equals(ph));
    }

    /** pid:tid -> thread name, from the thread_name metadata. */
    private static Map<String, String> threadNames(JsonNode trace) {
        Map<String, String> names = new HashMap<>();
        phase(trace, "M").filter(e -> e.get("name").asText().equals("thread_name"))
                .forEach(e -> names.put(e.get("pid").asInt() + ":" + e.get("tid").asInt(),
                        e.get("args").get("name").asText()));
        return names;
    }

    /** Worker thread names by tid order, i.e. as a viewer sorts them. */
    private static List<String> workerTracks(JsonNode trace) {
        return phase(trace, "M").filter(e -> e.get("name").asText().equals("thread_name"))
                .filter(e -> e.get("pid").asInt() == ChromeTraceWriter.WORKERS_PID)
                .sorted((a, b) -> Integer.compare(a.get("tid").asInt(), b.get("tid").asInt()))
                .map(e -> e.get("args").get("name").asText()).toList();
    }

    private static List<JsonNode> jobEvents(JsonNode trace, String id) {
        return phase(trace, "X").filter(e -> e.get("args").get("job").asText().equals(id)).toList();
    }

    /**
     * What every trace must satisfy to be read correctly: the JSON Object Format; every event with a phase,
     * pid and tid that a thread_name names; complete events with integer ts and dur >= 0; the events of one
     * thread not overlapping; async begin/end pairs matched, end not before begin.
     */
    static void assertWellFormed(JsonNode trace) {
        assertThat(trace.isObject()).isTrue();
        assertThat(trace.get("traceEvents").isArray()).isTrue();
        assertThat(trace.get("displayTimeUnit").asText()).isEqualTo("ms");
        assertThat(trace.get("otherData").isObject()).isTrue();
        Map<String, String> threads = threadNames(trace);
        assertThat(phase(trace, "M").filter(e -> e.get("name").asText().equals("process_name"))
                .map(e -> e.get("args").get("name").asText())).contains("workers");

        Map<String, List<JsonNode>> byThread = new HashMap<>();
        for (JsonNode e : events(trace)) {
            assertThat(e.path("ph").asText()).as("ph of %s", e).isIn("M", "X", "i", "b", "e");
            assertThat(e.has("pid")).as("pid of %s", e).isTrue();
            if (e.get("ph").asText().equals("M")) {
                continue;
            }
            assertThat(e.get("name").isTextual()).as("name of %s", e).isTrue();
            assertThat(e.get("cat").isTextual()).as("cat of %s", e).isTrue();
            assertThat(e.get("ts").isIntegralNumber()).as("ts of %s", e).isTrue();
            assertThat(e.get("ts").asLong()).as("ts of %s", e).isNotNegative();
            String thread = e.get("pid").asInt() + ":" + e.path("tid").asInt(-1);
            assertThat(threads).as("thread of %s", e).containsKey(thread);
            switch (e.get("ph").asText()) {
                case "X" -> {
                    assertThat(e.get("dur").isIntegralNumber()).as("dur of %s", e).isTrue();
                    assertThat(e.get("dur").asLong()).as("dur of %s", e).isNotNegative();
                    byThread.computeIfAbsent(thread, t -> new ArrayList<>()).add(e);
                }
                case "i" -> assertThat(e.get("s").asText()).isIn("t", "p", "g");
                default -> assertThat(e.has("id")).as("id of async %s", e).isTrue();
            }
        }
        byThread.forEach((thread, xs) -> {
            List<JsonNode> sorted = new ArrayList<>(xs);
            sorted.sort((a, b) -> Long.compare(a.get("ts").asLong(), b.get("ts").asLong()));
            for (int i = 1; i < sorted.size(); i++) {
                JsonNode prev = sorted.get(i - 1);
                assertThat(sorted.get(i).get("ts").asLong())
                        .as("%s starts before %s on %s ends", sorted.get(i).get("name"), prev.get("name"),
                                threads.get(thread))
                        .isGreaterThanOrEqualTo(prev.get("ts").asLong() + prev.get("dur").asLong());
            }
        });
        Map<String, JsonNode> begins = new HashMap<>();
        phase(trace, "b").forEach(b -> assertThat(begins.put(b.get("cat").asText() + b.get("id"), b)).isNull());
        List<JsonNode> ends = phase(trace, "e").toList();
        assertThat(ends).hasSameSizeAs(begins.values());
        for (JsonNode e : ends) {
            JsonNode b = begins.get(e.get("cat").asText() + e.get("id"));
            assertThat(b).as("begin of %s", e).isNotNull();
            assertThat(e.get("ts").asLong()).isGreaterThanOrEqualTo(b.get("ts").asLong());
        }
    }

    /** The phases of {@code job} follow each other from its startMs, with their recorded durations, in µs. */
    private static void assertLaidOut(JsonNode trace, JobOutcome job) {
        List<JsonNode> events = jobEvents(trace, job.id());
        assertThat(events).extracting(e -> e.get("name").asText())
                .containsExactlyElementsOf(job.phases().stream().map(p -> job.id() + " " + p.name().wireName()).toList());
        long ts = job.startMs() * 1000;
        for (int i = 0; i < events.size(); i++) {
            JsonNode e = events.get(i);
            PhaseTiming p = job.phases().get(i);
            assertThat(e.get("cat").asText()).isEqualTo(p.name().wireName());
            assertThat(e.get("ts").asLong()).isEqualTo(ts);
            assertThat(e.get("dur").asLong()).isEqualTo(p.ms() * 1000);
            assertThat(e.get("args").get("phase").asText()).isEqualTo(p.name().wireName());
            assertThat(e.get("args").get("phaseMs").asLong()).isEqualTo(p.ms());
            if (p.exitCode() != null) {
                assertThat(e.get("args").get("phaseExitCode").asInt()).isEqualTo(p.exitCode());
            } else {
                assertThat(e.get("args").has("phaseExitCode")).isFalse();
            }
            ts += p.ms() * 1000;
        }
    }

    @Test
    void realisticBuildHasOneTrackPerWorkerInNaturalOrderAndPhasesBackToBack() throws IOException {
        BuildReport report = ReportTestData.realistic();
        JsonNode trace = trace(report);
        assertWellFormed(trace);

        assertThat(workerTracks(trace)).containsExactly("w1", "w1.2", "w2", "w10", "w10.2");
        Map<String, String> threads = threadNames(trace);
        assertThat(threads).containsValues("queued", "not started");

        for (JobOutcome j : report.jobs()) {
            if (!j.phases().isEmpty()) {
                assertLaidOut(trace, j);
            }
            for (JsonNode e : jobEvents(trace, j.id())) {
                assertThat(threads.get(e.get("pid").asInt() + ":" + e.get("tid").asInt())).isEqualTo(j.worker());
                JsonNode args = e.get("args");
                assertThat(args.get("worker").asText()).isEqualTo(j.worker());
                assertThat(args.get("arch").asText()).isEqualTo("80;90");
                assertThat(args.get("outcome").asText()).isEqualTo(j.outcome().wireName());
                assertThat(args.get("attempt").asInt()).isEqualTo(j.attempts());
                assertThat(args.get("kind").asText()).isEqualTo(j.kind());
                assertThat(args.get("log").asText()).isEqualTo(j.logPath());
                if (j.exitCode() != null) {
                    assertThat(args.get("exitCode").asInt()).isEqualTo(j.exitCode());
                } else {
                    assertThat(args.has("exitCode")).isFalse();
                }
            }
        }

        JsonNode failedBuild = jobEvents(trace, "broken_kernel").get(1);
        assertThat(failedBuild.get("name").asText()).isEqualTo("broken_kernel build");
        assertThat(failedBuild.get("args").get("phaseExitCode").asInt()).isEqualTo(1);
        assertThat(failedBuild.get("args").get("message").asText()).isEqualTo("build (cmake) exited with status 1");
        assertThat(jobEvents(trace, "broken_kernel").get(0).get("args").has("message")).isFalse();
        assertThat(jobEvents(trace, "vector_add")).allSatisfy(e -> assertThat(e.get("args").has("message")).isFalse());

        // crashed, no phases: one event for its total, ending when its worker died (36.0 s -> 37.1 s)
        List<JsonNode> crashed = jobEvents(trace, "worker_killer");
        assertThat(crashed).hasSize(1);
        assertThat(crashed.get(0).get("name").asText()).isEqualTo("worker_killer total");
        assertThat(crashed.get(0).get("cat").asText()).isEqualTo("total");
        assertThat(crashed.get(0).get("ts").asLong()).isEqualTo(36_000_000L);
        assertThat(crashed.get(0).get("dur").asLong()).isEqualTo(1_100_000L);
        assertThat(crashed.get(0).get("args").get("clipped").asBoolean()).isTrue();
        assertThat(crashed.get(0).get("args").get("message").asText()).startsWith("the infrastructure failed");

        // never ran: nothing on a worker track, an instant on "not started" at the time it was given up
        assertThat(jobEvents(trace, "histogram")).isEmpty();
        List<JsonNode> notStarted = phase(trace, "i").filter(e -> e.get("cat").asText().equals("not_started")).toList();
        assertThat(notStarted).extracting(e -> e.get("args").get("job").asText())
                .containsExactlyInAnyOrder("histogram", "stencil1d");
        assertThat(notStarted).allSatisfy(e -> {
            assertThat(threads.get(e.get("pid").asInt() + ":" + e.get("tid").asInt())).isEqualTo("not started");
            assertThat(e.get("ts").asLong()).isEqualTo(70_000_000L);
            assertThat(e.get("args").get("outcome").asText()).isEqualTo("cancelled");
            assertThat(e.get("args").get("message").asText()).startsWith("not started: ");
        });

        // worker starts and deaths on their own tracks
        List<JsonNode> died = phase(trace, "i").filter(e -> e.get("name").asText().equals("w1 died")).toList();
        assertThat(died).hasSize(1);
        assertThat(threads.get(died.get(0).get("pid").asInt() + ":" + died.get(0).get("tid").asInt())).isEqualTo("w1");
        assertThat(died.get(0).get("ts").asLong()).isEqualTo(33_500_000L);
        assertThat(died.get(0).get("args").get("reason").asText()).contains("closed its output");
        assertThat(died.get(0).get("args").get("cause").asText()).isEqualTo("exit");

        // queue: every job that waited, from the common submission time (10 ms: the jobs that never started
        // say so exactly) for its queueWaitMs
        Map<String, List<Long>> queued = new HashMap<>();
        Stream.concat(phase(trace, "b"), phase(trace, "e")).filter(e -> e.get("cat").asText().equals("queue"))
                .forEach(e -> queued.computeIfAbsent(e.get("name").asText(), n -> new ArrayList<>())
                        .add(e.get("ts").asLong()));
        assertThat(queued).containsOnlyKeys("slow_kernel queued", "worker_killer queued", "retried_ok queued",
                "matmul queued", "histogram queued", "stencil1d queued");
        assertThat(queued.get("matmul queued")).containsExactly(10_000L, 35_910_000L);
        assertThat(queued.get("retried_ok queued")).containsExactly(10_000L, 12_490_000L);
        assertThat(queued.get("histogram queued")).containsExactly(10_000L, 70_000_000L);
        for (JobOutcome j : report.jobs()) {
            if (queued.containsKey(j.id() + " queued")) {
                assertThat(queued.get(j.id() + " queued").get(1)).isLessThanOrEqualTo(j.startMs() * 1000);
            }
        }

        JsonNode other = trace.get("otherData");
        assertThat(other.get("archpoolVersion").asText()).isEqualTo("0.1.0-test");
        assertThat(other.get("platform").asText()).isEqualTo("cuda");
        assertThat(other.get("arch").asText()).isEqualTo("80;90");
        assertThat(other.get("startedAt").asText()).isEqualTo("2026-11-30T15:26:33.719133762Z");
        assertThat(other.get("exitCode").asInt()).isEqualTo(1);
    }

    @Test
    void timesAreMicrosecondsFromTheSchedulerStart() throws IOException {
        JobOutcome j = job("k").kind("command").on("w1", 1_500).phase("command", 250, 0).phase("inspect", 3, null)
                .build();
        JsonNode trace = trace(report(List.of(j)));
        assertWellFormed(trace);
        List<JsonNode> events = jobEvents(trace, "k");
        assertThat(events).extracting(e -> e.get("ts").asLong()).containsExactly(1_500_000L, 1_750_000L);
        assertThat(events).extracting(e -> e.get("dur").asLong()).containsExactly(250_000L, 3_000L);
    }

    @Test
    void aJobRunningPastTheNextJobsStartOnItsWorkerIsClippedNotOverlapped() throws IOException {
        // clocks disagree: the worker's phase timings add up to more than the time until the next dispatch
        JobOutcome first = job("first").on("w1", 1_000).phase("configure", 600, 0).phase("build", 600, 0).build();
        JobOutcome second = job("second").on("w1", 2_000).phase("configure", 100, 0).build();
        JsonNode trace = trace(report(List.of(second, first)));
        assertWellFormed(trace);
        List<JsonNode> events = jobEvents(trace, "first");
        assertThat(events.get(0).get("dur").asLong()).isEqualTo(600_000L);
        assertThat(events.get(0).get("args").has("clipped")).isFalse();
        assertThat(events.get(1).get("ts").asLong()).isEqualTo(1_600_000L);
        assertThat(events.get(1).get("dur").asLong()).isEqualTo(400_000L);
        assertThat(events.get(1).get("args").get("clipped").asBoolean()).isTrue();
        assertThat(events.get(1).get("args").get("phaseMs").asLong()).isEqualTo(600);
        assertLaidOut(trace, second);
    }

    @Test
    void aCrashedJobWithoutPhasesGetsOneEventForItsTotal() throws IOException {
        JobOutcome j = job("c").outcome("crashed").on("w3", 800).total(4_000).message("worker w3 hung").build();
        JsonNode trace = trace(report(List.of(j)));
        assertWellFormed(trace);
        List<JsonNode> events = jobEvents(trace, "c");
        assertThat(events).hasSize(1);
        assertThat(events.get(0).get("name").asText()).isEqualTo("c total");
        assertThat(events.get(0).get("ts").asLong()).isEqualTo(800_000L);
        assertThat(events.get(0).get("dur").asLong()).isEqualTo(4_000_000L);
        assertThat(events.get(0).get("args").get("message").asText()).isEqualTo("worker w3 hung");
    }

    @Test
    void idsAndMessagesWithQuotesUnicodeAndNewlinesRoundTrip() throws IOException {
        String id = "k\"er\\nel\n\t<script>é漢字\uD83D\uDE80\u001B[31m'";
        String message = "exit 1: \"quoted\"\nsecond line \u0000 nul";
        String log = "/home/user/pröject/.archpool/logs/" + id + ".log";
        String worker = "w\"1\n";
        JobOutcome j = job(id).outcome("failed").on(worker, 10).log(log).phase("build", 5, 1).exitCode(1)
                .message(message).build();
        JobOutcome notStarted = job(id + "2").notStarted(20, message).build();
        BuildReport report = report(List.of(j, notStarted));

        Path file = dir.resolve("trace.json");
        writer.write(report, file);
        JsonNode trace = MAPPER.readTree(Files.readString(file, StandardCharsets.UTF_8));
        assertThat(trace).isEqualTo(trace(report));
        assertWellFormed(trace);
        JsonNode build = jobEvents(trace, id).get(0);
        assertThat(build.get("name").asText()).isEqualTo(id + " build");
        assertThat(build.get("args").get("log").asText()).isEqualTo(log);
        assertThat(build.get("args").get("worker").asText()).isEqualTo(worker);
        assertThat(build.get("args").get("message").asText()).isEqualTo(message);
        assertThat(workerTracks(trace)).containsExactly(worker);
        assertThat(phase(trace, "i").filter(e -> e.get("cat").asText().equals("not_started")).findFirst().orElseThrow()
                .get("args").get("job").asText()).isEqualTo(id + "2");
    }

    @Test
    void unpairedSurrogatesBecomeReplacementCharactersInsteadOfFailingTheWrite() throws IOException {
        JobOutcome j = job("a\uD800b").on("w1", 0).phase("build", 1, 0).message("x\uDC00").build();
        Path file = dir.resolve("trace.json");
        writer.write(report(List.of(j)), file);
        JsonNode trace = MAPPER.readTree(Files.readAllBytes(file));
        assertThat(events(trace).stream().filter(e -> e.path("ph").asText().equals("X")).findFirst().orElseThrow()
                .get("name").asText()).isEqualTo("a\uFFFDb build");
        assertThat(ChromeTraceWriter.safe("ok \uD83D\uDE80 \uDE80\uD83D")).isEqualTo("ok \uD83D\uDE80 \uFFFD\uFFFD");
    }

    @Test
    void writeReplacesTheFileAtomicallyAndLeavesNoTemporaryFile() throws IOException {
        Path file = dir.resolve("out").resolve("trace.json");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "old");
        writer.write(ReportTestData.realistic(), file);
        assertWellFormed(MAPPER.readTree(file.toFile()));
        try (Stream<Path> files = Files.list(file.getParent())) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("trace.json");
        }
    }

    @Test
    void aBuildWithoutJobsIsAnEmptyButValidTrace() throws IOException {
        JsonNode trace = trace(report(List.of()));
        assertWellFormed(trace);
        assertThat(phase(trace, "X")).isEmpty();
        assertThat(workerTracks(trace)).isEmpty();
    }

    @Test
    void workerIdsSortNaturally() {
        List<String> ids = new ArrayList<>(List.of("w10", "w2", "w1.2", "w1", "w10.2", "w1.10", "w9", "w01"));
        ids.sort(ChromeTraceWriter::naturalCompare);
        assertThat(ids).containsExactly("w01", "w1", "w1.2", "w1.10", "w2", "w9", "w10", "w10.2");
    }

    static List<String> realReports() {
        return ReportTestData.REAL;
    }

    /** Reports written by the real tool (see ReportTestData): every one gives a well-formed trace. */
    @ParameterizedTest
    @MethodSource("realReports")
    void realReportsGiveWellFormedTraces(String name) throws IOException {
        BuildReport report = ReportTestData.load(name);
        JsonNode trace = trace(report);
        assertWellFormed(trace);
        String arch = String.join(";", report.resolution().archs());
        for (JobOutcome j : report.jobs()) {
            List<JsonNode> events = jobEvents(trace, j.id());
            if (j.worker() == null) {
                assertThat(events).isEmpty();
                continue;
            }
            assertThat(events).isNotEmpty().allSatisfy(e -> {
                assertThat(e.get("args").get("arch").asText()).isEqualTo(arch);
                assertThat(e.get("args").get("worker").asText()).isEqualTo(j.worker());
            });
            if (!j.phases().isEmpty()) {
                assertLaidOut(trace, j);
                // the phases fit in the time the coordinator measured for the job
                assertThat(j.phases().stream().mapToLong(PhaseTiming::ms).sum()).isLessThanOrEqualTo(j.totalMs());
            }
        }
    }

    @Test
    void realQuickstartBuildOnTwoWorkers() throws IOException {
        JsonNode trace = trace(ReportTestData.load(ReportTestData.QUICKSTART));
        assertThat(workerTracks(trace)).containsExactly("w1", "w2");
        assertThat(phase(trace, "X").map(e -> e.get("cat").asText()).collect(Collectors.groupingBy(c -> c,
                Collectors.counting()))).containsExactlyInAnyOrderEntriesOf(
                Map.of("configure", 6L, "build", 6L, "inspect", 6L));
        JsonNode first = jobEvents(trace, "vector_add").get(0);
        assertThat(first.get("name").asText()).isEqualTo("vector_add configure");
        assertThat(first.get("ts").asLong()).isEqualTo(5_062_000L);
        assertThat(first.get("dur").asLong()).isEqualTo(16_427_000L);
        assertThat(first.get("args").get("log").asText())
                .isEqualTo("/home/user/project/.archpool/logs/vector_add.log");
        assertThat(trace.get("otherData").get("manifest").asText()).isEqualTo("/home/user/project/archpool.json");
    }

    @Test
    void realBuildWithEveryKindOfFailure() throws IOException {
        JsonNode trace = trace(ReportTestData.load(ReportTestData.MIXED));
        // w2 died under worker_killer, so did its replacement w2.2; w2.3 ran the rest of slot 2
        assertThat(workerTracks(trace)).containsExactly("w1", "w2", "w2.2", "w2.3");
        List<JsonNode> crashed = jobEvents(trace, "worker_killer");
        assertThat(crashed).hasSize(1);
        assertThat(crashed.get(0).get("args").get("outcome").asText()).isEqualTo("crashed");
        long end = crashed.get(0).get("ts").asLong() + crashed.get(0).get("dur").asLong();
        assertThat(end).isEqualTo(7_342_000L); // w2.2's death
        assertThat(jobEvents(trace, "slow_kernel").get(0).get("args").get("outcome").asText()).isEqualTo("timed_out");
        assertThat(jobEvents(trace, "slow_kernel").get(0).get("args").has("phaseExitCode")).isFalse();
        JsonNode segv = jobEvents(trace, "segv_compiler").get(0);
        assertThat(segv.get("args").get("signal").asText()).isEqualTo("SIGSEGV");
        assertThat(segv.get("args").get("phaseExitCode").asInt()).isEqualTo(139);
        assertThat(phase(trace, "i").map(e -> e.get("name").asText()))
                .contains("w1 started", "w2 started", "w2 died", "w2.2 started", "w2.2 died", "w2.3 started");
        assertThat(phase(trace, "i").filter(e -> e.get("name").asText().equals("w2 died")).findFirst().orElseThrow()
                .get("args").get("cause").asText()).isEqualTo("exit");
        // all six jobs were submitted at about 34 ms; segv_compiler waited 7.3 s for slot 2, then for w2.3 to start
        List<JsonNode> segvQueued = Stream.concat(phase(trace, "b"), phase(trace, "e"))
                .filter(e -> e.get("name").asText().equals("segv_compiler queued")).toList();
        assertThat(segvQueued).extracting(e -> e.get("ts").asLong()).containsExactly(34_000L, 7_348_000L);
    }

    @Test
    void realBuildStoppedByAFailureShowsTheJobsThatNeverStarted() throws IOException {
        JsonNode trace = trace(ReportTestData.load(ReportTestData.STOP_ON_FAILURE));
        assertThat(workerTracks(trace)).containsExactly("w1");
        assertThat(phase(trace, "i").filter(e -> e.get("cat").asText().equals("not_started"))
                .map(e -> e.get("name").asText())).containsExactly("never_a not started", "never_b not started");
        assertThat(jobEvents(trace, "never_a")).isEmpty();
    }
}
