package org.archpool.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.EOFException;
import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.file.Path;
import java.time.Clock;
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
import org.archpool.protocol.Phase;
import org.archpool.protocol.Progress;
import org.archpool.protocol.Shutdown;
import org.archpool.protocol.codec.MessageReader;
import org.archpool.protocol.codec.MessageWriter;
import org.archpool.protocol.codec.ProtocolException;

/**
 * A worker's protocol loop in this JVM, talking to the test over in-memory pipes as it talks to the coordinator
 * over its stdin and stdout; its jobs run as real processes through {@link JobRunner#standard()}. The test plays
 * the coordinator: it {@link #send sends} requests and {@link #read reads} what the worker answers. Closing it
 * ends the worker's input and stops its threads.
 */
final class PipedWorker implements AutoCloseable {

    private static final int PIPE_BUFFER = 1 << 16;

    private final Path dir;
    private final ExecutorService jobs = Executors.newSingleThreadExecutor();
    private final PipedOutputStream toWorker;
    private final PipedOutputStream workerOut;
    private final MessageWriter coordinator;
    private final MessageReader fromWorker;
    private final WorkerLoop loop;
    private final Thread readerThread;

    private PipedWorker(Path dir, Termination termination) throws IOException {
        this(dir, termination, JobRunner.standard(), Clock.systemUTC(), WorkerLoop.DEFAULT_STALL_LIMIT);
    }

    private PipedWorker(Path dir, Termination termination, RequestRunner runner, Clock clock, Duration stallLimit)
            throws IOException {
        this.dir = dir;
        PipedInputStream workerIn = new PipedInputStream(PIPE_BUFFER);
        toWorker = new PipedOutputStream(workerIn);
        PipedInputStream coordinatorIn = new PipedInputStream(PIPE_BUFFER);
        workerOut = new PipedOutputStream(coordinatorIn);
        coordinator = new MessageWriter(toWorker);
        fromWorker = new MessageReader(coordinatorIn);
        loop = new WorkerLoop(new MessageReader(workerIn), new MessageWriter(workerOut), runner, jobs,
                WorkerLog.stderr(), termination, clock, stallLimit);
        readerThread = new Thread(() -> loop.readLoop(new Hello(Message.PROTOCOL_VERSION, "t1", 1, "h", "17")));
        readerThread.start();
    }

    /** A worker whose jobs run in {@code dir} and log there; it is never terminated from outside. */
    static PipedWorker start(Path dir) throws IOException {
        return start(dir, new Termination());
    }

    /** A worker that is terminated from outside when the test calls {@code termination.begin()}. */
    static PipedWorker start(Path dir, Termination termination) throws IOException {
        return new PipedWorker(dir, termination);
    }

    /**
     * A worker whose jobs are run by {@code runner}, whose job threads' signs of life are timed by {@code clock},
     * and whose heartbeats the test sends ({@link #heartbeat()}).
     */
    static PipedWorker start(Path dir, RequestRunner runner, Clock clock, Duration stallLimit) throws IOException {
        return new PipedWorker(dir, new Termination(), runner, clock, stallLimit);
    }

    /** Sends a heartbeat now, as the worker's heartbeat thread does every second. */
    void heartbeat() {
        loop.heartbeat();
    }

    /** The request for a command job {@code job-<id>} that runs {@code sh -c script}. */
    BuildRequest command(String id, String script) {
        return TestRequests.command(id, "job-" + id, dir, 0, List.of("sh", "-c", script));
    }

    /** Sends {@link #command(String, String)}, as the coordinator would. */
    void sendCommand(String id, String script) throws IOException {
        send(command(id, script));
    }

    /** Sends {@link #command(String, String)} and reads the progress line that says the job started. */
    void startCommand(String id, String script) throws IOException, ProtocolException {
        sendCommand(id, script);
        assertThat(read()).isEqualTo(new Progress(id, Phase.COMMAND));
    }

    /** Reads the worker's first message, which must be its hello. */
    void readHello() throws IOException, ProtocolException {
        assertThat(read()).isInstanceOf(Hello.class);
    }

    /** Sends a message to the worker, as the coordinator would. */
    void send(Message message) throws IOException {
        coordinator.write(message);
    }

    /** The next message the worker sent. */
    Message read() throws IOException, ProtocolException {
        return fromWorker.read();
    }

    /** Reads past the request's progress lines to its result, and makes sure the result is the request's. */
    BuildResult resultOf(String requestId) throws IOException, ProtocolException {
        while (true) {
            Message m = fromWorker.read();
            if (m instanceof BuildResult r) {
                assertThat(r.requestId()).isEqualTo(requestId);
                return r;
            }
            assertThat(m).isInstanceOf(Progress.class);
        }
    }

    /** Shuts the loop down once its job is over, and returns every message the worker sent that was not read. */
    List<Message> shutDownAndReadTheRest() throws Exception {
        await().atMost(Duration.ofSeconds(10)).until(() -> !loop.busy());
        send(new Shutdown());
        assertThat(exit()).isEqualTo(WorkerLoop.Exit.SHUTDOWN);
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

    /** Ends the worker's input, as a coordinator that exits does. */
    void closeInput() throws IOException {
        toWorker.close();
    }

    /** Why the loop ended, waiting up to 10 s for it to end. */
    WorkerLoop.Exit exit() throws Exception {
        return loop.exit().get(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws IOException {
        toWorker.close();
        try {
            readerThread.join(5000);
            jobs.shutdownNow();
            jobs.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            jobs.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
