package org.archpool.orchestrator.pool.slurm;

import static org.archpool.orchestrator.pool.slurm.FakeTools.exited;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.archpool.orchestrator.tool.ToolOutput;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** How {@link Sinfo} asks Slurm for a node's state, with {@code sinfo} faked. */
class SinfoTest {

    @Test
    void theNodesStateIsAskedForWithItsReason() {
        FakeTools tools = new FakeTools(c -> exited(c, 0, "down*|Not responding\n", ""));
        assertThat(new Sinfo("/slurm/bin/sinfo", tools).of("node2"))
                .contains(new NodeState("down*", "Not responding"));
        assertThat(tools.commands).containsExactly(
                List.of("/slurm/bin/sinfo", "--noheader", "--Node", "--nodes=node2", "--format=%T|%E"));
        assertThat(tools.timeouts).containsOnly(SlurmCommand.TIMEOUT);
    }

    @Test
    void aNodeInSeveralPartitionsGivesItsFirstLine() {
        FakeTools tools = new FakeTools(c -> exited(c, 0, "\nmixed|\nmixed|\n", ""));
        assertThat(new Sinfo("sinfo", tools).of("node2")).contains(new NodeState("mixed", null));
    }

    @Test
    void aNodeSlurmDoesNotListHasNoState() {
        FakeTools tools = new FakeTools(c -> exited(c, 0, "", ""));
        assertThat(new Sinfo("sinfo", tools).of("node9")).isEmpty();
    }

    @Test
    void aFailingSinfoGivesNoState() {
        FakeTools tools = new FakeTools(c -> exited(c, 1, "down*|Not responding\n",
                "sinfo: error: Unable to contact slurm controller (connect failure)"));
        assertThat(new Sinfo("sinfo", tools).of("node2")).as("stdout of a failed sinfo is not trusted").isEmpty();
    }

    @ParameterizedTest(name = "sinfo {0}")
    @EnumSource(value = ToolOutput.Status.class, names = {"MISSING", "TIMED_OUT", "NOT_EXECUTABLE", "FAILED_TO_START"})
    void aSinfoThatDoesNotRunGivesNoState(ToolOutput.Status status) {
        FakeTools tools = new FakeTools(c -> new ToolOutput(c, status, null, "down*|Not responding\n", "", 0,
                "sinfo went wrong"));
        assertThat(new Sinfo("sinfo", tools).of("node2")).isEmpty();
    }
}
