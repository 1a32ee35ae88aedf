package org.archpool.orchestrator.pool;

import java.io.EOFException;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.Cancel;
import org.archpool.protocol.Hello;
import org.archpool.protocol.Message;
import org.archpool.protocol.Phase;
import org.archpool.protocol.Progress;
import org.archpool.protocol.Shutdown;
import org.archpool.protocol.codec.MessageReader;
import org.archpool.protocol.codec.MessageWriter;
import org.archpool.protocol.codec.ProtocolException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's handle on one worker process: writes requests to its stdin, and on a reader thread of
 * its own matches {@code progress} and {@code result} lines to the request in flight. Any death, end of
 * output or protocol error fails that request with {@link WorkerFailedException} and kills the worker's tree.
 */
final class ProcessWorker implements Worker {

    private static final Logger LOG = LoggerFactory.getLogger(ProcessWorker.class);
    private static final long EXIT_WAIT_MS = 2000;

    private record Pending(String requestId, CompletableFuture<BuildResult> result, Consumer<Phase> progress) {
    }

    private final String id;
    private final Process process;
    private final ProcessControl control;
    private final ScheduledExecutorService watchdog;
    private final AwakeClock clock;
    private final long silenceLimitNanos;
    /** When the worker last said something, on {@link #clock}: time the coordinator was stopped is not silence. */
    private volatile long lastHeardNanos;
    private ScheduledFuture<?> silenceCheck;
    private final MessageReader in;
    private final MessageWriter out;
    private final CompletableFuture<Hello> hello = new CompletableFuture<>();
    private final Object lock = new Object();
    private Pending pending;
    private String lastFinished;
    private String failure;
    /** The category of {@link #failure}; set with it. */
    private WorkerFailure failureCause;

    /**
     * @param control      how the process is killed, and what its host said when it ended
     * @param watchdog     runs the check that declares a busy worker hung after {@code silenceLimit} without
     *                     a line from it
     * @param clock        measures that silence, without the time the coordinator was stopped
     */
    ProcessWorker(String id, Process process, ProcessControl control, MessageReader in, MessageWriter out,
                  ScheduledExecutorService watchdog, AwakeClock clock, Duration silenceLimit) {
        this.id = id;
        this.process = process;
        this.control = control;
        this.in = in;
        this.out = out;
        this.watchdog = watchdog;
        this.clock = clock;
        this.lastHeardNanos = clock.nanos();
        this.silenceLimitNanos = silenceLimit.toNanos();
    }

    /** Starts the reader thread; {@link #hello()} completes when the worker introduces itself. */
    void startReading() {
        Thread reader = new Thread(this::readLoop, "archpool-reader-" + id);
        reader.setDaemon(true);
        reader.start();
    }

    CompletableFuture<Hello> hello() {
        return hello;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public long pid() {
        return process.pid();
    }

    @Override
    public String host() {
        Hello h = hello.isDone() && !hello.isCompletedExceptionally() ? hello.join() : null;
        return h == null ? null : h.host();
    }

    @Override
    public CompletableFuture<BuildResult> execute(BuildRequest request, Consumer<Phase> progress) {
        CompletableFuture<BuildResult> result = new CompletableFuture<>();
        synchronized (lock) {
            if (failure != null) {
                result.completeExceptionally(new WorkerFailedException(failureCause, failure));
                return result;
            }
            if (pending != null) {
                throw new IllegalStateException("worker " + id + " already runs " + pending.requestId());
            }
            pending = new Pending(request.requestId(), result, progress);
            lastHeardNanos = clock.nanos();
            long period = Math.max(1, silenceLimitNanos / 4);
            silenceCheck = watchdog.scheduleAtFixedRate(this::checkSilence, period, period, TimeUnit.NANOSECONDS);
        }
        try {
            out.write(request);
        } catch (IOException e) {
            fail(WorkerFailure.IO, "cannot send the request to the worker: " + e.getMessage());
        }
        return result;
    }

    @Override
    public void cancel(String requestId) {
        try {
            out.write(new Cancel(requestId));
        } catch (IOException e) {
            fail(WorkerFailure.IO, "cannot send cancel to the worker: " + e.getMessage());
        }
    }

    @Override
    public WorkerState state() {
        synchronized (lock) {
            if (failure != null) {
                return new WorkerState.Dead(failureCause, failure);
            }
            if (!process.isAlive()) {
                return new WorkerState.Dead(WorkerFailure.EXIT, "its process ended");
            }
            if (!hello.isDone()) {
                return WorkerState.STARTING;
            }
            return pending == null ? WorkerState.IDLE : new WorkerState.Busy(pending.requestId());
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                out.write(new Shutdown());
                out.close();
            } catch (IOException e) {
                LOG.debug("worker {} did not take shutdown: {}", id, e.getMessage());
            }
            try {
                if (!process.waitFor(EXIT_WAIT_MS, TimeUnit.MILLISECONDS)) {
                    LOG.warn("worker {} did not exit within {} ms of shutdown; killing it", id, EXIT_WAIT_MS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        control.kill(process);
        fail(WorkerFailure.SHUTDOWN, "worker was shut down");
    }

    private void checkSilence() {
        long silentNanos = clock.nanos() - lastHeardNanos;
        if (current() != null && silentNanos > silenceLimitNanos) {
            fail(WorkerFailure.HANG, "hung: no heartbeat for " + TimeUnit.NANOSECONDS.toMillis(silentNanos) + " ms while running a job"
                    + " (stopped, or stuck outside the job's processes); killed");
        }
    }

    private void readLoop() {
        try {
            while (true) {
                Message message = in.read();
                lastHeardNanos = clock.nanos();
                handle(message);
            }
        } catch (EOFException e) {
            fail(WorkerFailure.EXIT, "worker closed its output; " + exitDescription() + notes());
        } catch (ProtocolException e) {
            fail(WorkerFailure.PROTOCOL, "protocol error: " + e.getMessage());
        } catch (IOException e) {
            fail(WorkerFailure.IO, "cannot read from the worker: " + e.getMessage() + "; " + exitDescription() + notes());
        } catch (RuntimeException e) {
            LOG.error("unexpected failure reading worker {}", id, e);
            fail(WorkerFailure.IO, "unexpected failure reading the worker: " + e);
        }
    }

    private void handle(Message message) {
        if (message instanceof Hello h) {
            if (hello.isDone()) {
                fail(WorkerFailure.PROTOCOL, "protocol error: the worker said hello twice");
            } else if (h.protocolVersion() != Message.PROTOCOL_VERSION) {
                fail(WorkerFailure.PROTOCOL, "the worker speaks protocol version " + h.protocolVersion() + " but this coordinator speaks "
                        + Message.PROTOCOL_VERSION + "; the worker and coordinator come from different archpool releases");
            } else {
                hello.complete(h);
            }
            return;
        }
        if (!hello.isDone()) {
            fail(WorkerFailure.PROTOCOL, "protocol error: the worker's first line was a " + message.getClass().getSimpleName()
                    + ", not hello");
            return;
        }
        if (message instanceof Progress p) {
            Pending current = current();
            if (current != null && current.requestId().equals(p.requestId())) {
                current.progress().accept(p.phase());
            } else if (!p.requestId().equals(finishedRequest())) {
                fail(WorkerFailure.PROTOCOL, "protocol error: progress for request " + p.requestId() + ", which is not the one in flight");
            }
        } else if (message instanceof BuildResult r) {
            Pending current;
            synchronized (lock) {
                current = pending;
                if (current != null && current.requestId().equals(r.requestId())) {
                    pending = null;
                    lastFinished = r.requestId();
                    stopSilenceCheck();
                }
            }
            if (current == null || !current.requestId().equals(r.requestId())) {
                fail(WorkerFailure.PROTOCOL, "protocol error: a result for request " + r.requestId() + ", which is not the one in flight");
            } else {
                current.result().complete(r);
            }
        } else {
            fail(WorkerFailure.PROTOCOL, "protocol error: a worker must not send " + message.getClass().getSimpleName());
        }
    }

    /** Called with {@link #lock} held. */
    private void stopSilenceCheck() {
        if (silenceCheck != null) {
            silenceCheck.cancel(false);
            silenceCheck = null;
        }
    }

    /** The request answered last: a late progress line for it is harmless, not a protocol error. */
    private String finishedRequest() {
        synchronized (lock) {
            return lastFinished;
        }
    }

    private Pending current() {
        synchronized (lock) {
            return pending;
        }
    }

    private void fail(WorkerFailure cause, String reason) {
        Pending toFail;
        synchronized (lock) {
            if (failure != null) {
                return;
            }
            failure = reason;
            failureCause = cause;
            toFail = pending;
            pending = null;
            stopSilenceCheck();
        }
        WorkerFailedException e = new WorkerFailedException(cause,
                "worker " + id + " (pid " + process.pid() + "): " + reason);
        hello.completeExceptionally(e);
        if (toFail != null) {
            toFail.result().completeExceptionally(e);
        }
        control.kill(process);
    }

    /** What the worker's host said of its end, as a clause to append; empty when nothing. */
    private String notes() {
        String notes = control.deathNotes();
        return notes.isEmpty() ? "" : "; " + notes;
    }

    private String exitDescription() {
        try {
            int status = process.onExit().get(EXIT_WAIT_MS, TimeUnit.MILLISECONDS).exitValue();
            return status > 128 ? "it exited with status " + status + " (killed by signal " + (status - 128) + ")"
                    : "it exited with status " + status;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "it was still running";
        } catch (ExecutionException | TimeoutException e) {
            return "it was still running";
        }
    }
}
