package org.archpool.orchestrator.pool.slurm;

/** Cancels a worker's Slurm job or step by its name, whatever state it is in (pending or running). */
@FunctionalInterface
public interface StepCanceller {

    /**
     * Cancels the job or step named {@code stepName}; returns when Slurm has taken the request. Never throws:
     * what goes wrong is logged (the caller kills {@code srun} as well).
     */
    void cancel(String stepName);
}
