package org.archpool.orchestrator.schedule;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.archpool.orchestrator.pool.Worker;

/**
 * Whether the build has stopped dispatching and why, which jobs were cancelled one by one and why, and which
 * request each slot is running, so that an interrupt or a job's cancel can reach it. Shared by the scheduler and
 * its slots; safe from any thread.
 */
final class BuildStop {

    private record Running(String jobId, Worker worker, String requestId) {
    }

    private final Map<Integer, Running> running = new ConcurrentHashMap<>();
    private final Map<String, String> cancelled = new ConcurrentHashMap<>();
    private volatile String reason;
    private volatile boolean interrupted;

    /** Why no job starts any more, or null while jobs still start. */
    String reason() {
        return reason;
    }

    /** Whether the build was interrupted (Ctrl-C, SIGTERM), not only stopped after a failure. */
    boolean interrupted() {
        return interrupted;
    }

    /** Why the job {@code jobId} was cancelled on its own, or null when it was not. */
    String cancelled(String jobId) {
        return cancelled.get(jobId);
    }

    /** Why the job stops: the build's interrupt, else its own cancel, else null (it goes on). */
    String stopReason(String jobId) {
        return interrupted ? reason : cancelled(jobId);
    }

    /** Cancels these jobs: none starts, and the running request of each, if any, is told to cancel. */
    void cancel(Set<String> jobIds, String why) {
        jobIds.forEach(id -> cancelled.putIfAbsent(id, why));
        running.values().stream().filter(r -> jobIds.contains(r.jobId()))
                .forEach(r -> r.worker().cancel(r.requestId()));
    }

    /** Forgets the cancel of a job that has its outcome, so that a long-lived scheduler keeps no trace of it. */
    void ended(String jobId) {
        cancelled.remove(jobId);
    }

    /** Stops dispatching because a job did not succeed, unless the build has already stopped. */
    synchronized void afterFailure(String why) {
        if (reason == null) {
            reason = why;
        }
    }

    /** Stops dispatching and cancels every running request. */
    void interrupt(String why) {
        reason = why;
        interrupted = true;
        running.values().forEach(r -> r.worker().cancel(r.requestId()));
    }

    /**
     * {@code slot} now runs {@code requestId} of {@code jobId} on {@code worker}; cancelled at once if the build was
     * interrupted or the job cancelled.
     */
    void running(int slot, String jobId, Worker worker, String requestId) {
        running.put(slot, new Running(jobId, worker, requestId));
        if (interrupted || cancelled.containsKey(jobId)) {
            worker.cancel(requestId);
        }
    }

    /** {@code slot} runs nothing now. */
    void idle(int slot) {
        synchronized (running) {
            running.remove(slot);
            if (running.isEmpty()) {
                running.notifyAll();
            }
        }
    }

    /**
     * Waits up to {@code maxMs} until no slot runs a request.
     *
     * @return whether none does
     */
    boolean awaitNoneRunning(long maxMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxMs);
        synchronized (running) {
            while (!running.isEmpty()) {
                long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (leftMs <= 0) {
                    return false;
                }
                running.wait(leftMs);
            }
            return true;
        }
    }

    /** @return how many slots run a request now */
    int busy() {
        return running.size();
    }
}
