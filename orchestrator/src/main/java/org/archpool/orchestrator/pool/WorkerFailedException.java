package org.archpool.orchestrator.pool;

/**
 * The infrastructure broke under a request: the worker could not start, died, closed its output, or broke
 * the protocol. The job is retried on a fresh worker; the message is the death reason for the report.
 */
public final class WorkerFailedException extends Exception {
    public WorkerFailedException(String reason) {
        super(reason);
    }

    public WorkerFailedException(String reason, Throwable cause) {
        super(reason, cause);
    }
}
