package org.archpool.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.EOFException;
import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
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

/**
 * A worker being terminated from outside (Slurm cancelling its step signals the job's processes too) withholds
 * the result of a job that the signal ended, so that the coordinator retries it rather than reporting it failed;
 * without a termination, such a job is reported as it ended.
 */
class WorkerTerminationTest {

    @TempDir
    Path dir;

    private final ExecutorService jobs = Executors.newSingleThreadExecutor();
    private final Termination termination = new Termination();
    private PipedOutputStream toWorker;
    private PipedOutputStream workerOut;
    private MessageWriter coordinator;
    private MessageReader fromWorker;
    private WorkerLoop loop;
    private Thread readerThread;

    @BeforeEach
    void start() throws IOException {
        PipedInputStream workerIn = new PipedInputStream(1 << 16);
        toWorker = new PipedOutputStream(workerIn);
        PipedInputStream coordinatorIn = new PipedInputStream(1 << 16);
        workerOut = new PipedOutputStream(coordinatorIn);
        coordinator = new MessageWriter(toWorker);
        fromWorker = new MessageReader(coordinatorIn);
        loop = new WorkerLoop(new MessageReader(workerIn), new MessageWriter(workerOut), JobRunner.standard(), jobs,
                WorkerLog.stderr(), termination);
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

    /** Shuts the loop down once its job is over, and returns every message the worker sent. */
    private List<Message> everythingSent() throws Exception {
        await().atMost(Duration.ofSeconds(10)).until(() -> !loop.busy());
        coordinator.write(new Shutdown());
        assertThat(loop.exit().get(10, TimeUnit.SECONDS)).isEqualTo(WorkerLoop.Exit.SHUTDOWN);
                workerOut.close();
        List<Message> sent = new ArrayList<>();
        try {
            while (true) {
                sent.add(fromWorker.read());
            }
        } catch (EOFException end) {
            return sent;
        }
    }

    @Test
    void aJobEndedBySigtermWhileTheWorkerIsTerminatedGetsNoResult() throws Exception {
        assertThat(fromWorker.read()).isInstanceOf(Hello.class);
        coordinator.write(command("r1", "sleep 0.2; kill -TERM $$"));
        assertThat(fromWorker.read()).isEqualTo(new Progress("r1", Phase.COMMAND));
        termination.begin(); // what the shutdown hook does when the same SIGTERM reaches the worker's JVM
        assertThat(everythingSent()).noneMatch(m -> m instanceof BuildResult);
    }

    @Test
    void aTerminationThatShowsShortlyAfterTheJobsEndStillWithholdsItsResult() throws Exception {
        assertThat(fromWorker.read()).isInstanceOf(Hello.class);
        coordinator.write(command("r1", "kill -TERM $$"));
        assertThat(fromWorker.read()).isEqualTo(new Progress("r1", Phase.COMMAND));
        Thread.sleep(WorkerLoop.SIGNAL_SETTLE.toMillis() / 5);
        termination.begin();
        assertThat(everythingSent()).noneMatch(m -> m instanceof BuildResult);
    }

    @Test
    void withoutATerminationAJobEndedBySigtermIsReportedAsItEnded() throws Exception {
        assertThat(fromWorker.read()).isInstanceOf(Hello.class);
        coordinator.write(command("r1", "kill -TERM $$"));
        assertThat(fromWorker.read()).isEqualTo(new Progress("r1", Phase.COMMAND));
        List<Message> sent = everythingSent();
        assertThat(sent).filteredOn(m -> m instanceof BuildResult).singleElement()
                .satisfies(m -> {
                    BuildResult r = (BuildResult) m;
                    assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
                    assertThat(r.signal()).isEqualTo("SIGTERM");
                });
    }

    @Test
    void aJobThatEndsNormallyIsReportedEvenDuringATermination() throws Exception {
        assertThat(fromWorker.read()).isInstanceOf(Hello.class);
        termination.begin();
        coordinator.write(command("r1", "sleep 0.1; exit 3"));
        assertThat(fromWorker.read()).isEqualTo(new Progress("r1", Phase.COMMAND));
        assertThat(everythingSent()).filteredOn(m -> m instanceof BuildResult).singleElement()
                .satisfies(m -> assertThat(((BuildResult) m).exitCode()).isEqualTo(3));
    }
}
