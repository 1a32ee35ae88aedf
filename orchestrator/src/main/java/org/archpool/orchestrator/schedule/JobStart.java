package org.archpool.orchestrator.schedule;

import java.util.Objects;

/**
 * One attempt of a job handed to a worker: the job's id, the worker's id, and the attempt's number (1 for the
 * first, 2 and on for retries after the infrastructure failed).
 */
public record JobStart(String jobId, String worker, int attempt) {

    public JobStart {
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(worker, "worker");
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt " + attempt + " < 1");
        }
    }
}
