package org.archpool.orchestrator.schedule;

import java.util.ArrayList;
import java.util.List;

/**
 * What happened to a job's tries so far: the number of the last try that reached a worker, that worker, when it
 * was sent, and why each earlier try's infrastructure failed, in order. A value: each change makes a new one.
 *
 * @param count       the number of the last try sent to a worker (0: none was); a try whose worker failed to
 *                    start counts too once a later one is sent
 * @param lastWorker  the worker of that try, or null
 * @param lastStartMs when it was sent (or, with none sent, when the job left the queue), in ms since the
 *                    scheduler started
 * @param failures    why tries failed, in order
 */
public record Attempts(int count, String lastWorker, long lastStartMs, List<String> failures) {

    public Attempts {
        failures = List.copyOf(failures);
    }

    /** No try yet; the job left the queue at {@code atMs}. */
    public static Attempts none(long atMs) {
        return new Attempts(0, null, atMs, List.of());
    }

    /** Try number {@code attempt} was sent to {@code worker} at {@code atMs}. */
    public Attempts sent(int attempt, String worker, long atMs) {
        return new Attempts(attempt, worker, atMs, failures);
    }

    /** The try in progress failed because the infrastructure did: {@code reason}. */
    public Attempts failed(String reason) {
        List<String> more = new ArrayList<>(failures);
        more.add(reason);
        return new Attempts(count, lastWorker, lastStartMs, more);
    }

    /** @return the last failure's reason, or {@code unknown} */
    public String lastFailure() {
        return failures.isEmpty() ? "unknown" : failures.get(failures.size() - 1);
    }
}
