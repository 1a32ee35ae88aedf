package org.archpool.worker;

import java.io.EOFException;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.Cancel;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.Hello;
import org.archpool.protocol.Message;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;
import org.archpool.protocol.Progress;
import org.archpool.protocol.Shutdown;
import org.archpool.protocol.codec.MessageReader;
import org.archpool.protocol.codec.MessageWriter;
import org.archpool.protocol.codec.ProtocolException;
import org.archpool.worker.exec.CancellationToken;

/**
 * The worker's side of the protocol: says {@code hello}, then reads requests until {@code shutdown}, end of
 * input, or {@link #stop}. One job runs at a time on the job executor while this loop keeps reading, so a
 * {@code cancel} reaches the running job. Every {@code build} gets exactly one {@code result}, whatever its job
 * thread throws ({@code OutOfMemoryError} included): that is the job's {@code failed} result, with the reason.
 */
public final class WorkerLoop {

    /** Why the loop ended; the worker's exit status. */
    public enum Exit {
        SHUTDOWN(0), END_OF_INPUT(0), PARENT_GONE(0), PROTOCOL_ERROR(2), IO_ERROR(3);

        public final int status;

        Exit(int status) {
            this.status = status;
        }
    }

    private final MessageReader in;
    private final MessageWriter out;
    private final RequestRunner runner;
    private final ExecutorService jobExecutor;
    private final WorkerLog log;
    private final Termination termination;
    private final Clock clock;
    private final Duration stallLimit;
    private final CompletableFuture<Exit> exit = new CompletableFuture<>();
    private final Object lock = new Object();
    private RunningJob running;

    /** What a running job's thread says about its work, and what the heartbeats make of it. */
    private enum Health { WORKING, STALLED, GONE }

    /** The one request running, as its job thread reports on it. */
    private final class RunningJob implements JobActivity {
        final String requestId;
        final CancellationToken token;
        final CompletableFuture<Void> done;
        volatile Phase phase;
        /** The job's thread, once it has taken the request; inside {@link #execute} while {@code inside}. */
        volatile Thread thread;
        volatile boolean inside;
        volatile boolean waitingForStep;
        volatile long lastSign;
        /** Guarded by the loop's lock. */
        boolean stallReported;

        RunningJob(String requestId, CancellationToken token, CompletableFuture<Void> done) {
            this.requestId = requestId;
            this.token = token;
            this.done = done;
            this.lastSign = clock.millis();
        }

        @Override
        public void phase(Phase next) {
            synchronized (lock) {
                phase = next;
                lastSign = clock.millis();
                send(new Progress(requestId, next));
            }
        }

        @Override
        public void beat() {
            lastSign = clock.millis();
        }

        @Override
        public void waitingForStep(boolean waiting) {
            lastSign = clock.millis();
            waitingForStep = waiting;
        }

        Health health(long now) {
            Thread t = thread;
            if (t == null) {
                return Health.WORKING; // just handed to the job executor
            }
            if (!inside || !t.isAlive()) {
                return Health.GONE;
            }
            return waitingForStep || now - lastSign <= stallLimit.toMillis() ? Health.WORKING : Health.STALLED;
        }
    }

    /** How long a job thread that is not waiting for a step may show no sign of life before heartbeats stop. */
    public static final Duration DEFAULT_STALL_LIMIT = Duration.ofSeconds(60);

    /** How long a job that a signal ended waits for this JVM's own termination to show, before it is reported. */
    static final Duration SIGNAL_SETTLE = Duration.ofMillis(500);

    public WorkerLoop(MessageReader in, MessageWriter out, RequestRunner runner, ExecutorService jobExecutor) {
        this(in, out, runner, jobExecutor, WorkerLog.stderr(), new Termination());
    }

    /**
     * @param log         where the worker's own problems are written (its stderr)
     * @param termination set when this JVM is being terminated from outside; results of jobs that the same
     *                    signal ended are then withheld
     */
    public WorkerLoop(MessageReader in, MessageWriter out, RequestRunner runner, ExecutorService jobExecutor,
                      WorkerLog log, Termination termination) {
        this(in, out, runner, jobExecutor, log, termination, Clock.systemUTC(), DEFAULT_STALL_LIMIT);
    }

    /**
     * @param clock      for the job thread's signs of life
     * @param stallLimit how long a job thread that is not waiting for a step's processes may show no sign of life
     *                   (a phase, an artifact read) before heartbeats stop, so that the coordinator declares this
     *                   worker hung and retries the job elsewhere
     */
    public WorkerLoop(MessageReader in, MessageWriter out, RequestRunner runner, ExecutorService jobExecutor,
                      WorkerLog log, Termination termination, Clock clock, Duration stallLimit) {
        this.in = in;
        this.out = out;
        this.runner = runner;
        this.jobExecutor = jobExecutor;
        this.termination = termination;
        this.log = log;
        this.clock = clock;
        this.stallLimit = stallLimit;
    }

    /**
     * Sends a heartbeat now: the running job's current phase again, as a {@code progress} line, so that the
     * coordinator can tell a busy worker from a hung one. Does nothing while idle. A heartbeat says that the job's
     * thread is at work on it: while that thread waits for a step's processes, or has shown a sign of life (a
     * phase, an artifact read) within the stall limit. A thread stuck past it gets no heartbeats, so that the
     * coordinator declares this worker hung and retries the job; a thread that left the job without a result has
     * its failure sent from here. Call it periodically.
     */
    public void heartbeat() {
        RunningJob abandoned = null;
        synchronized (lock) {
            RunningJob job = running;
            if (job == null || job.phase == null) {
                return;
            }
            switch (job.health(clock.millis())) {
                case WORKING -> send(new Progress(job.requestId, job.phase));
                case STALLED -> {
                    if (!job.stallReported) {
                        job.stallReported = true;
                        log.error("job " + job.requestId + ": its thread has shown no sign of life for more than "
                                + stallLimit.toSeconds() + " s outside its steps (in the " + job.phase.wireName()
                                + " phase); heartbeats stop, so that the coordinator retries it on another worker");
                    }
                }
                case GONE -> {
                    running = null;
                    abandoned = job;
                    send(new BuildResult(job.requestId, Outcome.FAILED, null, null, null, null, null, null,
                            "the worker's job thread ended in the " + job.phase.wireName()
                                    + " phase without a result (see the worker's stderr)"));
                }
            }
        }
        if (abandoned != null) {
            log.error("job " + abandoned.requestId + ": its thread ended without a result; sent a failure");
            abandoned.done.complete(null);
        }
    }

    /** Reads and handles messages on the calling thread until the loop ends; sends {@code hello} first. */
    public void readLoop(Hello hello) {
        try {
            out.write(hello);
            while (!exit.isDone()) {
                Message message = in.read();
                if (!handle(message)) {
                    break;
                }
            }
        } catch (EOFException e) {
            exit.complete(Exit.END_OF_INPUT);
        } catch (ProtocolException e) {
            log.error("protocol error from the coordinator; exiting: " + e.getMessage());
            exit.complete(Exit.PROTOCOL_ERROR);
        } catch (IOException e) {
            log.error("cannot talk to the coordinator; exiting: " + e.getMessage());
            exit.complete(Exit.IO_ERROR);
        }
    }

    /** Ends the loop from another thread (e.g. the parent process is gone). */
    public void stop(Exit reason) {
        exit.complete(reason);
    }

    /** Completes with the reason the loop ended. */
    public CompletableFuture<Exit> exit() {
        return exit;
    }

    /**
     * Cancels the running job, if any, and waits up to {@code grace} for its result to be sent.
     */
    public void cancelRunningJob(Duration grace) {
        RunningJob job;
        synchronized (lock) {
            job = running;
        }
        if (job == null) {
            return;
        }
        job.token.cancel();
        try {
            job.done.get(grace.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
            log.warn("job " + job.requestId + " did not end within " + grace + " after cancel");
        }
    }

    private boolean handle(Message message) throws IOException {
        if (message instanceof BuildRequest request) {
            start(request);
        } else if (message instanceof Cancel cancel) {
            synchronized (lock) {
                if (running != null && running.requestId.equals(cancel.requestId())) {
                    running.token.cancel();
                }
            }
        } else if (message instanceof Shutdown) {
            exit.complete(Exit.SHUTDOWN);
            return false;
        } else {
            log.warn("ignoring a " + message.getClass().getSimpleName()
                    + " message: only the coordinator's requests are expected here");
        }
        return true;
    }

    private void start(BuildRequest request) throws IOException {
        synchronized (lock) {
            if (running != null) {
                out.write(new BuildResult(request.requestId(), Outcome.FAILED, null, null, null, null,
                        request.logPath(), null, "worker is busy with request " + running.requestId
                        + "; a worker runs one request at a time"));
                return;
            }
            CancellationToken token = new CancellationToken();
            CompletableFuture<Void> done = new CompletableFuture<>();
            RunningJob job = new RunningJob(request.requestId(), token, done);
            // heartbeats flow from now on, also while the first step is still being prepared
            job.phase = request.job() instanceof CmakeJob ? Phase.CONFIGURE : Phase.COMMAND;
            running = job;
            jobExecutor.execute(() -> execute(request, job));
        }
    }

    private void execute(BuildRequest request, RunningJob job) {
        job.inside = true;
        job.thread = Thread.currentThread();
        try {
            BuildResult result;
            Throwable failure = null;
            try {
                result = runner.run(request, job.token, job);
            } catch (Throwable e) { // OutOfMemoryError, StackOverflowError, a bug: the job's outcome, with the reason
                failure = e;
                result = new BuildResult(request.requestId(), Outcome.FAILED, null, null, null, null,
                        request.logPath(), null, "the worker failed while running the job: " + e
                        + (e instanceof OutOfMemoryError ? " (the worker's heap is "
                        + (Runtime.getRuntime().maxMemory() >> 20) + " MiB; -Xmx in "
                        + "ARCHPOOL_WORKER_JAVA_OPTS gives it more)" : ""));
            }
            // a job that ended normally is reported even now; one that a signal ended, when the signal was ours too
            boolean withheld = result.signal() != null && termination.begins(SIGNAL_SETTLE);
            if (withheld) {
                log.warn("job " + request.requestId() + " ended by " + result.signal() + " while this worker is"
                        + " being terminated; its result is withheld so that the coordinator retries it");
            }
            synchronized (lock) {
                // under the lock, so that no heartbeat for this request can follow its result
                if (running == job) {
                    running = null;
                    if (!withheld) {
                        send(result);
                    }
                }
            }
            job.done.complete(null);
            if (failure != null) {
                log.error("job " + request.requestId() + " failed inside the worker", failure);
            }
        } finally {
            job.inside = false;
        }
    }

    /** Whether a job is running (its result not yet sent or withheld). */
    boolean busy() {
        synchronized (lock) {
            return running != null;
        }
    }

    private void send(Message message) {
        try {
            out.write(message);
        } catch (IOException e) {
            log.error("cannot send " + message.getClass().getSimpleName() + " to the coordinator: " + e.getMessage());
            exit.complete(Exit.IO_ERROR);
        }
    }
}
