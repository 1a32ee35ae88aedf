package org.archpool.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.Cancel;
import org.archpool.protocol.Hello;
import org.archpool.protocol.Message;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;
import org.archpool.protocol.Progress;
import org.archpool.protocol.Shutdown;
import org.archpool.protocol.codec.MessageReader;
import org.archpool.protocol.codec.MessageWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The worker's protocol loop over in-memory pipes, with real processes for the jobs. */
class WorkerLoopTest {

    @TempDir
    Path dir;

    private final ExecutorService jobs = Executors.newSingleThreadExecutor();
    private PipedOutputStream toWorker;
    private MessageWriter coordinator;
    private MessageReader fromWorker;
    private WorkerLoop loop;
    private Thread readerThread;

    @BeforeEach
    void start() throws IOException {
        PipedInputStream workerIn = new PipedInputStream(1 << 16);
        toWorker = new PipedOutputStream(workerIn);
        PipedInputStream coordinatorIn = new PipedInputStream(1 << 16);
        PipedOutputStream workerOut = new PipedOutputStream(coordinatorIn);
        coordinator = new MessageWriter(toWorker);
        fromWorker = new MessageReader(coordinatorIn);
        loop = new WorkerLoop(new MessageReader(workerIn), new MessageWriter(workerOut), JobRunner.standard(), jobs);
        readerThread = new Thread(() -> loop.readLoop(new Hello(Message.PROTOCOL_VERSION, "t1", 1, "h", "17")));
        readerThread.start();
    }

    @AfterEach
    void stop() throws Exception {
        toWorker.close();
        readerThread.join(5000);
        jobs.shutdownNow();
        jobs.awaitTermination(5, TimeUnit.SECONDS);
    }

    private BuildRequest command(String id, String script) {
        return TestRequests.command(id, "job-" + id, dir, 0, List.of("sh", "-c", script));
    }

    private BuildResult resultOf(String requestId) throws Exception {
        while (true) {
            Message m = fromWorker.read();
            if (m instanceof BuildResult r) {
                assertThat(r.requestId()).isEqualTo(requestId);
                return r;
            }
            assertThat(m).isInstanceOf(Progress.class);
        }
    }

    @Test
    void saysHelloFirstThenAnswersEachRequestOnce() throws Exception {
        assertThat(fromWorker.read()).isInstanceOf(Hello.class);
        coordinator.write(command("r1", "echo compiled for $CUDAARCHS"));
        assertThat(fromWorker.read()).isEqualTo(new Progress("r1", Phase.COMMAND));
        BuildResult ok = resultOf("r1");
        assertThat(ok.outcome()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(ok.exitCode()).isZero();
        assertThat(ok.phases()).extracting(p -> p.name()).containsExactly(Phase.COMMAND, Phase.INSPECT);
        assertThat(ok.phases().get(1).exitCode()).as("no process runs to inspect").isNull();
        assertThat(java.nio.file.Files.readString(Path.of(ok.logPath()))).contains("compiled for 90");

        coordinator.write(command("r2", "echo 'error: it broke' >&2; exit 4"));
        BuildResult failed = resultOf("r2");
        assertThat(failed.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(failed.exitCode()).isEqualTo(4);
        assertThat(failed.logTail()).contains("error: it broke");
        assertThat(failed.message()).contains("exited with status 4");

        coordinator.write(new Shutdown());
        assertThat(loop.exit().get(5, TimeUnit.SECONDS)).isEqualTo(WorkerLoop.Exit.SHUTDOWN);
    }

    @Test
    void cancelStopsTheRunningJob() throws Exception {
        assertThat(fromWorker.read()).isInstanceOf(Hello.class);
        coordinator.write(command("slow", "sleep 300"));
        assertThat(fromWorker.read()).isEqualTo(new Progress("slow", Phase.COMMAND));
        long start = System.nanoTime();
        coordinator.write(new Cancel("slow"));
        BuildResult r = resultOf("slow");
        assertThat(r.outcome()).isEqualTo(Outcome.CANCELLED);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void aSecondRequestWhileBusyIsRefusedNotQueued() throws Exception {
        assertThat(fromWorker.read()).isInstanceOf(Hello.class);
        coordinator.write(command("first", "sleep 300"));
        assertThat(fromWorker.read()).isEqualTo(new Progress("first", Phase.COMMAND));
        coordinator.write(command("second", "true"));
        BuildResult busy = resultOf("second");
        assertThat(busy.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(busy.message()).contains("busy with request first");
        coordinator.write(new Cancel("first"));
        assertThat(resultOf("first").outcome()).isEqualTo(Outcome.CANCELLED);
    }

    @Test
    void endOfInputEndsTheLoop() throws Exception {
        assertThat(fromWorker.read()).isInstanceOf(Hello.class);
        toWorker.close();
        assertThat(loop.exit().get(5, TimeUnit.SECONDS)).isEqualTo(WorkerLoop.Exit.END_OF_INPUT);
    }
}
