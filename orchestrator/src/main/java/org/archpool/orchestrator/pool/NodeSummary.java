package org.archpool.orchestrator.pool;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.List;

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

    /**
     * One sentence naming the nodes that were lost or avoided, for the end of a build ({@code nodes lost during the
     * build: node2 (Slurm says down* (Not responding)); no more workers were started on node2, node3 (why: pool.nodes
     * in the report)}); null when there were none.
     */
    public static String line(List<NodeSummary> nodes) {
        List<String> lost = nodes.stream().filter(NodeSummary::lost)
                .map(n -> n.node() + " (Slurm says " + n.slurmState() + ")").toList();
        List<String> avoided = nodes.stream().filter(n -> n.avoided() != null).map(NodeSummary::node).toList();
        if (lost.isEmpty() && avoided.isEmpty()) {
            return null;
        }
        List<String> parts = new ArrayList<>();
        if (!lost.isEmpty()) {
            parts.add("nodes lost during the build: " + String.join(", ", lost));
        }
        if (!avoided.isEmpty()) {
            parts.add("no more workers were started on " + String.join(", ", avoided));
        }
        return String.join("; ", parts) + " (why: pool.nodes in the report)";
    }
}
