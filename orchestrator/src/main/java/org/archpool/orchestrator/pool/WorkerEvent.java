package org.archpool.orchestrator.pool;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A worker's start or death, for the report.
 *
 * @param event  {@code started}, {@code died}, {@code recycled} or {@code failed_to_start}
 * @param atMs   when, in ms since the pool started
 * @param startMs for {@code started}: how long the worker took from launch to its {@code hello}, in ms
 * @param cause  for {@code died} and {@code failed_to_start}: the category, one of {@link WorkerFailure}'s
 *               wire names ({@code start}, {@code exit}, {@code hang}, {@code protocol}, {@code io},
 *               {@code no_answer}, {@code shutdown})
 * @param reason why it died, did not start or was recycled, as a sentence
 * @param host   for {@code started} of a worker process: the host it said hello from (under Slurm, its node)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record WorkerEvent(String worker, String event, Long pid, long atMs, Long startMs, String cause,
                          String reason, String host) {

    /** An event with no host. */
    public WorkerEvent(String worker, String event, Long pid, long atMs, Long startMs, String cause, String reason) {
        this(worker, event, pid, atMs, startMs, cause, reason, null);
    }

    /** An event that is not a start: no start time. */
    public WorkerEvent(String worker, String event, Long pid, long atMs, String cause, String reason) {
        this(worker, event, pid, atMs, null, cause, reason, null);
    }
}
