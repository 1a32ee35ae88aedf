package org.archpool.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;
import org.archpool.protocol.Progress;
import org.archpool.protocol.Step;
import org.archpool.worker.inspect.SparseElf;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real worker JVMs in a hostile environment: a file size limit on the worker, a sparse file that claims
 * gigabytes under a small heap, and SIGQUIT to a busy worker. Every job gets its one result, and the worker
 * runs the next job.
 */
@Tag("process")
class WorkerJvmFaultTest {

    @TempDir
    Path dir;

    private BuildRequest shell(String id, String script, List<String> artifacts, Long maxLogBytes) {
        return shell(id, dir, script, artifacts, maxLogBytes);
    }

    private BuildRequest shell(String id, Path cwd, String script, List<String> artifacts, Long maxLogBytes) {
        List<String> argv = List.of("sh", "-c", script);
        CommandJob job = new CommandJob(id, argv, cwd.toString(), null, null, artifacts);
        return new BuildRequest(id, job, TestRequests.TARGET, List.of(new Step(Phase.COMMAND, argv, cwd.toString(),
                Map.of())), 0, dir.resolve(id + ".log").toString(), maxLogBytes);
    }

    private static BuildResult within30s(LaunchedWorker worker, String id) {
        return assertTimeoutPreemptively(Duration.ofSeconds(30), () -> worker.resultOf(id));
    }

    @Test
    void aFileSizeLimitFailsTheJobWithTheReasonAndTheWorkerRunsTheNextJob() throws Exception {
        try (LaunchedWorker worker = LaunchedWorker.start(dir, "ulimit -f 256;", "-Xmx64m")) {
            worker.send(shell("flood", "yes flooding the log", null, null));
            BuildResult flood = within30s(worker, "flood");
            assertThat(flood.outcome()).isEqualTo(Outcome.FAILED);
            assertThat(flood.message()).isEqualTo("cannot write the job log " + dir.resolve("flood.log")
                    + ": File too large; the job's processes were killed");
            assertThat(Files.size(dir.resolve("flood.log"))).isEqualTo(256 << 10);
            worker.send(shell("next", "echo fine", null, null));
            assertThat(within30s(worker, "next").outcome()).isEqualTo(Outcome.SUCCEEDED);
        }
    }

    @Test
    void aSparseElfClaimingGigabytesUnderASmallHeapFailsItsJobNamingTheFile() throws Exception {
        // in a folder of its own: a command job's default artifacts are the files written in its cwd since it began
        Path cwd = Files.createDirectory(dir.resolve("sparse"));
        Path sparse = SparseElf.write(cwd.resolve("libsparse.so"), 30_000_000, 64, 64 + 30_000_000L * 64);
        try (LaunchedWorker worker = LaunchedWorker.start(dir, "", "-Xmx32m")) {
            worker.send(shell("sparse", cwd, "true", List.of("libsparse.so"), null));
            BuildResult r = within30s(worker, "sparse");
            assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
            assertThat(r.message()).startsWith("cannot inspect the artifact " + sparse + ": too large to inspect: ")
                    .contains("claims 30000000 sections");
            assertThat(r.phases()).extracting(p -> p.name()).containsExactly(Phase.COMMAND, Phase.INSPECT);
            // a folder of its own too: the sparse file, written within the same second, would be one of its artifacts
            worker.send(shell("next", Files.createDirectory(dir.resolve("next")), "echo fine", null, null));
            BuildResult next = within30s(worker, "next");
            assertThat(next.outcome()).as(next.message()).isEqualTo(Outcome.SUCCEEDED);
        }
    }

    @Test
    void aThreadDumpGoesToStderrAndTheBusyWorkersJobStillSucceeds() throws Exception {
        try (LaunchedWorker worker = LaunchedWorker.start(dir, "", "-Xmx64m")) {
            worker.send(shell("busy", "sleep 1; echo done", null, null));
            assertThat(worker.read()).isEqualTo(new Progress("busy", Phase.COMMAND));
            worker.signal("QUIT");
            BuildResult r = within30s(worker, "busy"); // a thread dump on stdout would be a protocol error here
            assertThat(r.outcome()).isEqualTo(Outcome.SUCCEEDED);
            assertThat(worker.stderr()).contains("Full thread dump").contains("\"archpool-job\"");
        }
    }

    @Test
    void aFastWriterUnderTheCapLeavesALogOfTheCapsSize() throws Exception {
        try (LaunchedWorker worker = LaunchedWorker.start(dir, "", "-Xmx64m")) {
            worker.send(shell("fast", "yes | head -c 200000000", null, 1L << 20));
            BuildResult r = within30s(worker, "fast");
            assertThat(r.outcome()).isEqualTo(Outcome.SUCCEEDED);
            assertThat(Files.size(dir.resolve("fast.log"))).isEqualTo(1 << 20);
            assertThat(Files.readString(dir.resolve("fast.log"))).contains(" bytes of output cut here");
        }
    }
}
