package org.archpool.orchestrator.pool;

import org.archpool.worker.exec.ProcessTreeKiller;

/**
 * What a {@link ProcessWorker} needs to know about where its process runs: how to stop it with everything it
 * started, and what the system that ran it said when it ended. A worker JVM on this machine is a local process
 * tree ({@link #LOCAL}); a worker under Slurm is an {@code srun} here and a job step on some node.
 */
public interface ProcessControl {

    /** Kills the worker's process and everything it started, wherever they run; returns once that is done. */
    void kill(Process process);

    /**
     * What the system that ran the worker said about its end (e.g. Slurm's messages), as one sentence to append
     * to a death's reason; empty when it said nothing. Called once the process has ended or been killed.
     */
    default String deathNotes() {
        return "";
    }

    /** A process tree on this machine. */
    ProcessControl LOCAL = process -> ProcessTreeKiller.kill(process.toHandle());
}
