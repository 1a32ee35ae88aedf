package org.archpool.orchestrator.schedule;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;
import org.archpool.orchestrator.pool.WorkerPool;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Outcome;

/**
 * Runs submitted jobs on the pool's slots, one job per slot at a time, in submission order: one thread per slot
 * takes the next job from the queue and hands it to a {@link JobRun}, which makes it concrete with the config's
 * {@link SchedulerConfig#planner() planner}, sends it, retries it when the infrastructure fails, and has a
 * succeeded job's artifacts checked by the config's {@link SchedulerConfig#judge() judge}. Unless
 * {@code keepGoing}, the first job that does not succeed stops dispatching: every job not yet started is recorded
 * {@code cancelled}. One job, or any set of them, can be {@linkplain #cancel(Collection, String) cancelled} on its own. Every submitted job's future
 * completes with exactly one outcome.
 */
public final class Scheduler implements AutoCloseable {

    private record Queued(JobSpec job, Consumer<JobStart> onStart, CompletableFuture<JobOutcome> future,
                          long submittedAtMs) {
    }

    private static final Queued STOP = new Queued(null, null, null, 0);

    private final Clock clock;
    /** When the scheduler started: {@link JobOutcome#startMs()} counts from here. */
    private final long origin;
    private final SchedulerConfig config;
    private final SchedulerListener listener;
    private final BuildStop stop = new BuildStop();
    private final JobRun runs;
    private final BlockingQueue<Queued> queue = new LinkedBlockingQueue<>();
    private final List<Thread> slots = new ArrayList<>();

    public Scheduler(WorkerPool pool, SchedulerConfig config, Clock clock, SchedulerListener listener) {
        this.clock = clock;
        this.origin = clock.millis();
        this.config = config;
        this.listener = listener;
        this.runs = new JobRun(pool, config, clock, origin, listener, stop);
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
        return submit(job, start -> { });
    }

    /**
     * Queues {@code job}; {@code onStart} is told, on the slot's thread, each time an attempt of it is handed to a
     * worker (before the worker is sent it; again for each retry), and the future completes with its one outcome
     * after the last such call. A job that never reaches a worker (cancelled while queued, or refused unsent) is
     * never reported started.
     */
    public CompletableFuture<JobOutcome> submit(JobSpec job, Consumer<JobStart> onStart) {
        CompletableFuture<JobOutcome> future = new CompletableFuture<>();
        queue.add(new Queued(job, Objects.requireNonNull(onStart, "onStart"), future, clock.millis()));
        return future;
    }

    /**
     * Cancels the job with {@code jobId} (ids are unique among the jobs submitted and not ended): queued, it ends
     * {@code cancelled} ("not started: reason") at once; running, its worker is told to cancel it (its process tree
     * is killed) and it ends {@code cancelled}, not retried. Does nothing for a job that has ended. Safe from any
     * thread.
     */
    public void cancel(String jobId, String reason) {
        cancel(Set.of(jobId), reason);
    }

    /**
     * Cancels every job of {@code jobIds} as {@link #cancel(String, String)} does one, in one pass over the queue
     * and one over the running slots: a client that leaves 100,000 queued jobs cancels them in linear time, not
     * one scan of the queue per job.
     */
    public void cancel(Collection<String> jobIds, String reason) {
        if (jobIds.isEmpty()) {
            return;
        }
        Set<String> ids = Set.copyOf(jobIds);
        stop.cancel(ids, reason);
        List<Queued> removed = new ArrayList<>();
        queue.removeIf(q -> {
            boolean match = q != STOP && ids.contains(q.job().id());
            if (match) {
                removed.add(q);
            }
            return match;
        });
        removed.forEach(q -> finish(q, notStarted(q, reason)));
    }

    /** @return how many jobs wait for a worker now */
    public int queued() {
        return (int) queue.stream().filter(q -> q != STOP).count();
    }

    /** @return how many slots run a job now */
    public int busy() {
        return stop.busy();
    }

    /**
     * Stops the build: no job starts any more (queued ones are recorded {@code cancelled} with
     * {@code reason}), running ones are told to cancel, and a worker that fails from now on makes its job
     * {@code cancelled}, not retried. Safe to call from any thread, e.g. a signal handler.
     */
    public void interrupt(String reason) {
        stop.interrupt(reason);
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
            String reason = stop.reason() != null ? stop.reason() : stop.cancelled(q.job().id());
            if (reason != null) {
                outcome = notStarted(q, reason);
            } else {
                outcome = runs.run(slot, q.job(), q.submittedAtMs(), q.onStart());
                if (outcome.outcome() != Outcome.SUCCEEDED && !config.keepGoing()) {
                    stop.afterFailure("job '" + outcome.id() + "' " + outcome.outcome().wireName()
                            + " and --keep-going is off");
                }
            }
            finish(q, outcome);
        }
    }

    private JobOutcome notStarted(Queued q, String reason) {
        long now = clock.millis();
        return JobOutcome.notStarted(q.job(), now - origin, now - q.submittedAtMs(), reason);
    }

    private void finish(Queued q, JobOutcome outcome) {
        stop.ended(q.job().id());
        listener.finished(outcome);
        q.future().complete(outcome);
    }
}
