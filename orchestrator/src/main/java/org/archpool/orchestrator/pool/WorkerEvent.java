package org.archpool.orchestrator.pool;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A worker's start or death, for the report.
 *
 * @param event  {@code started}, {@code died}, {@code recycled} or {@code failed_to_start}
 * @param reason why it died or did not start
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record WorkerEvent(String worker, String event, Long pid, long atMs, String reason) {
}
