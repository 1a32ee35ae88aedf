package org.archpool.orchestrator.pool;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The end-of-build sentence about lost and avoided nodes. */
class NodeSummaryTest {

    private static NodeSummary fine(String node) {
        return new NodeSummary(node, 2, 0, 0, null, false, null);
    }

    @Test
    void nodesThatWereNeitherLostNorAvoidedGiveNoLine() {
        assertThat(NodeSummary.line(List.of())).isNull();
        assertThat(NodeSummary.line(List.of(fine("node1"), new NodeSummary("node2", 1, 1, 0, "idle", false, null))))
                .isNull();
    }

    @Test
    void aLostNodeIsNamedWithWhatSlurmSaidAndTheAvoidedNodesAfter() {
        String line = NodeSummary.line(List.of(fine("node1"),
                new NodeSummary("node2", 2, 2, 0, "down* (Not responding)", true, "Slurm says it is down*"),
                new NodeSummary("node3", 0, 0, 2, null, false, "2 worker starts in a row failed there")));
        assertThat(line).isEqualTo("nodes lost during the build: node2 (Slurm says down* (Not responding)); no more"
                + " workers were started on node2, node3 (why: pool.nodes in the report)");
    }

    @Test
    void anAvoidedNodeAloneIsNamed() {
        assertThat(NodeSummary.line(List.of(new NodeSummary("node3", 0, 0, 2, null, false, "why"))))
                .isEqualTo("no more workers were started on node3 (why: pool.nodes in the report)");
    }
}
