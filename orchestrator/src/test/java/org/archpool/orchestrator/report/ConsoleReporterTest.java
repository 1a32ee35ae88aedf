package org.archpool.orchestrator.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.archpool.orchestrator.cache.CacheResult;
import org.archpool.orchestrator.cache.CacheStatus;
import org.archpool.orchestrator.cache.MissReason;
import org.archpool.orchestrator.pool.WorkerEvent;
import org.archpool.orchestrator.pool.WorkerFailure;
import org.archpool.orchestrator.report.ConsoleStyle.Verbosity;
import org.archpool.orchestrator.schedule.JobOutcome;
import org.archpool.protocol.Artifact;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

class ConsoleReporterTest {

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    private final List<ConsoleOutput> outputs = new ArrayList<>();

    /** What was printed, once every console has written what it queued. */
    private String printed() {
        outputs.forEach(o -> assertThat(o.drain(Duration.ofSeconds(10))).isTrue());
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private ConsoleReporter reporter(int total, ConsoleStyle style, int width) {
        ConsoleOutput output = ConsoleOutput.start(out, "test");
        outputs.add(output);
        return new ConsoleReporter(output, total, style, width);
    }

    private static JobOutcome job(String id, Outcome outcome, String message, List<String> warnings) {
        return new JobOutcome(id, "cmake", outcome, outcome == Outcome.SUCCEEDED ? 0 : 2, null, "w1", 1, 0, 100,
                2000, 1500, 0, 20, 3600, List.of(), "/logs/" + id + ".log", "line 1\nerror: boom\n", message,
                List.of(new Artifact("/b/lib" + id + ".so", List.of("sm_90"))), List.of(), warnings);
    }

    private static JobOutcome cached(String id, CacheStatus status, MissReason reason) {
        return job(id, Outcome.SUCCEEDED, null, List.of())
                .withCache(new CacheResult(status, "0123456789abcdef".repeat(4), reason, null));
    }

    @Test
    void theCacheLineSaysWhyTheJobsThatWereBuiltMissed() {
        String line = ConsoleReporter.cacheLine(List.of(cached("a", CacheStatus.HIT, null),
                cached("b", CacheStatus.STORED, MissReason.NO_ENTRY),
                cached("c", CacheStatus.STORED, MissReason.NO_ENTRY),
                cached("d", CacheStatus.MISS, MissReason.READ_SET_CHANGED),
                cached("e", CacheStatus.REJECTED, MissReason.REJECTED),
                job("f", Outcome.SUCCEEDED, null, List.of()).withCache(CacheResult.uncacheable("no inputs"))));
        assertThat(line).isEqualTo("cache: 1 restored, 2 stored, 1 miss, 1 rejected, 1 uncacheable; hit rate 20 %;"
                + " built because: 2 no entry, 1 read set changed, 1 rejected");
        assertThat(ConsoleReporter.cacheLine(List.of(cached("a", CacheStatus.HIT, null))))
                .as("nothing missed, nothing said").isEqualTo("cache: 1 restored, 0 stored, 0 miss, 0 rejected,"
                        + " 0 uncacheable; hit rate 100 %");
    }

    @Test
    void offATerminalEveryFinishedJobIsOneLine() {
        ConsoleReporter console = reporter(2, ConsoleStyle.of(false, Map.of(), Verbosity.NORMAL), 0);
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
        ConsoleReporter console = reporter(3, ConsoleStyle.of(true, Map.of(), Verbosity.NORMAL), 60);
        // each step drained before the next: a console only ever draws the latest status line
        console.started("alpha", "w1", 1);
        console.phase("alpha", Phase.CONFIGURE);
        printed();
        console.started("beta", "w2", 1);
        printed();
        console.finished(job("alpha", Outcome.SUCCEEDED, null, List.of()));
        printed();
        console.finished(job("beta", Outcome.TIMED_OUT, "timed out in the build phase", List.of()));
        String text = printed();
        assertThat(text).contains("\r\033[K[0/3] running: alpha (configure), beta (starting)")
                .contains("\r\033[K[1/3] running: beta (starting)")
                .contains("\r\033[K[2/3] beta \033[31mtimed_out\033[0m on w1")
                .doesNotContain("alpha \033[32msucceeded");
    }

    @Test
    void theStatusLineFitsTheTerminal() {
        ConsoleReporter console = reporter(9, ConsoleStyle.of(true, Map.of(), Verbosity.NORMAL), 50);
        for (String id : List.of("first_kernel", "second_kernel", "third_kernel", "fourth_kernel")) {
            console.started(id, "w1", 1);
        }
        String last = printed().substring(printed().lastIndexOf("\r\033[K") + 4);
        assertThat(last).isEqualTo("[0/9] running: first_kernel (starting) +3");
        assertThat(last.length()).isLessThan(50);
        ConsoleReporter narrow = reporter(9, ConsoleStyle.of(true, Map.of(), Verbosity.NORMAL), 30);
        printed();
        narrow.started("first_kernel", "w1", 1);
        narrow.started("second_kernel", "w1", 1);
        String cut = printed().substring(printed().lastIndexOf("\r\033[K") + 4);
        assertThat(cut).isEqualTo("[0/9] running: first_kernel (").hasSize(29);
    }

    @Test
    void noColorTurnsColourOffAndQuietPrintsOnlyProblems() {
        ConsoleReporter console = reporter(2, ConsoleStyle.of(true, Map.of("NO_COLOR", "1"), Verbosity.QUIET), 80);
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
        ConsoleReporter console = reporter(1, ConsoleStyle.of(false, Map.of(), Verbosity.VERBOSE), 0);
        console.accept(WorkerEvent.started("w1", 42L, 0, 0, null));
        console.started("a", "w1", 2);
        console.phase("a", Phase.BUILD);
        console.accept(WorkerEvent.died("w1", 42L, 9, WorkerFailure.HANG, "hung: no heartbeat for 10000 ms"));
        assertThat(printed()).contains("    worker w1 started (pid 42)\n")
                .contains("[0/1] start a on w1 (attempt 2)\n")
                .contains("    a: build\n")
                .contains("    worker w1 died (pid 42): hung: no heartbeat for 10000 ms\n");
    }

    /** An output whose reader does not read until it is told to: every write blocks until then. */
    private static final class StalledReader extends OutputStream {
        final CountDownLatch reading = new CountDownLatch(1);
        final ByteArrayOutputStream received = new ByteArrayOutputStream();

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            try {
                reading.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException();
            }
            synchronized (received) {
                received.write(b, off, len);
            }
        }

        String text() {
            synchronized (received) {
                return received.toString(StandardCharsets.UTF_8);
            }
        }
    }

    @Test
    void aReaderThatDoesNotReadNeverStallsTheBuildAndLosesNoFinishedJob() {
        StalledReader reader = new StalledReader();
        PrintStream stalled = new PrintStream(reader, true, StandardCharsets.UTF_8);
        ConsoleReporter console = new ConsoleReporter(ConsoleOutput.start(stalled, "stalled"), 2000,
                ConsoleStyle.of(false, Map.of(), Verbosity.VERBOSE), 0);
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            for (int i = 0; i < 2000; i++) {
                String id = "job" + i;
                console.started(id, "w1", 1);
                for (int p = 0; p < 5; p++) {
                    console.phase(id, p % 2 == 0 ? Phase.CONFIGURE : Phase.BUILD);
                }
                console.accept(WorkerEvent.started("w" + i, 42L, 0, 0, null));
                console.finished(job(id, i == 7 ? Outcome.FAILED : Outcome.SUCCEEDED, "no", List.of()));
            }
        });
        reader.reading.countDown();
        console.summary(List.of(), "target: cuda 90", "/r.json");
        String text = reader.text();
        for (int i = 0; i < 2000; i++) {
            assertThat(text).contains("] job" + i + (i == 7 ? " failed" : " succeeded") + " on w1");
        }
        assertThat(text).containsPattern("archpool: \\d+ progress lines not shown: the console's reader was too slow"
                + " \\(the report has every job\\)\n");
        assertThat(text.split("not shown", -1)).hasSize(2);
        assertThat(text).endsWith("0 of 0 jobs succeeded. Report: /r.json\n");
    }

    /** Repeated: when the writer thread takes its first batch varies from run to run, and no timing may fail it. */
    @RepeatedTest(200)
    void finishedJobLinesWaitInBoundedMemory() {
        StalledReader reader = new StalledReader();
        PrintStream stalled = new PrintStream(reader, true, StandardCharsets.UTF_8);
        ConsoleReporter console = new ConsoleReporter(ConsoleOutput.start(stalled, "stalled", 1000), 100,
                ConsoleStyle.of(false, Map.of(), Verbosity.NORMAL), 0);
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            for (int i = 0; i < 100; i++) {
                console.finished(job("job" + i, Outcome.SUCCEEDED, null, List.of()));
            }
        });
        reader.reading.countDown();
        console.summary(List.of(), "target: cuda 90", "/r.json");
        String text = reader.text();
        assertThat(text).contains("[1/100] job0 succeeded");
        // which lines are dropped depends on when the writer took its first batch; that none is lost untold does not
        Matcher notice = Pattern.compile("archpool: (\\d+) lines about finished jobs"
                + " not shown: the console's reader was too slow \\(the report has every job\\)").matcher(text);
        assertThat(notice.find()).as(text).isTrue();
        int shown = text.split("\\] job\\d+ succeeded", -1).length - 1;
        assertThat(Integer.parseInt(notice.group(1))).isPositive().isEqualTo(100 - shown);
        // at most the limit waits, and at most the limit is being written: memory stays bounded
        assertThat(text.length()).isLessThan(2 * 1000 + 400);
    }

    @Test
    void whatAJobWroteCannotDriveTheTerminal() {
        ConsoleReporter console = reporter(1, ConsoleStyle.of(true, Map.of(), Verbosity.VERBOSE), 80);
        String hostile = "ok\033]0;owned\007 \033[2J\rover\u009b31m \u202eevil\tkept ünïcödé 😀";
        JobOutcome failed = new JobOutcome("a", "command", Outcome.FAILED, 1, null, "w1", 1, 0, 100, 0, 0, 5, 0, 105,
                List.of(), "/logs/a.log", "first\r\n" + hostile + "\n", "step said " + hostile,
                List.of(new Artifact("/b/a.so", List.of("sm_90\033[31m"))), List.of(), List.of("warn " + hostile));
        console.accept(WorkerEvent.died("w1", 42L, 9, WorkerFailure.HANG, "stderr: " + hostile));
        console.finished(failed);
        console.summary(List.of(failed), "target: cuda 90", "/r.json");
        String text = printed();
        String escaped = "ok\\u001b]0;owned\\u0007 \\u001b[2J\\rover\\u009b31m \\u202eevil\tkept ünïcödé 😀";
        assertThat(text).contains("    | first\n    | " + escaped + "\n")
                .contains(": step said " + escaped + "\n")
                .contains("    warning: warn " + escaped + "\n")
                .contains("died (pid 42): stderr: " + escaped + "\n")
                .contains("sm_90\\u001b[31m")
                .doesNotContain("\007").doesNotContain("\u009b").doesNotContain("\u202e")
                .doesNotContain("\033]").doesNotContain("\033[2J").doesNotContain("\033[31mtimed");
        // what remains raw is the console's own: the status line's clear and the outcome's colour
        assertThat(text.replace("\r\033[K", "").replaceAll("\033\\[(0|3[123])m", "")).doesNotContain("\033")
                .doesNotContain("\r");
    }
}
