package org.archpool.orchestrator.pool.slurm;

import java.util.List;
import java.util.Optional;
import org.archpool.orchestrator.tool.ToolRunner;

/** A node's state from {@code sinfo --noheader --Node --nodes=NODE --format=%T|%E}. */
public final class Sinfo implements NodeStates {

    private final String sinfo;
    private final ToolRunner runner;

    /** @param sinfo the {@code sinfo} program, a name looked up on the PATH or a path */
    public Sinfo(String sinfo, ToolRunner runner) {
        this.sinfo = sinfo;
        this.runner = runner;
    }

    @Override
    public Optional<NodeState> of(String node) {
        // one line per partition the node is in; its state is the same in each
        List<String> command = List.of(sinfo, "--noheader", "--Node", "--nodes=" + node, "--format=%T|%E");
        return SlurmCommand.stdout(runner, command)
                .flatMap(out -> out.lines().map(NodeState::parse).filter(s -> s != null).findFirst());
    }
}
