package org.archpool.orchestrator.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.archpool.orchestrator.pool.WorkerEvent;
import org.archpool.orchestrator.pool.WorkerFailure;
import org.archpool.orchestrator.report.ConsoleStyle.Verbosity;
import org.archpool.orchestrator.schedule.JobOutcome;
import org.archpool.protocol.Artifact;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;
import org.junit.jupiter.api.Test;

class ConsoleReporterTest {

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    private String printed() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static JobOutcome job(String id, Outcome outcome, String message, List<String> warnings) {
        return new JobOutcome(id, "cmake", outcome, outcome == Outcome.SUCCEEDED ? 0 : 2, null, "w1", 1, 0, 100,
                2000, 1500, 0, 20, 3600, List.of(), "/logs/" + id + ".log", "line 1\nerror: boom\n", message,
                List.of(new Artifact("/b/lib" + id + ".so", List.of("sm_90"))), List.of(), warnings);
    }

    @Test
    void offATerminalEveryFinishedJobIsOneLine() {
        ConsoleReporter console = new ConsoleReporter(out, 2, ConsoleStyle.of(false, Map.of(), Verbosity.NORMAL), 0);
        console.started("a", "w1", 1);
        console.phase("a", Phase.BUILD);
        console.finished(job("a", Outcome.SUCCEEDED, null, List.of("libk.so also holds sm_75")));
        console.finished(job("b", Outcome.FAILED, "configure failed", List.of()));
        console.summary(List.of(job("a", Outcome.SUCCEEDED, null, List.of())), "target: cuda 90", "/r.json");
        assertThat(printed()).doesNotContain("\r").doesNotContain("\033[")
                .contains("[1/2] a succeeded on w1 (3.6s)\n    warning: libk.so also holds sm_75\n")
                .contains("[2/2] b failed on w1 (3.6s): configure failed\n    | line 1\n    | error: boom\n"
                        + "    full log: /logs/b.log\n")
                .contains("id  outcome        time     queue    config     build   inspect  worker   archs found")
                .contains("a   succeeded      3.6s      0.1s      2.0s      1.5s      0.0s  w1       sm_90")
                .endsWith("1 of 1 jobs succeeded. Report: /r.json\n");
    }

    @Test
    void onATerminalAStatusLineIsUpdatedInPlaceAndOnlyProblemsScroll() {
        ConsoleReporter console = new ConsoleReporter(out, 3, ConsoleStyle.of(true, Map.of(), Verbosity.NORMAL), 60);
        console.started("alpha", "w1", 1);
        console.phase("alpha", Phase.CONFIGURE);
        console.started("beta", "w2", 1);
        console.finished(job("alpha", Outcome.SUCCEEDED, null, List.of()));
        console.finished(job("beta", Outcome.TIMED_OUT, "timed out in the build phase", List.of()));
        String text = printed();
        assertThat(text).contains("\r\033[K[0/3] running: alpha (configure), beta (starting)")
                .contains("\r\033[K[1/3] running: beta (starting)")
                .contains("\r\033[K[2/3] beta \033[31mtimed_out\033[0m on w1")
                .doesNotContain("alpha \033[32msucceeded");
    }

    @Test
    void theStatusLineFitsTheTerminal() {
        ConsoleReporter console = new ConsoleReporter(out, 9, ConsoleStyle.of(true, Map.of(), Verbosity.NORMAL), 50);
        for (String id : List.of("first_kernel", "second_kernel", "third_kernel", "fourth_kernel")) {
            console.started(id, "w1", 1);
        }
        String last = printed().substring(printed().lastIndexOf("\r\033[K") + 4);
        assertThat(last).isEqualTo("[0/9] running: first_kernel (starting) +3");
        assertThat(last.length()).isLessThan(50);
        ConsoleReporter narrow = new ConsoleReporter(out, 9, ConsoleStyle.of(true, Map.of(), Verbosity.NORMAL), 30);
        narrow.started("first_kernel", "w1", 1);
        narrow.started("second_kernel", "w1", 1);
        String cut = printed().substring(printed().lastIndexOf("\r\033[K") + 4);
        assertThat(cut).isEqualTo("[0/9] running: first_kernel (").hasSize(29);
    }

    @Test
    void noColorTurnsColourOffAndQuietPrintsOnlyProblems() {
        ConsoleReporter console = new ConsoleReporter(out, 2,
                ConsoleStyle.of(true, Map.of("NO_COLOR", "1"), Verbosity.QUIET), 80);
        console.started("a", "w1", 1);
        console.finished(job("a", Outcome.SUCCEEDED, null, List.of("extra")));
        console.finished(job("b", Outcome.CRASHED, "the infrastructure failed", List.of()));
        console.summary(List.of(job("a", Outcome.SUCCEEDED, null, List.of())), "target: cuda 90", "/r.json");
        assertThat(printed()).doesNotContain("\033[").doesNotContain("extra").doesNotContain("[1/2] a")
                .contains("[2/2] b crashed on w1 (3.6s): the infrastructure failed")
                .doesNotContain("archs found")
                .endsWith("1 of 1 jobs succeeded. Report: /r.json\n");
    }

    @Test
    void verboseNamesAttemptsPhasesAndWorkers() {
        ConsoleReporter console = new ConsoleReporter(out, 1, ConsoleStyle.of(false, Map.of(), Verbosity.VERBOSE), 0);
        console.accept(WorkerEvent.started("w1", 42L, 0, 0, null));
        console.started("a", "w1", 2);
        console.phase("a", Phase.BUILD);
        console.accept(WorkerEvent.died("w1", 42L, 9, WorkerFailure.HANG, "hung: no heartbeat for 10000 ms"));
        assertThat(printed()).contains("    worker w1 started (pid 42)\n")
                .contains("[0/1] start a on w1 (attempt 2)\n")
                .contains("    a: build\n")
                .contains("    worker w1 died (pid 42): hung: no heartbeat for 10000 ms\n");
    }
}
