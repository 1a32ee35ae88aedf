package org.archpool.orchestrator.pool;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A worker's start or death, for the report. Made by the named factories, one per {@code event}.
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

    /** A worker said hello {@code startMs} after its launch; {@code pid} and {@code host} are null in thread mode. */
    public static WorkerEvent started(String worker, Long pid, long atMs, long startMs, String host) {
        return new WorkerEvent(worker, "started", pid, atMs, startMs, null, null, host);
    }

    /** A worker that had started is gone. */
    public static WorkerEvent died(String worker, Long pid, long atMs, WorkerFailure cause, String reason) {
        return new WorkerEvent(worker, "died", pid, atMs, null, cause.wireName(), reason, null);
    }

    /** A worker was shut down after its share of jobs. */
    public static WorkerEvent recycled(String worker, Long pid, long atMs, String reason) {
        return new WorkerEvent(worker, "recycled", pid, atMs, null, null, reason, null);
    }

    /** A worker could not be started, or did not say hello properly. */
    public static WorkerEvent failedToStart(String worker, long atMs, WorkerFailure cause, String reason) {
        return new WorkerEvent(worker, "failed_to_start", null, atMs, null, cause.wireName(), reason, null);
    }
}
