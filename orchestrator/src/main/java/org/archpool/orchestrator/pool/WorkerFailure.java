package org.archpool.orchestrator.pool;

import java.util.Locale;

/**
 * Why the infrastructure failed under a request: a small fixed vocabulary, for the report's worker events and the
 * {@code archpool_worker_deaths_total} metric's {@code cause} label (the sentence with the details stays in the
 * exception's message).
 */
public enum WorkerFailure {
    /** The worker JVM could not be started, or did not say hello in time. */
    START,
    /** The worker exited or closed its output while it had work (crash, kill, out of memory). */
    EXIT,
    /** A busy worker sent no heartbeat for {@code --heartbeat-timeout}. */
    HANG,
    /** The worker wrote something that is not the protocol. */
    PROTOCOL,
    /** The pipe to or from the worker failed. */
    IO,
    /** The worker gave no answer past the job's time limit. */
    NO_ANSWER,
    /** The worker or the pool was shut down (Ctrl-C, end of the build). */
    SHUTDOWN;

    /** @return the lower-case name used in reports and metric labels, e.g. {@code no_answer} */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
