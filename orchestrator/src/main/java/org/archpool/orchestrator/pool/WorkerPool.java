package org.archpool.orchestrator.pool;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * A fixed number of {@link Slot}s, each holding at most one worker at a time, which its launcher starts where it
 * runs (a JVM here, a thread, a Slurm step). A slot's worker is started when the slot first needs it (or ahead, by
 * {@link #warmUp()}), reused for every later job while its {@link Worker#state() state} is not dead, replaced
 * after it fails ({@link #discard}), and recycled after {@code maxJobsPerWorker} jobs. Slot {@code i}'s workers
 * are named {@code w<i>}, {@code w<i>.2}, {@code w<i>.3}… Every start and death is recorded as a
 * {@link WorkerEvent} and told to the listener.
 */
public final class WorkerPool implements AutoCloseable {

    /** One slot: its worker, the start in progress, how many workers it has had, and the jobs its worker ran. */
    private static final class Slot {
        final int number;
        Worker worker;
        /** The start in progress, if any, so that two threads never start workers for one slot. */
        CompletableFuture<Worker> launch;
        int generation;
        int jobsRun;

        Slot(int number) {
            this.number = number;
        }

        /** The name of the worker this slot starts next. */
        String nextWorkerId() {
            return "w" + number + (generation > 1 ? "." + generation : "");
        }
    }

    /**
     * How many times in a row a slot's start is tried again at once when its launcher says the failure was one
     * place's ({@link WorkerLauncher#startAgain}); past that, the failure goes to the job like any other.
     */
    public static final int STARTS_AGAIN = 4;

    /** How long {@link #close()} waits for starts still in progress to see the pool closed. */
    static final long CLOSE_WAIT_MS = 10_000;

    private final WorkerLauncher launcher;
    private final Clock clock;
    private final long startedAtMs;
    private final List<Slot> slots = new ArrayList<>();
    private final int maxJobsPerWorker;
    private final List<WorkerEvent> events = new ArrayList<>();
    private final Consumer<WorkerEvent> listener;
    private boolean closed;
    private boolean anyStarted;
    private int failedStarts;
    private String lastStartFailure;

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
        if (size < 1) {
            throw new IllegalArgumentException("a pool needs at least one slot");
        }
        this.launcher = launcher;
        this.clock = clock;
        this.listener = listener;
        this.startedAtMs = clock.millis();
        this.maxJobsPerWorker = maxJobsPerWorker;
        for (int i = 1; i <= size; i++) {
            slots.add(new Slot(i));
        }
    }

    public int size() {
        return slots.size();
    }

    public String mode() {
        return launcher.mode();
    }

    /** Where the workers run: {@code local} or {@code slurm}. */
    public String launcher() {
        return launcher.launcher();
    }

    /** How its workers are kept from seeing a GPU. */
    public DeviceIsolation deviceIsolation() {
        return launcher.deviceIsolation();
    }

    /**
     * Starts every slot's worker now, each on a thread of its own, without waiting: the workers' JVMs start
     * while the coordinator does other work (resolving the architecture). A slot whose warm-up start fails
     * is started again when a job needs it; the failure is recorded like any other.
     */
    public void warmUp() {
        for (int slot = 0; slot < slots.size(); slot++) {
            int s = slot;
            Thread t = new Thread(() -> {
                try {
                    workerFor(s);
                } catch (WorkerFailedException e) {
                    // recorded as a failed_to_start event by launch; the slot's first job starts another
                }
            }, "archpool-warm-up-" + (slot + 1));
            t.setDaemon(true);
            t.start();
        }
    }

    /**
     * The live worker of slot {@code index} (from 0), started now if it has none. If another thread (the
     * warm-up) is starting the slot's worker, waits for that start instead of starting a second one.
     */
    public Worker workerFor(int index) throws WorkerFailedException {
        Slot slot = slots.get(index);
        CompletableFuture<Worker> starting;
        Worker foundDead = null;
        WorkerState.Dead dead = null;
        synchronized (this) {
            if (closed) {
                throw new WorkerFailedException(WorkerFailure.SHUTDOWN, "the pool is closed");
            }
            if (startsRefused()) {
                throw new WorkerFailedException(WorkerFailure.START, "not tried: none of this build's "
                        + failedStarts + " worker starts succeeded; the last: " + lastStartFailure);
            }
            Worker current = slot.worker;
            if (current != null) {
                WorkerState state = current.state();
                if (state.isAlive()) {
                    return current;
                }
                dead = (WorkerState.Dead) state;
                record(WorkerEvent.died(current.id(), pid(current), atMs(), dead.cause(), "found dead: " + dead.reason()));
                slot.worker = null;
                foundDead = current;
            }
            starting = slot.launch;
            if (starting == null) {
                slot.generation++;
                slot.launch = new CompletableFuture<>();
            }
        }
        if (foundDead != null) {
            diedOnItsNode(foundDead, dead.cause(), dead.reason());
        }
        return starting == null ? launch(slot) : await(starting);
    }

    private Worker launch(Slot slot) throws WorkerFailedException {
        String id;
        CompletableFuture<Worker> starting;
        synchronized (this) {
            id = slot.nextWorkerId();
            starting = slot.launch;
        }
        Worker worker;
        long launchedAt;
        for (int again = 0; ; again++) {
            launchedAt = clock.millis();
            try {
                worker = launcher.launch(id);
                break;
            } catch (WorkerFailedException e) {
                boolean tryAgain = again < STARTS_AGAIN && launcher.startAgain(e);
                synchronized (this) {
                    record(WorkerEvent.failedToStart(id, atMs(), e.failure(), e.getMessage()));
                    if (tryAgain && !closed) {
                        // the failure was one node's: the slot's next worker starts now, and the job waits for it
                        slot.generation++;
                        id = slot.nextWorkerId();
                        continue;
                    }
                    slot.launch = null;
                    if (e.failure() == WorkerFailure.START) {
                        failedStarts++;
                        lastStartFailure = e.getMessage();
                    }
                }
                starting.completeExceptionally(e);
                throw e;
            }
        }
        synchronized (this) {
            slot.launch = null;
            if (closed) {
                worker.close();
                WorkerFailedException e = new WorkerFailedException(WorkerFailure.SHUTDOWN, "the pool is closed");
                starting.completeExceptionally(e);
                throw e;
            }
            slot.worker = worker;
            slot.jobsRun = 0;
            anyStarted = true;
            record(WorkerEvent.started(id, pid(worker), atMs(), clock.millis() - launchedAt, worker.host()));
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
    public void discard(int index, Worker worker, WorkerFailure cause, String reason) {
        Slot slot = slots.get(index);
        synchronized (this) {
            if (slot.worker == worker) {
                slot.worker = null;
            }
            record(WorkerEvent.died(worker.id(), pid(worker), atMs(), cause, reason));
        }
        worker.close();
        diedOnItsNode(worker, cause, reason);
    }

    /** Tells the launcher of a worker's death, unless the build is stopping it, before its job is retried. */
    private void diedOnItsNode(Worker worker, WorkerFailure cause, String reason) {
        if (cause != WorkerFailure.SHUTDOWN) {
            launcher.workerDied(worker, cause, reason);
        }
    }

    /** What the build saw of each node its workers ran on (under Slurm); empty where workers run here. */
    public List<NodeSummary> nodes() {
        return launcher.nodes();
    }

    /**
     * A job finished on slot {@code index}'s worker (whatever its outcome). After {@code maxJobsPerWorker} jobs
     * the worker is shut down; the slot's next job starts a fresh one.
     */
    public void jobFinished(int index, Worker worker) {
        Slot slot = slots.get(index);
        boolean recycle;
        synchronized (this) {
            if (slot.worker != worker) {
                return;
            }
            slot.jobsRun++;
            recycle = maxJobsPerWorker > 0 && slot.jobsRun >= maxJobsPerWorker;
            if (recycle) {
                slot.worker = null;
                record(WorkerEvent.recycled(worker.id(), pid(worker), atMs(),
                        "ran " + slot.jobsRun + " jobs (--max-jobs-per-worker)"));
            }
        }
        if (recycle) {
            worker.close();
        }
    }

    /**
     * Whether this pool has stopped trying to start workers: none has ever started, and every slot's start
     * failed twice (its warm-up and its first job's), so a worker JVM that cannot start at all (a bad
     * {@code ARCHPOOL_WORKER_JAVA_OPTS}, a missing {@code java}) fails the remaining jobs at once instead of
     * launching a doomed JVM for each of their attempts. Called with the pool's lock held.
     */
    private boolean startsRefused() {
        return !anyStarted && failedStarts >= 2 * slots.size();
    }

    /**
     * Why no worker of this pool could start: the last failed start's reason when none ever started and at
     * least one start failed (the build then ends with exit code 70); null when a worker started, or none was
     * tried.
     */
    public synchronized String noWorkerStarted() {
        return anyStarted || failedStarts == 0 ? null : lastStartFailure;
    }

    /** Starts and deaths so far, in order. */
    public synchronized List<WorkerEvent> events() {
        return List.copyOf(events);
    }

    /**
     * Closes every worker, then the launcher (which cancels what it still has starting, e.g. Slurm steps in the
     * queue), then waits up to {@link #CLOSE_WAIT_MS} for starts still in progress: each sees the pool closed
     * and closes the worker it started, so no worker outlives the pool's close.
     */
    @Override
    public void close() {
        List<Worker> toClose = new ArrayList<>();
        List<CompletableFuture<Worker>> starting = new ArrayList<>();
        synchronized (this) {
            closed = true;
            for (Slot slot : slots) {
                if (slot.worker != null) {
                    toClose.add(slot.worker);
                    slot.worker = null;
                }
                if (slot.launch != null) {
                    starting.add(slot.launch);
                }
            }
        }
        toClose.parallelStream().forEach(Worker::close);
        launcher.close();
        CompletableFuture<Void> started = CompletableFuture.allOf(starting.stream()
                .map(f -> f.handle((worker, failure) -> null)).toArray(CompletableFuture[]::new));
        try {
            started.get(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // a start that hangs past the wait is its launcher's to end; the pool has closed what it holds
        }
    }

    /** @return how many slots have a live worker now */
    public synchronized int liveWorkers() {
        return (int) slots.stream().filter(s -> s.worker != null).count();
    }

    private long atMs() {
        return clock.millis() - startedAtMs;
    }

    /** A worker's process id for the report: none in thread mode. */
    private static Long pid(Worker worker) {
        return worker.pid() < 0 ? null : worker.pid();
    }

    private synchronized void record(WorkerEvent e) {
        events.add(e);
        listener.accept(e);
    }
}
