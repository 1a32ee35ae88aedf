package org.archpool.orchestrator.pool.slurm;

import java.util.List;
import java.util.Optional;
import org.archpool.orchestrator.tool.ToolOutput;
import org.archpool.orchestrator.tool.ToolRunner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A node's state from {@code sinfo --noheader --Node --nodes=NODE --format=%T|%E}. */
public final class Sinfo implements NodeStates {

    private static final Logger LOG = LoggerFactory.getLogger(Sinfo.class);

    private final String sinfo;
    private final ToolRunner runner;

    /** @param sinfo the {@code sinfo} program, a name looked up on the PATH or a path */
    public Sinfo(String sinfo, ToolRunner runner) {
        this.sinfo = sinfo;
        this.runner = runner;
    }

    @Override
    public Optional<NodeState> of(String node) {
        List<String> command = List.of(sinfo, "--noheader", "--Node", "--nodes=" + node, "--format=%T|%E");
        ToolOutput out = runner.run(command, Scancel.TIMEOUT);
        if (out.status() != ToolOutput.Status.EXITED || out.exitCode() != 0) {
            LOG.warn("{}: {}", String.join(" ", command), out.status() != ToolOutput.Status.EXITED ? out.problem()
                    : "exit status " + out.exitCode() + ": " + out.stderr().strip());
            return Optional.empty();
        }
        // one line per partition the node is in; its state is the same in each
        return out.stdout().lines().map(NodeState::parse).filter(s -> s != null).findFirst();
    }
}
