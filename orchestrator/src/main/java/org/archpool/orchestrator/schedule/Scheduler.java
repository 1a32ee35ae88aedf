package org.archpool.orchestrator.schedule;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.archpool.orchestrator.pool.Worker;
import org.archpool.orchestrator.pool.WorkerFailedException;
import org.archpool.orchestrator.pool.WorkerFailure;
import org.archpool.orchestrator.pool.WorkerPool;
import org.archpool.orchestrator.toolchain.CommandInvocation;
import org.archpool.orchestrator.verify.ArtifactVerifier;
import org.archpool.orchestrator.verify.Verdict;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;

/**
 * Runs submitted jobs on the pool's slots, one job per slot at a time, in submission order. Each job is
 * sent concrete: a command job's argv placeholders are expanded for the target here, never by a worker;
 * an architecture that no compiler flag can name fails the job before it is sent. A job whose
 * worker fails is retried on a fresh worker up to {@code retries} times, then recorded {@code crashed}.
 * Unless {@code keepGoing}, the first job that does not succeed stops dispatching: every job not yet
 * started is recorded {@code cancelled}. Every submitted job's future completes with exactly one outcome.
 */
public final class Scheduler implements AutoCloseable {

    /** How long past a job's own time limit the coordinator waits for the worker's answer. */
    static final long WORKER_ANSWER_GRACE_MS = 30_000;

    private record Queued(JobSpec job, CompletableFuture<JobOutcome> future, long submittedAtMs) {
    }

    private static final Queued STOP = new Queued(null, null, 0);

    private final WorkerPool pool;
    private final SchedulerConfig config;
    private final Clock clock;
    /** When the scheduler started: {@link JobOutcome#startMs()} counts from here. */
    private final long origin;
    private final SchedulerListener listener;
    private final ArtifactVerifier verifier;
    private final BlockingQueue<Queued> queue = new LinkedBlockingQueue<>();
    private final List<Thread> slots = new ArrayList<>();
    private final Map<Integer, Running> running = new ConcurrentHashMap<>();
    private volatile String stopReason;
    private volatile boolean interrupted;

    private record Running(Worker worker, String requestId) {
    }

    public Scheduler(WorkerPool pool, SchedulerConfig config, Clock clock, SchedulerListener listener) {
        this.pool = pool;
        this.config = config;
        this.clock = clock;
        this.listener = listener;
        this.origin = clock.millis();
        this.verifier = new ArtifactVerifier(config.verify());
        for (int i = 0; i < pool.size(); i++) {
            int slot = i;
            Thread t = new Thread(() -> slotLoop(slot), "archpool-slot-" + (slot + 1));
            t.setDaemon(true);
            slots.add(t);
            t.start();
        }
    }

    /** Queues {@code job}; the future completes with its one outcome. */
    public CompletableFuture<JobOutcome> submit(JobSpec job) {
        CompletableFuture<JobOutcome> future = new CompletableFuture<>();
        queue.add(new Queued(job, future, clock.millis()));
        return future;
    }

    /** @return how many jobs wait for a worker now */
    public int queued() {
        return (int) queue.stream().filter(q -> q != STOP).count();
    }

    /** @return how many slots run a job now */
    public int busy() {
        return running.size();
    }

    /**
     * Stops the build: no job starts any more (queued ones are recorded {@code cancelled} with
     * {@code reason}), running ones are told to cancel, and a worker that fails from now on makes its job
     * {@code cancelled}, not retried. Safe to call from any thread, e.g. a signal handler.
     */
    public void interrupt(String reason) {
        stopReason = reason;
        interrupted = true;
        running.values().forEach(r -> r.worker().cancel(r.requestId()));
    }

    /** Lets queued jobs finish (or be cancelled), then ends the slot threads. The pool is the caller's. */
    @Override
    public void close() {
        slots.forEach(t -> queue.add(STOP));
        for (Thread t : slots) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void slotLoop(int slot) {
        while (true) {
            Queued q;
            try {
                q = queue.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (q == STOP) {
                return;
            }
            JobOutcome outcome;
            String reason = stopReason;
            if (reason != null) {
                outcome = notStarted(q, reason);
            } else {
                outcome = run(slot, q);
                running.remove(slot);
                if (outcome.outcome() != Outcome.SUCCEEDED && !config.keepGoing() && stopReason == null) {
                    stopReason = "job '" + outcome.id() + "' " + outcome.outcome().wireName()
                            + " and --keep-going is off";
                }
            }
            listener.finished(outcome);
            q.future().complete(outcome);
        }
    }

    private JobOutcome run(int slot, Queued q) {
        JobSpec job = q.job();
        long dispatchedAt = clock.millis();
        long queueWait = dispatchedAt - q.submittedAtMs();
        long timeoutMs = job.timeoutMs() != null ? job.timeoutMs() : config.defaultTimeoutMs();
        JobSpec sent;
        try {
            sent = CommandInvocation.concrete(job, config.target());
        } catch (IllegalArgumentException e) {
            return new JobOutcome(job.id(), job.kind(), Outcome.FAILED, null, null, null, 0,
                    dispatchedAt - origin, queueWait, 0, 0, 0, 0, clock.millis() - dispatchedAt, null, null, null,
                    "its argv could not be expanded for the target: " + e.getMessage(), null, null, null);
        }
        List<String> failures = new ArrayList<>();
        String lastWorker = null;
        int attempts = 0;
        long attemptStart = dispatchedAt - origin;
        for (int attempt = 1; attempt <= config.retries() + 1; attempt++) {
            Worker worker;
            try {
                worker = pool.workerFor(slot);
            } catch (WorkerFailedException e) {
                failures.add(e.getMessage());
                if (interrupted) {
                    // its worker's start was stopped with the build (a Slurm job still queued, say): not a crash
                    return new JobOutcome(job.id(), job.kind(), Outcome.CANCELLED, null, null, lastWorker, attempts,
                            attemptStart, queueWait, 0, 0, 0, 0, clock.millis() - dispatchedAt, null, null, null,
                            "cancelled: " + stopReason + " before its worker had started", null, failures, null);
                }
                continue;
            }
            attempts = attempt;
            attemptStart = clock.millis() - origin;
            lastWorker = worker.id();
            listener.started(job.id(), worker.id(), attempt);
            BuildRequest request = new BuildRequest(job.id() + "#" + attempt, sent, config.target(), timeoutMs,
                    config.buildParallelism(), logPath(job, attempt).toString());
            CompletableFuture<BuildResult> answer = worker.execute(request, phase -> listener.phase(job.id(), phase));
            running.put(slot, new Running(worker, request.requestId()));
            if (interrupted) {
                worker.cancel(request.requestId());
            }
            try {
                BuildResult result = timeoutMs > 0
                        ? answer.get(timeoutMs + WORKER_ANSWER_GRACE_MS, TimeUnit.MILLISECONDS)
                        : answer.get();
                pool.jobFinished(slot, worker);
                return fromResult(job, result, worker.id(), attempt, attemptStart, queueWait, dispatchedAt, failures);
            } catch (ExecutionException e) {
                WorkerFailure cause = e.getCause() instanceof WorkerFailedException w ? w.failure() : WorkerFailure.IO;
                String reason = e.getCause() instanceof WorkerFailedException w ? w.getMessage()
                        : String.valueOf(e.getCause());
                failures.add(reason);
                pool.discard(slot, worker, cause, reason);
                if (interrupted) {
                    return new JobOutcome(job.id(), job.kind(), Outcome.CANCELLED, null, null, worker.id(), attempt,
                            attemptStart, queueWait, 0, 0, 0, 0, clock.millis() - dispatchedAt, null, request.logPath(), null,
                            "cancelled: " + stopReason + "; its worker was stopped", null, failures, null);
                }
            } catch (TimeoutException e) {
                String reason = "worker " + worker.id() + " gave no answer " + WORKER_ANSWER_GRACE_MS
                        + " ms past the job's time limit; it was killed";
                failures.add(reason);
                pool.discard(slot, worker, WorkerFailure.NO_ANSWER, reason);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                worker.cancel(request.requestId());
                return new JobOutcome(job.id(), job.kind(), Outcome.CANCELLED, null, null, worker.id(), attempt,
                        attemptStart, queueWait, 0, 0, 0, 0, clock.millis() - dispatchedAt, null, request.logPath(), null,
                        "cancelled: the coordinator was interrupted", null, failures, null);
            }
        }
        return new JobOutcome(job.id(), job.kind(), Outcome.CRASHED, null, null, lastWorker, attempts,
                attemptStart, queueWait, 0, 0, 0, 0, clock.millis() - dispatchedAt, null,
                attempts > 0 ? logPath(job, attempts).toString() : null, null,
                "the infrastructure failed " + failures.size() + " time(s); last: "
                        + (failures.isEmpty() ? "unknown" : failures.get(failures.size() - 1)),
                null, failures, null);
    }

    private JobOutcome fromResult(JobSpec job, BuildResult r, String worker, int attempt, long attemptStart,
                                  long queueWait, long dispatchedAt, List<String> failures) {
        String message = r.outcome() == Outcome.CANCELLED && interrupted ? "cancelled: " + stopReason : r.message();
        Outcome outcome = r.outcome();
        List<String> warnings = List.of();
        if (outcome == Outcome.SUCCEEDED) {
            Verdict verdict = verifier.check(job, config.target(), r.artifacts());
            warnings = verdict.warnings();
            if (!verdict.passed()) {
                outcome = Outcome.FAILED;
                message = verdict.failure();
            }
        }
        return new JobOutcome(job.id(), job.kind(), outcome, r.exitCode(), r.signal(), worker, attempt,
                attemptStart, queueWait, r.millisIn(Phase.CONFIGURE), r.millisIn(Phase.BUILD),
                r.millisIn(Phase.COMMAND), r.millisIn(Phase.INSPECT), clock.millis() - dispatchedAt, r.phases(),
                r.logPath(), r.logTail(), message, r.artifacts(),
                failures, warnings);
    }

    private JobOutcome notStarted(Queued q, String reason) {
        return new JobOutcome(q.job().id(), q.job().kind(), Outcome.CANCELLED, null, null, null, 0,
                clock.millis() - origin, clock.millis() - q.submittedAtMs(), 0, 0, 0, 0, 0, null, null, null, "not started: " + reason,
                null, null, null);
    }

    private Path logPath(JobSpec job, int attempt) {
        return config.logDir().resolve(attempt == 1 ? job.id() + ".log" : job.id() + ".attempt" + attempt + ".log");
    }
}
