package org.archpool.orchestrator.pool;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;

/**
 * A fixed number of worker slots. A slot's worker is started when the slot first needs it, reused for
 * every later job, replaced after it fails, and recycled after {@code maxJobsPerWorker} jobs. Slot {@code i}'s workers are named {@code w<i>},
 * {@code w<i>.2}, {@code w<i>.3}…
 */
public final class WorkerPool implements AutoCloseable {

    private final WorkerLauncher launcher;
    private final Clock clock;
    private final long startedAtMs;
    private final Worker[] workers;
    private final int[] generations;
    /** Per slot: the start in progress, if any, so that two threads never start workers for one slot. */
    private final CompletableFuture<Worker>[] launches;
    private final int[] jobsRun;
    private final int maxJobsPerWorker;
    private final List<WorkerEvent> events = new ArrayList<>();
    private final Consumer<WorkerEvent> listener;
    private boolean closed;

    public WorkerPool(WorkerLauncher launcher, int size, Clock clock) {
        this(launcher, size, 0, clock);
    }

    /**
     * @param maxJobsPerWorker a worker is replaced after this many jobs (0: never)
     */
    public WorkerPool(WorkerLauncher launcher, int size, int maxJobsPerWorker, Clock clock) {
        this(launcher, size, maxJobsPerWorker, clock, e -> { });
    }

    /**
     * @param maxJobsPerWorker a worker is replaced after this many jobs (0: never)
     * @param listener         told each start and death as it happens (e.g. for metrics), under the pool's lock
     */
    public WorkerPool(WorkerLauncher launcher, int size, int maxJobsPerWorker, Clock clock,
                      Consumer<WorkerEvent> listener) {
        this.listener = listener;
        if (size < 1) {
            throw new IllegalArgumentException("a pool needs at least one slot");
        }
        this.launcher = launcher;
        this.clock = clock;
        this.startedAtMs = clock.millis();
        this.workers = new Worker[size];
        this.generations = new int[size];
        @SuppressWarnings("unchecked")
        CompletableFuture<Worker>[] none = new CompletableFuture[size];
        this.launches = none;
        this.jobsRun = new int[size];
        this.maxJobsPerWorker = maxJobsPerWorker;
    }

    public int size() {
        return workers.length;
    }

    public String mode() {
        return launcher.mode();
    }

    /** Where the workers run: {@code local} or {@code slurm}. */
    public String launcher() {
        return launcher.launcher();
    }

    /**
     * Starts every slot's worker now, each on a thread of its own, without waiting: the workers' JVMs start
     * while the coordinator does other work (resolving the architecture). A slot whose warm-up start fails
     * is started again when a job needs it; the failure is recorded like any other.
     */
    public void warmUp() {
        for (int slot = 0; slot < workers.length; slot++) {
            int s = slot;
            Thread t = new Thread(() -> {
                try {
                    workerFor(s);
                } catch (WorkerFailedException e) {
                    // recorded as a failed_to_start event by workerFor; the slot's first job starts another
                }
            }, "archpool-warm-up-" + (slot + 1));
            t.setDaemon(true);
            t.start();
        }
    }

    /**
     * The live worker of {@code slot}, started now if it has none. If another thread (the warm-up) is
     * starting the slot's worker, waits for that start instead of starting a second one.
     */
    public Worker workerFor(int slot) throws WorkerFailedException {
        CompletableFuture<Worker> starting;
        synchronized (this) {
            if (closed) {
                throw new WorkerFailedException(WorkerFailure.SHUTDOWN, "the pool is closed");
            }
            Worker current = workers[slot];
            if (current != null && current.isAlive()) {
                return current;
            }
            if (current != null) {
                record(current.id(), "died", current.pid(), null, WorkerFailure.EXIT, "found dead");
                workers[slot] = null;
            }
            starting = launches[slot];
            if (starting == null) {
                generations[slot]++;
                launches[slot] = new CompletableFuture<>();
            }
        }
        return starting == null ? launch(slot) : await(starting);
    }

    private Worker launch(int slot) throws WorkerFailedException {
        String id = "w" + (slot + 1) + (generations[slot] > 1 ? "." + generations[slot] : "");
        CompletableFuture<Worker> starting = launches[slot];
        Worker worker;
        long launchedAt = clock.millis();
        try {
            worker = launcher.launch(id);
        } catch (WorkerFailedException e) {
            synchronized (this) {
                launches[slot] = null;
                record(id, "failed_to_start", null, null, e.failure(), e.getMessage());
            }
            starting.completeExceptionally(e);
            throw e;
        }
        synchronized (this) {
            launches[slot] = null;
            if (closed) {
                worker.close();
                WorkerFailedException e = new WorkerFailedException(WorkerFailure.SHUTDOWN, "the pool is closed");
                starting.completeExceptionally(e);
                throw e;
            }
            workers[slot] = worker;
            jobsRun[slot] = 0;
            record(id, "started", worker.pid() < 0 ? null : worker.pid(), clock.millis() - launchedAt, null, null,
                    worker.host());
        }
        starting.complete(worker);
        return worker;
    }

    private static Worker await(CompletableFuture<Worker> starting) throws WorkerFailedException {
        try {
            return starting.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof WorkerFailedException w ? w
                    : new WorkerFailedException(WorkerFailure.START, String.valueOf(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WorkerFailedException(WorkerFailure.SHUTDOWN, "interrupted while a worker was starting");
        }
    }

    /** Takes a failed worker out of its slot and makes sure it is gone; the next job gets a fresh one. */
    public void discard(int slot, Worker worker, WorkerFailure cause, String reason) {
        synchronized (this) {
            if (workers[slot] == worker) {
                workers[slot] = null;
            }
            record(worker.id(), "died", worker.pid() < 0 ? null : worker.pid(), null, cause, reason);
        }
        worker.close();
    }

    /**
     * A job finished on {@code slot}'s worker (whatever its outcome). After {@code maxJobsPerWorker} jobs the
     * worker is shut down; the slot's next job starts a fresh one.
     */
    public void jobFinished(int slot, Worker worker) {
        boolean recycle;
        synchronized (this) {
            if (workers[slot] != worker) {
                return;
            }
            jobsRun[slot]++;
            recycle = maxJobsPerWorker > 0 && jobsRun[slot] >= maxJobsPerWorker;
            if (recycle) {
                workers[slot] = null;
                record(worker.id(), "recycled", worker.pid() < 0 ? null : worker.pid(), null, null,
                        "ran " + jobsRun[slot] + " jobs (--max-jobs-per-worker)");
            }
        }
        if (recycle) {
            worker.close();
        }
    }

    /** Starts and deaths so far, in order. */
    public synchronized List<WorkerEvent> events() {
        return List.copyOf(events);
    }

    @Override
    public void close() {
        List<Worker> toClose = new ArrayList<>();
        synchronized (this) {
            closed = true;
            for (int i = 0; i < workers.length; i++) {
                if (workers[i] != null) {
                    toClose.add(workers[i]);
                    workers[i] = null;
                }
            }
        }
        toClose.parallelStream().forEach(Worker::close);
        launcher.close();
    }

    /** @return how many slots have a live worker now */
    public synchronized int liveWorkers() {
        int live = 0;
        for (Worker w : workers) {
            if (w != null) {
                live++;
            }
        }
        return live;
    }

    private synchronized void record(String worker, String event, Long pid, Long startMs, WorkerFailure cause,
                                     String reason) {
        record(worker, event, pid, startMs, cause, reason, null);
    }

    private synchronized void record(String worker, String event, Long pid, Long startMs, WorkerFailure cause,
                                     String reason, String host) {
        WorkerEvent e = new WorkerEvent(worker, event, pid, clock.millis() - startedAtMs, startMs,
                cause == null ? null : cause.wireName(), reason, host);
        events.add(e);
        listener.accept(e);
    }
}
