package org.archpool.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.Cancel;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;
import org.archpool.protocol.Shutdown;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The worker's protocol loop over in-memory pipes, with real processes for the jobs. */
@Tag("process")
class WorkerLoopTest {

    @TempDir
    Path dir;

    @Test
    void saysHelloFirstThenAnswersEachRequestOnce() throws Exception {
        try (PipedWorker worker = PipedWorker.start(dir)) {
            worker.readHello();
            worker.startCommand("r1", "echo compiled for $CUDAARCHS");
            BuildResult ok = worker.resultOf("r1");
            assertThat(ok.outcome()).isEqualTo(Outcome.SUCCEEDED);
            assertThat(ok.exitCode()).isZero();
            assertThat(ok.phases()).extracting(p -> p.name()).containsExactly(Phase.COMMAND, Phase.INSPECT);
            assertThat(ok.phases().get(1).exitCode()).as("no process runs to inspect").isNull();
            assertThat(Files.readString(Path.of(ok.logPath()))).contains("compiled for 90");

            worker.sendCommand("r2", "echo 'error: it broke' >&2; exit 4");
            BuildResult failed = worker.resultOf("r2");
            assertThat(failed.outcome()).isEqualTo(Outcome.FAILED);
            assertThat(failed.exitCode()).isEqualTo(4);
            assertThat(failed.logTail()).contains("error: it broke");
            assertThat(failed.message()).contains("exited with status 4");

            worker.send(new Shutdown());
            assertThat(worker.exit()).isEqualTo(WorkerLoop.Exit.SHUTDOWN);
        }
    }

    @Test
    void cancelStopsTheRunningJob() throws Exception {
        try (PipedWorker worker = PipedWorker.start(dir)) {
            worker.readHello();
            worker.startCommand("slow", "sleep 300");
            long start = System.nanoTime();
            worker.send(new Cancel("slow"));
            BuildResult r = worker.resultOf("slow");
            assertThat(r.outcome()).isEqualTo(Outcome.CANCELLED);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        }
    }

    @Test
    void aSecondRequestWhileBusyIsRefusedNotQueued() throws Exception {
        try (PipedWorker worker = PipedWorker.start(dir)) {
            worker.readHello();
            worker.startCommand("first", "sleep 300");
            worker.sendCommand("second", "true");
            BuildResult busy = worker.resultOf("second");
            assertThat(busy.outcome()).isEqualTo(Outcome.FAILED);
            assertThat(busy.message()).contains("busy with request first");
            worker.send(new Cancel("first"));
            assertThat(worker.resultOf("first").outcome()).isEqualTo(Outcome.CANCELLED);
        }
    }

    @Test
    void endOfInputEndsTheLoop() throws Exception {
        try (PipedWorker worker = PipedWorker.start(dir)) {
            worker.readHello();
            worker.closeInput();
            assertThat(worker.exit()).isEqualTo(WorkerLoop.Exit.END_OF_INPUT);
        }
    }
}
