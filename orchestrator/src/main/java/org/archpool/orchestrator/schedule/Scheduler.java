package org.archpool.orchestrator.schedule;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.archpool.orchestrator.pool.WorkerPool;
import org.archpool.orchestrator.toolchain.TargetedJob;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Outcome;

/**
 * Runs submitted jobs on the pool's slots, one job per slot at a time, in the config's {@linkplain JobOrder order}
 * (submission order, or the longest expected first): one thread per slot takes the next job from the queue and
 * hands it to a {@link JobRun}, which makes it concrete with the config's {@link SchedulerConfig#planner() planner},
 * sends it, retries it when the infrastructure fails, and has a succeeded job's artifacts checked by the config's
 * {@link SchedulerConfig#judge() judge}. Unless {@code keepGoing}, the first job that does not succeed stops
 * dispatching: every job not yet started is recorded {@code cancelled}. One job, or any set of them, can be
 * {@linkplain #cancel(Collection, String) cancelled} on its own. Every submitted job's future completes with
 * exactly one outcome.
 */
public final class Scheduler implements AutoCloseable {

    /**
     * A job waiting for a slot.
     *
     * @param name       what the duration history knows it by
     * @param seq        its place in submission order
     * @param expectedMs how long it took last time; null when unknown
     */
    private record Queued(TargetedJob unit, String name, Consumer<JobStart> onStart,
                          CompletableFuture<JobOutcome> future, long submittedAtMs, long seq, Long expectedMs) {

        JobSpec job() {
            return unit.job();
        }

        /** What the build stop, the listener and {@link #cancel} know the job by. */
        String id() {
            return unit.name();
        }
    }

    /** Tells a slot thread to end; sorts after every job, so that queued jobs run first. */
    private static final Queued STOP = new Queued(null, null, null, null, 0, Long.MAX_VALUE, null);

    private final Clock clock;
    /** When the scheduler started: {@link JobOutcome#startMs()} counts from here. */
    private final long origin;
    private final SchedulerConfig config;
    private final SchedulerListener listener;
    private final BuildStop stop = new BuildStop();
    private final JobRun runs;
    private final BlockingQueue<Queued> queue;
    private final AtomicLong submitted = new AtomicLong();
    private final List<Thread> slots = new ArrayList<>();
    /** What the report's {@code schedule} adds up, under its own lock. */
    private final Object times = new Object();
    private int ran;
    private long jobTimeMs;
    private long longestJobMs;
    private long firstDispatchMs = Long.MAX_VALUE;
    private long lastOutcomeMs = Long.MIN_VALUE;

    public Scheduler(WorkerPool pool, SchedulerConfig config, Clock clock, SchedulerListener listener) {
        this.clock = clock;
        this.origin = clock.millis();
        this.config = config;
        this.listener = listener;
        this.runs = new JobRun(pool, config, clock, origin, listener, stop);
        this.queue = new PriorityBlockingQueue<>(64, order(config.order()));
        for (int i = 0; i < pool.size(); i++) {
            int slot = i;
            Thread t = new Thread(() -> slotLoop(slot), "archpool-slot-" + (slot + 1));
            t.setDaemon(true);
            slots.add(t);
            t.start();
        }
    }

    /** Queues {@code job}, built for the config's target; the future completes with its one outcome. */
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
        return submit(job, job.id(), onStart);
    }

    /**
     * As {@link #submit(JobSpec, Consumer)}, for a job that the duration history knows as {@code name} (under
     * {@code serve}, the client's name for it, which stays the same from one session to the next).
     */
    public CompletableFuture<JobOutcome> submit(JobSpec job, String name, Consumer<JobStart> onStart) {
        return submit(TargetedJob.only(job, config.target()), name, onStart);
    }

    /** As {@link #submit(JobSpec, String, Consumer)}, for a job built for its own target. */
    public CompletableFuture<JobOutcome> submit(TargetedJob unit, String name, Consumer<JobStart> onStart) {
        Queued q = queued(unit, name, onStart);
        queue.add(q);
        return q.future();
    }

    /**
     * Queues every job of {@code jobs} at once, in the config's {@linkplain SchedulerConfig#order() order}: a slot
     * that is free already takes the first of that order, not the first of the list.
     *
     * @return each job's future, in the order of {@code jobs}
     */
    public List<CompletableFuture<JobOutcome>> submitAll(List<? extends JobSpec> jobs) {
        return submitTargeted(jobs.stream().map(job -> TargetedJob.only(job, config.target())).toList());
    }

    /**
     * As {@link #submitAll}, for jobs each built for its own target (a run with several targets, jobs that support
     * only some of its architectures); the history knows each by {@link TargetedJob#name()}.
     */
    public List<CompletableFuture<JobOutcome>> submitTargeted(List<TargetedJob> units) {
        List<Queued> all = new ArrayList<>(units.size());
        units.forEach(unit -> all.add(queued(unit, unit.name(), start -> { })));
        List<Queued> sorted = new ArrayList<>(all);
        sorted.sort(order(config.order()));
        queue.addAll(sorted);
        return all.stream().map(Queued::future).toList();
    }

    /** What the report's {@code schedule} says about the jobs that ran so far. */
    public ScheduleSummary summary() {
        synchronized (times) {
            long wall = ran == 0 ? 0 : lastOutcomeMs - firstDispatchMs;
            return ScheduleSummary.of(config.order(), slots.size(), ran, jobTimeMs, longestJobMs, wall);
        }
    }

    private Queued queued(TargetedJob unit, String name, Consumer<JobStart> onStart) {
        Long expected = config.history() == null ? null
                : config.history().expectedMs(name, unit.job(), unit.target());
        return new Queued(unit, name, Objects.requireNonNull(onStart, "onStart"), new CompletableFuture<>(),
                clock.millis(), submitted.getAndIncrement(), expected);
    }

    /** Submission order for {@code fifo}; longest expected first, then unknown ones in submission order, else. */
    private static Comparator<Queued> order(JobOrder order) {
        Comparator<Queued> stopLast = Comparator.comparing(q -> q == STOP);
        Comparator<Queued> bySeq = Comparator.comparingLong(Queued::seq);
        if (order == JobOrder.FIFO) {
            return stopLast.thenComparing(bySeq);
        }
        return stopLast.thenComparing(q -> q.expectedMs() == null)
                .thenComparing(Comparator.comparingLong((Queued q) -> q.expectedMs() == null ? 0 : q.expectedMs())
                        .reversed())
                .thenComparing(bySeq);
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
            boolean match = q != STOP && ids.contains(q.id());
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

    /**
     * Waits up to {@code max} until no slot runs a request: after {@link #interrupt}, until every running job has
     * answered its cancel. Jobs still queued then only need their {@code cancelled} outcome, which takes no worker.
     *
     * @return whether no slot runs one; false also when the calling thread was interrupted (its flag set again)
     */
    public boolean awaitNoneRunning(Duration max) {
        try {
            return stop.awaitNoneRunning(max.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
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
            String reason = stop.reason() != null ? stop.reason() : stop.cancelled(q.id());
            if (reason != null) {
                outcome = notStarted(q, reason);
            } else {
                long dispatched = clock.millis();
                outcome = runs.run(slot, q.unit(), q.submittedAtMs(), q.onStart()).withExpectedMs(q.expectedMs());
                ran(outcome, dispatched, clock.millis());
                if (outcome.outcome() == Outcome.SUCCEEDED && outcome.attempts() > 0 && config.history() != null) {
                    config.history().record(q.name(), q.job(), q.unit().target(), outcome.workMs());
                }
                if (outcome.outcome() != Outcome.SUCCEEDED && !config.keepGoing()) {
                    stop.afterFailure("job '" + q.id() + "' " + outcome.outcome().wireName()
                            + " and --keep-going is off");
                }
            }
            finish(q, outcome);
        }
    }

    private void ran(JobOutcome outcome, long dispatchedMs, long endedMs) {
        synchronized (times) {
            ran++;
            jobTimeMs += outcome.totalMs();
            longestJobMs = Math.max(longestJobMs, outcome.totalMs());
            firstDispatchMs = Math.min(firstDispatchMs, dispatchedMs);
            lastOutcomeMs = Math.max(lastOutcomeMs, endedMs);
        }
    }

    private JobOutcome notStarted(Queued q, String reason) {
        long now = clock.millis();
        return JobOutcome.notStarted(q.job(), now - origin, now - q.submittedAtMs(), reason);
    }

    private void finish(Queued q, JobOutcome result) {
        JobOutcome outcome = result.forTarget(q.unit());
        stop.ended(q.id());
        listener.finished(outcome);
        q.future().complete(outcome);
    }
}
