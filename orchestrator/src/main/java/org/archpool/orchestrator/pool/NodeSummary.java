package org.archpool.orchestrator.pool;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * What a build saw of one node its workers ran on or tried to start on (under Slurm), for the report.
 *
 * @param node           the node's name, as Slurm and the worker's {@code hello} give it
 * @param workersStarted workers that said hello from it
 * @param workerDeaths   workers that died on it (crashed, hung, lost), not counting those shut down or recycled
 * @param failedStarts   worker starts that Slurm's words tie to it and that failed
 * @param slurmState     the node's state as Slurm gave it when archpool last asked ({@code sinfo}'s state, with
 *                       its reason), e.g. {@code down* (Not responding)}; absent when archpool never asked
 * @param lost           whether Slurm said the node stopped responding or went down while the build ran on it
 * @param avoided        why no worker was started on it for the rest of the build; absent when it was not avoided
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeSummary(String node, int workersStarted, int workerDeaths, int failedStarts, String slurmState,
                          boolean lost, String avoided) {
}
