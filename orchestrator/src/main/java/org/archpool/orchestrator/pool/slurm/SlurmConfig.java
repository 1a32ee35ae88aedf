package org.archpool.orchestrator.pool.slurm;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How workers are started under Slurm.
 *
 * @param srun        the {@code srun} program (a name looked up on the PATH, or a path)
 * @param scancel     the {@code scancel} program
 * @param squeue      the {@code squeue} program
 * @param sinfo       the {@code sinfo} program, which says whether a node is lost
 * @param allocation  the job id of the allocation the coordinator runs in ({@code SLURM_JOB_ID}): workers are
 *                    steps of it; null: each worker is a job of its own
 * @param partition   the partition to run workers in; null: Slurm's default (or the allocation's)
 * @param extraArgs   more {@code srun} arguments, passed through as they are (e.g. {@code --mem-per-cpu=2G})
 * @param cpusPerTask CPUs each worker asks for ({@code --cpus-per-task}), which is also the {@code K} of its
 *                    builds' {@code cmake --build --parallel K}
 * @param buildTag    unique to this build: names every worker's job or step ({@code archpool.TAG.w1}), so
 *                    that exactly these can be cancelled
 * @param user        the user whose jobs are cancelled by name
 */
public record SlurmConfig(String srun, String scancel, String squeue, String sinfo, String allocation,
                          String partition, List<String> extraArgs, int cpusPerTask, String buildTag, String user) {

    /** The environment variable Slurm sets in an allocation (sbatch, salloc) to its job id. */
    public static final String JOB_ID_VARIABLE = "SLURM_JOB_ID";

    public SlurmConfig {
        Objects.requireNonNull(srun, "srun");
        Objects.requireNonNull(scancel, "scancel");
        Objects.requireNonNull(squeue, "squeue");
        Objects.requireNonNull(sinfo, "sinfo");
        extraArgs = List.copyOf(extraArgs);
        Objects.requireNonNull(buildTag, "buildTag");
        Objects.requireNonNull(user, "user");
        if (cpusPerTask < 1) {
            throw new IllegalArgumentException("cpusPerTask must be at least 1");
        }
        if (allocation != null && allocation.isBlank()) {
            allocation = null;
        }
    }

    /** Slurm's programs from the PATH; inside an allocation when {@code environment} names one. */
    public static SlurmConfig of(Map<String, String> environment, String partition, List<String> extraArgs,
                                 int cpusPerTask, String buildTag, String user) {
        return new SlurmConfig("srun", "scancel", "squeue", "sinfo", environment.get(JOB_ID_VARIABLE), partition,
                extraArgs, cpusPerTask, buildTag, user);
    }

    /** Whether workers are steps of the coordinator's allocation (rather than jobs of their own). */
    public boolean inAllocation() {
        return allocation != null;
    }

    /** The job (or step) name of worker {@code workerId}. */
    public String stepName(String workerId) {
        return "archpool." + buildTag + "." + workerId;
    }
}
