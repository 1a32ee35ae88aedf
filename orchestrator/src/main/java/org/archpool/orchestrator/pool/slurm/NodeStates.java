package org.archpool.orchestrator.pool.slurm;

import java.util.Optional;

/** Asks Slurm what state a node is in. */
@FunctionalInterface
public interface NodeStates {

    /**
     * The node's state now, or empty when Slurm could not be asked or does not know the node. Never throws: what
     * goes wrong is logged.
     */
    Optional<NodeState> of(String node);
}
