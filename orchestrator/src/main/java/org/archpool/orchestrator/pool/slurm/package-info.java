/**
 * Workers as Slurm job steps: each worker JVM is started by {@code srun} on a node of the cluster, and the
 * JSON-lines protocol goes through {@code srun}'s standard streams unchanged.
 */
package org.archpool.orchestrator.pool.slurm;
