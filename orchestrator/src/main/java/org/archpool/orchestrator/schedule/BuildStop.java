package org.archpool.orchestrator.schedule;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.archpool.orchestrator.pool.Worker;

/**
 * Whether the build has stopped dispatching and why, and which request each slot is running, so that an
 * interrupt can cancel them. Shared by the scheduler and its slots; safe from any thread.
 */
final class BuildStop {

    private record Running(Worker worker, String requestId) {
    }

    private final Map<Integer, Running> running = new ConcurrentHashMap<>();
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

    /** {@code slot} now runs {@code requestId} on {@code worker}; cancelled at once if the build was interrupted. */
    void running(int slot, Worker worker, String requestId) {
        running.put(slot, new Running(worker, requestId));
        if (interrupted) {
            worker.cancel(requestId);
        }
    }

    /** {@code slot} runs nothing now. */
    void idle(int slot) {
        running.remove(slot);
    }

    /** @return how many slots run a request now */
    int busy() {
        return running.size();
    }
}
