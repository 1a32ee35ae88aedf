package org.archpool.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.Cancel;
import org.archpool.protocol.Outcome;
import org.archpool.worker.exec.CancellationToken;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job's log under a hostile environment, with real processes: a disk that fills, a writer faster than any
 * disk, a link planted where the log goes, and a reader that follows the log while the job runs.
 */
@Tag("process")
class JobLogFaultTest {

    @TempDir
    Path dir;

    private final JobRunner runner = JobRunner.standard();

    private BuildRequest shell(String id, Path log, Long maxLogBytes, String script) {
        BuildRequest r = TestRequests.command(id, id, dir, 0, List.of("sh", "-c", script));
        return new BuildRequest(r.requestId(), r.job(), r.target(), r.steps(), r.timeoutMs(), log.toString(),
                maxLogBytes);
    }

    private BuildResult run(BuildRequest request) {
        return assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> runner.run(request, phase -> { }, new CancellationToken()));
    }

    private static boolean anyDescendantRuns(String program) {
        return ProcessHandle.current().descendants()
                .anyMatch(p -> p.info().command().map(c -> c.endsWith("/" + program)).orElse(false));
    }

    @Test
    void aFullDiskFailsTheJobWithTheReasonKillsItsProcessesAndTheNextJobRuns() throws Exception {
        try (SmallTmpfs disk = SmallTmpfs.mount(dir.resolve("logs"), "1m")) {
            BuildResult r = run(shell("flood", disk.path().resolve("flood.log"), null, "yes flooding the log"));
            assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
            assertThat(r.message()).isEqualTo("cannot write the job log " + disk.path().resolve("flood.log")
                    + ": No space left on device; the job's processes were killed");
            assertThat(r.logTail()).contains("flooding the log");
            await().atMost(Duration.ofSeconds(5)).until(() -> !anyDescendantRuns("yes"));

            Files.delete(disk.path().resolve("flood.log"));
            BuildResult next = run(shell("next", disk.path().resolve("next.log"), null, "echo fine"));
            assertThat(next.outcome()).isEqualTo(Outcome.SUCCEEDED);
        }
    }

    @Test
    void aFastWriterIsCutToTheCapKeepingTheHeadAndTheTail() throws Exception {
        Path log = dir.resolve("fast.log");
        long cap = 1 << 20;
        BuildResult r = run(shell("fast", log, cap,
                "echo first line; yes 0123456789abcdef | head -c 50000000; echo; echo last line"));
        assertThat(r.outcome()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(Files.size(log)).isEqualTo(cap);
        String text = Files.readString(log);
        assertThat(text).startsWith("# archpool job fast").contains("\n$ sh -c echo first line;")
                .contains("\nfirst line\n").contains(" bytes of output cut here (bytes 524288 to ")
                .contains("raise it with --max-log-size").endsWith("\nlast line\n");
    }

    @Test
    void aLinkPlantedAtTheLogPathIsNotFollowedAndTheJobFailsSayingSo() throws Exception {
        Path victim = dir.resolve("victim.txt");
        Files.writeString(victim, "precious");
        Path log = dir.resolve("planted.log");
        Files.createSymbolicLink(log, victim);
        BuildResult r = run(shell("planted", log, null, "echo overwritten"));
        assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(r.message()).startsWith("cannot create the job log " + log + ": the job log " + log
                + " is a symbolic link, not a regular file");
        assertThat(Files.readString(victim)).isEqualTo("precious");
    }

    @Test
    void theLogCanBeFollowedWhileTheStepRuns() throws Exception {
        try (PipedWorker worker = PipedWorker.start(dir)) {
            worker.readHello();
            worker.startCommand("follow", "echo first line; exec sleep 60");
            Path log = Path.of(worker.command("follow", "").logPath());
            await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(log) && contents(log).contains(
                    "\nfirst line\n"));
            worker.send(new Cancel("follow"));
            assertThat(worker.resultOf("follow").outcome()).isEqualTo(Outcome.CANCELLED);
        }
    }

    private static String contents(Path file) throws IOException {
        return Files.readString(file);
    }
}
