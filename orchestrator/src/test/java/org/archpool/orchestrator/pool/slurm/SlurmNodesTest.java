package org.archpool.orchestrator.pool.slurm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.archpool.orchestrator.pool.NodeSummary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which Slurm nodes a build keeps its workers off, with Slurm's answers about nodes faked. */
class SlurmNodesTest {

    private static final String TASK_LAUNCH_FAILED =
            "srun: error: Task launch for StepId=4.0 failed on node node2: Communication connection failure";
    private static final String NODE_FAILURE = "srun: error: Node failure on node2";
    private static final String TASK_EXITED = "srun: error: node3: task 0: Exited with exit code 2";

    /** A start failure's message as archpool writes it, with what Slurm said about node {@code node}. */
    private static String startFailure(String node) {
        return "worker w3 (pid 2457): worker closed its output; it exited with status 1; Slurm said: srun: error:"
                + " Task launch for StepId=12.0 failed on node " + node + ": Communication connection failure;"
                + " srun: error: Application launch failed: Communication connection failure (Slurm step"
                + " archpool.21db44d7.w3; its stderr is in /x/w3.stderr.log, srun's in /x/w3.srun.log)";
    }

    /** Slurm's states, which the test changes between calls, and the nodes it was asked about. */
    private static final class FakeStates implements NodeStates {
        final Map<String, NodeState> states = new HashMap<>();
        final List<String> asked = new ArrayList<>();

        @Override
        public Optional<NodeState> of(String node) {
            asked.add(node);
            return Optional.ofNullable(states.get(node));
        }

        FakeStates set(String node, String sinfoLine) {
            states.put(node, NodeState.parse(sinfoLine));
            return this;
        }
    }

    private static final NodeStates SLURM_KNOWS_NOTHING = node -> Optional.empty();

    private static NodeSummary summaryOf(SlurmNodes nodes, String node) {
        return nodes.summary().stream().filter(s -> s.node().equals(node)).findFirst().orElseThrow();
    }

    @Test
    void theNodeIsNamedInATaskLaunchFailure() {
        assertThat(SlurmNodes.nodeIn(TASK_LAUNCH_FAILED)).isEqualTo("node2");
    }

    @Test
    void theNodeIsNamedInANodeFailure() {
        assertThat(SlurmNodes.nodeIn(NODE_FAILURE)).isEqualTo("node2");
    }

    @Test
    void theNodeIsNamedInATaskThatExited() {
        assertThat(SlurmNodes.nodeIn(TASK_EXITED)).isEqualTo("node3");
        assertThat(SlurmNodes.nodeIn("Slurm said: slurmstepd-node3: error: execve(): nosuchprog: No such file or"
                + " directory; " + TASK_EXITED)).isEqualTo("node3");
    }

    @Test
    void theNodeIsFoundInAStartFailureAsArchpoolWritesIt() {
        assertThat(SlurmNodes.nodeIn(startFailure("node2"))).isEqualTo("node2");
        assertThat(SlurmNodes.nodeIn(startFailure("gpu-a100-07"))).isEqualTo("gpu-a100-07");
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {
        "srun: job 70 queued and waiting for resources",
        "srun: error: Unable to allocate resources: Invalid partition name specified",
        "Slurm said: srun: error: Unable to allocate resources: Invalid partition name specified",
        "slurmstepd-node3: error: execve(): nosuchprog: No such file or directory",
        "worker w1 closed its output (it says: Unrecognized VM option 'Bogus')",
        ""})
    void noNodeIsNamedInOtherWords(String words) {
        assertThat(SlurmNodes.nodeIn(words)).isNull();
    }

    @Test
    void noNodeIsNamedInNothing() {
        assertThat(SlurmNodes.nodeIn(null)).isNull();
    }

    @Test
    void twoFailedStartsInARowOnANodeAvoidIt() {
        FakeStates slurm = new FakeStates();
        SlurmNodes nodes = new SlurmNodes(slurm);
        assertThat(nodes.startFailed(startFailure("node2"))).as("the first failed start: node2's").isTrue();
        assertThat(nodes.avoided()).as("after one failed start").isEmpty();
        assertThat(slurm.asked).as("Slurm is asked about the node").containsExactly("node2");
        assertThat(nodes.startFailed(startFailure("node2"))).as("the second failed start: node2's").isTrue();
        assertThat(nodes.avoided()).as("after the second failed start in a row").containsExactly("node2");
        assertThat(nodes.startFailed(startFailure("node2"))).as("avoided already, still node2's").isTrue();
        assertThat(nodes.avoided()).as("listed once").containsExactly("node2");
        NodeSummary node2 = summaryOf(nodes, "node2");
        assertThat(node2.failedStarts()).isEqualTo(3);
        assertThat(node2.avoided()).contains("2 worker starts in a row failed there")
                .contains("Communication connection failure");
        assertThat(node2.lost()).isFalse();
    }

    @Test
    void aStartThatSucceedsInBetweenStartsTheCountAgain() {
        SlurmNodes nodes = new SlurmNodes(SLURM_KNOWS_NOTHING);
        assertThat(nodes.startFailed(startFailure("node2"))).isTrue();
        assertThat(nodes.avoided()).isEmpty();
        nodes.started("node2");
        assertThat(nodes.startFailed(startFailure("node2"))).as("the first failure since the start").isTrue();
        assertThat(nodes.avoided()).as("one failure in a row since the start").isEmpty();
        assertThat(nodes.startFailed(startFailure("node2"))).isTrue();
        assertThat(nodes.avoided()).as("two failures in a row since the start").containsExactly("node2");
        assertThat(summaryOf(nodes, "node2").failedStarts()).isEqualTo(3);
    }

    @Test
    void aStartOnAnotherNodeDoesNotStartTheCountAgain() {
        SlurmNodes nodes = new SlurmNodes(SLURM_KNOWS_NOTHING);
        assertThat(nodes.startFailed(startFailure("node2"))).isTrue();
        assertThat(nodes.avoided()).isEmpty();
        nodes.started("node5");
        assertThat(nodes.startFailed(startFailure("node2"))).isTrue();
        assertThat(nodes.avoided()).containsExactly("node2");
    }

    @Test
    void failedStartsOnDifferentNodesDoNotAddUp() {
        SlurmNodes nodes = new SlurmNodes(SLURM_KNOWS_NOTHING);
        assertThat(nodes.startFailed(startFailure("node2"))).as("names node2").isTrue();
        assertThat(nodes.startFailed(startFailure("node3"))).as("names node3").isTrue();
        assertThat(nodes.startFailed(TASK_EXITED.replace("node3", "node4"))).as("names node4").isTrue();
        assertThat(nodes.avoided()).isEmpty();
        assertThat(nodes.summary()).extracting(NodeSummary::failedStarts).containsExactly(1, 1, 1);
    }

    @Test
    void aFailedStartThatNamesNoNodeCountsAgainstNoneAndAsksSlurmNothing() {
        FakeStates slurm = new FakeStates();
        SlurmNodes nodes = new SlurmNodes(slurm);
        for (int i = 0; i < 3; i++) {
            assertThat(nodes.startFailed("srun: error: Unable to allocate resources: Invalid partition name"
                    + " specified")).as("no node named: another start would fail the same").isFalse();
        }
        assertThat(nodes.startFailed(null)).isFalse();
        assertThat(nodes.avoided()).isEmpty();
        assertThat(nodes.summary()).isEmpty();
        assertThat(slurm.asked).isEmpty();
    }

    @Test
    void aFailedStartOnANodeSlurmCallsLostAvoidsItAtOnce() {
        FakeStates slurm = new FakeStates().set("node2", "down*|Not responding");
        SlurmNodes nodes = new SlurmNodes(slurm);
        assertThat(nodes.startFailed(startFailure("node2"))).isTrue();
        assertThat(slurm.asked).containsExactly("node2");
        assertThat(nodes.avoided()).as("after the first failed start").containsExactly("node2");
        assertThat(summaryOf(nodes, "node2").lost()).isTrue();
        assertThat(summaryOf(nodes, "node2").avoided()).contains("Slurm says it is down* (Not responding)");
    }

    @Test
    void aDeathOnANodeSlurmCallsDownAvoidsItAtOnceAndMarksItLost() {
        FakeStates slurm = new FakeStates().set("node2", "down*|Not responding");
        SlurmNodes nodes = new SlurmNodes(slurm);
        nodes.started("node2");
        nodes.died("node2", "worker w1 stopped answering");
        assertThat(slurm.asked).containsExactly("node2");
        assertThat(nodes.avoided()).containsExactly("node2");
        NodeSummary node2 = summaryOf(nodes, "node2");
        assertThat(node2.lost()).isTrue();
        assertThat(node2.workerDeaths()).isEqualTo(1);
        assertThat(node2.slurmState()).isEqualTo("down* (Not responding)");
        assertThat(node2.avoided()).contains("Slurm says it is down* (Not responding)")
                .contains("worker w1 stopped answering");

        nodes.died("node2", "another worker");

        assertThat(nodes.avoided()).as("avoided already: listed once").containsExactly("node2");
        NodeSummary again = summaryOf(nodes, "node2");
        assertThat(again.workerDeaths()).as("the death still counts").isEqualTo(2);
        assertThat(again.lost()).isTrue();
        assertThat(again.avoided()).as("keeps its first reason").contains("worker w1 stopped answering")
                .doesNotContain("another worker");
    }

    @Test
    void aDeathOnANodeThatStillRespondsDoesNotAvoidIt() {
        FakeStates slurm = new FakeStates().set("node2", "allocated|none");
        SlurmNodes nodes = new SlurmNodes(slurm);
        nodes.started("node2");
        nodes.died("node2", "worker w1 exited with status 137");
        assertThat(nodes.avoided()).as("after the first death").isEmpty();
        nodes.died("node2", "worker w1.2 exited with status 137");
        assertThat(nodes.avoided()).as("after the second death").isEmpty();
        assertThat(slurm.asked).containsExactly("node2", "node2");
        NodeSummary node2 = summaryOf(nodes, "node2");
        assertThat(node2.lost()).isFalse();
        assertThat(node2.avoided()).isNull();
        assertThat(node2.workerDeaths()).isEqualTo(2);
        assertThat(node2.slurmState()).isEqualTo("allocated");
    }

    @Test
    void aDeathOnNoKnownNodeIsIgnored() {
        FakeStates slurm = new FakeStates();
        SlurmNodes nodes = new SlurmNodes(slurm);
        nodes.died(null, "worker w1 exited");
        assertThat(slurm.asked).isEmpty();
        assertThat(nodes.avoided()).isEmpty();
        assertThat(nodes.summary()).isEmpty();
    }

    @Test
    void eachAvoidedNodeIsListedOnceWhateverMadeItAvoided() {
        FakeStates slurm = new FakeStates();
        SlurmNodes nodes = new SlurmNodes(slurm);
        nodes.started("node1");
        nodes.startFailed(startFailure("node5"));
        nodes.startFailed(startFailure("node5"));
        nodes.started("node9");
        slurm.set("node9", "down*|Not responding");
        nodes.died("node9", "worker w2 stopped answering");
        assertThat(nodes.avoided()).containsExactlyInAnyOrder("node5", "node9");
        nodes.startFailed(NODE_FAILURE.replace("node2", "node0"));
        nodes.started("node1");
        nodes.startFailed(NODE_FAILURE.replace("node2", "node0"));
        nodes.startFailed(startFailure("node5"));
        nodes.died("node9", "worker w2.2 stopped answering");
        assertThat(nodes.avoided()).containsExactlyInAnyOrder("node5", "node9", "node0");
        assertThat(nodes.avoided()).as("asked again").containsExactlyInAnyOrder("node5", "node9", "node0");
    }

    @Test
    void theSummaryAsksSlurmAgainAboutNodesWhereWorkersDiedThatWereNotLost() {
        FakeStates slurm = new FakeStates().set("node2", "allocated*|none").set("node3", "idle|none")
                .set("node4", "mixed|");
        SlurmNodes nodes = new SlurmNodes(slurm);
        nodes.started("node2");
        nodes.started("node3");
        nodes.started("node3");
        nodes.started("node4");
        nodes.startFailed(startFailure("node4"));
        nodes.died("node2", "worker w1 stopped answering");
        assertThat(nodes.avoided()).as("not responding: lost").containsExactly("node2");
        nodes.died("node3", "worker w2 exited with status 137");
        assertThat(nodes.avoided()).as("node3 is idle").containsExactly("node2");
        slurm.asked.clear();
        slurm.set("node3", "down*|Not responding"); // declared lost only seconds after its worker was found dead

        List<NodeSummary> summary = nodes.summary();

        assertThat(slurm.asked).as("node2 is lost already, no worker died on node4").containsExactly("node3");
        assertThat(summary).containsExactlyInAnyOrder(
                new NodeSummary("node2", 1, 1, 0, "allocated*", true,
                        "Slurm says it is allocated* (worker death: worker w1 stopped answering)"),
                new NodeSummary("node3", 2, 1, 0, "down* (Not responding)", true,
                        "Slurm says it is down* (Not responding) (workers died there)"),
                new NodeSummary("node4", 1, 0, 1, "mixed", false, null));
        assertThat(nodes.avoided()).containsExactlyInAnyOrder("node2", "node3");
        slurm.asked.clear();
        nodes.summary();
        assertThat(slurm.asked).as("every node with deaths is lost now").isEmpty();
    }

    @Test
    void theSummaryOfANodeSlurmWasNeverAskedAboutHasNoState() {
        SlurmNodes nodes = new SlurmNodes(new FakeStates());
        nodes.started("node7");
        assertThat(nodes.summary()).containsExactly(new NodeSummary("node7", 1, 0, 0, null, false, null));
    }

    @Test
    void aSlurmThatCannotBeAskedNeverMarksANodeLost() {
        SlurmNodes nodes = new SlurmNodes(SLURM_KNOWS_NOTHING);
        nodes.started("node2");
        nodes.died("node2", "worker w1 stopped answering");
        nodes.died("node2", "worker w1.2 stopped answering");
        assertThat(nodes.avoided()).as("after two deaths").isEmpty();
        assertThat(nodes.startFailed(NODE_FAILURE)).as("Slurm's words name node2").isTrue();
        assertThat(nodes.avoided()).isEmpty();
        assertThat(nodes.summary()).containsExactly(new NodeSummary("node2", 1, 2, 1, null, false, null));
    }

    @Test
    void aNodeSlurmCallsLostAfterItWasAvoidedForItsStartsIsMarkedLostAndKeepsItsFirstReason() {
        FakeStates slurm = new FakeStates();
        SlurmNodes nodes = new SlurmNodes(slurm);
        assertThat(nodes.startFailed(startFailure("node2"))).isTrue();
        assertThat(nodes.avoided()).isEmpty();
        assertThat(nodes.startFailed(startFailure("node2"))).isTrue();
        assertThat(nodes.avoided()).containsExactly("node2");
        slurm.set("node2", "down*|Not responding");
        assertThat(nodes.startFailed(startFailure("node2"))).as("avoided already, still node2's").isTrue();
        NodeSummary node2 = summaryOf(nodes, "node2");
        assertThat(node2.lost()).isTrue();
        assertThat(node2.slurmState()).isEqualTo("down* (Not responding)");
        assertThat(node2.avoided()).startsWith("2 worker starts in a row failed there");
        assertThat(nodes.avoided()).containsExactly("node2");
    }

    @Test
    void aStartFromNoKnownNodeIsNotRecorded() {
        SlurmNodes nodes = new SlurmNodes(SLURM_KNOWS_NOTHING);
        nodes.started(null);
        assertThat(nodes.summary()).isEmpty();
    }
}
