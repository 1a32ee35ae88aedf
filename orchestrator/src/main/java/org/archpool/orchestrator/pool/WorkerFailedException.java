package org.archpool.orchestrator.pool;

/**
 * The infrastructure broke under a request: the worker could not start, died, closed its output, or broke
 * the protocol. The job is retried on a fresh worker; the message is the death reason for the report.
 */
public final class WorkerFailedException extends Exception {

    private final WorkerFailure failure;

    public WorkerFailedException(WorkerFailure failure, String reason) {
        super(reason);
        this.failure = java.util.Objects.requireNonNull(failure, "failure");
    }

    /** @return the category of the failure */
    public WorkerFailure failure() {
        return failure;
    }
}
