package org.archpool.orchestrator.pool;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.archpool.orchestrator.schedule.JobOutcome;
import org.archpool.orchestrator.schedule.Scheduler;
import org.archpool.orchestrator.schedule.SchedulerConfig;
import org.archpool.orchestrator.schedule.SchedulerListener;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.Message;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Worker processes that misbehave, each a fixture program named after its fault. The program stands in for
 * {@code java}: its first launch misbehaves, later launches exec the real JVM with the same arguments, so
 * the job must end up succeeding on a fresh worker with the fault recorded as the first attempt's failure.
 */
@Tag("process")
class FaultyWorkerTest {

    private static final String HELLO =
            "{\\\"type\\\":\\\"hello\\\",\\\"protocolVersion\\\":" + Message.PROTOCOL_VERSION + ",\\\"workerId\\\":\\\"w\\\",\\\"pid\\\":1,\\\"host\\\":\\\"h\\\",\\\"javaVersion\\\":\\\"17\\\"}";

    /** What the first launch does, by fault name. */
    private static String fault(String name) {
        return switch (name) {
            case "garbage-worker" -> "echo \"" + HELLO + "\"; read line; printf 'garbage\\001\\002{not json\\n'; sleep 30";
            case "wrong-id-worker" -> "echo \"" + HELLO + "\"; read line; "
                    + "echo '{\"type\":\"result\",\"requestId\":\"someone-else#1\",\"outcome\":\"succeeded\"}'; sleep 30";
            case "oversize-worker" -> "echo \"" + HELLO + "\"; read line; head -c 5000000 /dev/zero | tr '\\0' x; echo; sleep 30";
            case "unknown-type-worker" -> "echo \"" + HELLO + "\"; read line; echo '{\"type\":\"launch\"}'; sleep 30";
            case "slow-hello-worker" -> "sleep 30";
            case "old-protocol-worker" -> "echo '{\"type\":\"hello\",\"protocolVersion\":99,\"workerId\":\"w\",\"pid\":1,"
                    + "\"host\":\"h\",\"javaVersion\":\"17\"}'; sleep 30";
            case "dies-mid-job-worker" -> "echo \"" + HELLO + "\"; read line; exit 3";
            case "silent-worker" -> "echo \"" + HELLO + "\"; read line; sleep 30";
            default -> throw new IllegalArgumentException(name);
        };
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "garbage-worker      | protocol error: not JSON: \"garbage\\u0001\\u0002{not json\"",
        "wrong-id-worker     | a result for request someone-else#1, which is not the one in flight",
        "oversize-worker     | line longer than 4194304 bytes",
        "unknown-type-worker | unknown or missing message type",
        "slow-hello-worker   | did not say hello within 5 s",
        "old-protocol-worker | speaks protocol version 99",
        "dies-mid-job-worker | closed its output; it exited with status 3",
        "silent-worker       | hung: no heartbeat"})
    void theJobSurvivesOnAFreshWorker(String name, String expected, @TempDir Path dir) throws Exception {
        Path program = dir.resolve(name);
        Files.writeString(program, "#!/bin/sh\n"
                + "if [ ! -f \"$FAULT_MARK\" ]; then touch \"$FAULT_MARK\"; " + fault(name) + "; exit 0; fi\n"
                + "exec \"$REAL_JAVA\" \"$@\"\n");
        Files.setPosixFilePermissions(program, PosixFilePermissions.fromString("rwxr-xr-x"));
        Map<String, String> env = Map.of("PATH", System.getenv("PATH"), "FAULT_MARK", dir.resolve("mark").toString(),
                "REAL_JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString());
        WorkerSpec spec = new WorkerSpec(program, WorkerSpec.DEFAULT_JVM_OPTIONS, System.getProperty("java.class.path"),
                env, dir.resolve("workers"), Duration.ofSeconds(5), Duration.ofMillis(250), Duration.ofSeconds(2));
        SchedulerConfig config = new SchedulerConfig(new Target(Platform.CUDA, List.of("90")), dir.resolve("logs"), 0, 1,
                1, true);
        Clock clock = Clock.systemUTC();
        JobOutcome outcome;
        try (WorkerPool pool = new WorkerPool(new LocalWorkerLauncher(spec), 1, clock);
             Scheduler scheduler = new Scheduler(pool, config, clock, SchedulerListener.NONE)) {
            outcome = scheduler.submit(new CommandJob("job", List.of("sh", "-c", "echo built"), dir.toString(), null,
                    null, null)).join();
            boolean failsAtHello = name.equals("slow-hello-worker") || name.equals("old-protocol-worker");
            assertThat(pool.events()).extracting(WorkerEvent::event).startsWith(
                    failsAtHello ? "failed_to_start" : "started");
            String here = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
            // the real worker that ran the job said hello from here (a faulty one may have said anything)
            assertThat(pool.events()).filteredOn(e -> e.event().equals("started")).last()
                    .satisfies(e -> assertThat(e.host()).as("the host from the worker's hello").isEqualTo(here));
            assertThat(pool.events()).filteredOn(e -> !e.event().equals("started")).allSatisfy(e ->
                    assertThat(e.host()).isNull());
        }
        assertThat(outcome.outcome()).as(outcome.toString()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(outcome.attempts()).isEqualTo(2);
        assertThat(outcome.attemptFailures()).singleElement().asString().contains(expected);
    }
}
