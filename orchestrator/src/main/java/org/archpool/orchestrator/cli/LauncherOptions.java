package org.archpool.orchestrator.cli;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.archpool.orchestrator.pool.PoolMode;
import org.archpool.orchestrator.pool.slurm.SlurmConfig;
import org.archpool.orchestrator.pool.slurm.SrunArguments;
import org.archpool.orchestrator.tool.ToolOutput;
import org.archpool.orchestrator.tool.ToolRunner;
import picocli.CommandLine.Option;

/** Where workers run: on this machine, or as Slurm job steps. */
public final class LauncherOptions {

    /** {@code --launcher}. */
    public enum Launcher {
        LOCAL, SLURM
    }

    /** The start timeout under Slurm, where a worker's job may wait in the queue before it starts. */
    static final Duration SLURM_START_TIMEOUT = Duration.ofMinutes(5);

    @Option(names = "--launcher", paramLabel = "local|slurm", defaultValue = "local",
            description = "local: worker JVMs on this machine (default); slurm: each worker is a Slurm job step"
                    + " started with srun, in this allocation when SLURM_JOB_ID is set, else a job of its own"
                    + " (docs/slurm.md).")
    Launcher launcher;

    @Option(names = "--partition", paramLabel = "NAME",
            description = "With --launcher slurm: the partition workers run in (default: Slurm's default, or the"
                    + " allocation's).")
    String partition;

    @Option(names = "--srun-arg", paramLabel = "ARG",
            description = "With --launcher slurm: one more argument for every worker's srun, e.g."
                    + " --srun-arg=--mem-per-cpu=2G; repeat it for more.")
    List<String> srunArgs = new ArrayList<>();

    boolean slurm() {
        return launcher == Launcher.SLURM;
    }

    /** Refuses combinations that cannot work, each with what to do instead. */
    void check(PoolMode mode) throws UsageException {
        if (!slurm()) {
            if (partition != null || !srunArgs.isEmpty()) {
                throw new UsageException((partition != null ? "--partition" : "--srun-arg") + " applies to Slurm"
                        + " workers only; add --launcher slurm, or leave it out to run workers on this machine");
            }
            return;
        }
        if (mode == PoolMode.THREAD) {
            throw new UsageException("--launcher slurm starts worker processes as Slurm job steps, so it cannot be"
                    + " combined with --mode thread; leave out --mode (or use --mode process)");
        }
        if (partition != null && (partition.isBlank() || partition.chars().anyMatch(Character::isWhitespace))) {
            throw new UsageException("--partition '" + partition + "' is not a partition name; give one that"
                    + " 'sinfo --summarize' lists, or leave --partition out for Slurm's default");
        }
        String refusal = SrunArguments.refusal(srunArgs);
        if (refusal != null) {
            throw new UsageException(refusal + "; leave it out");
        }
    }

    /** Makes sure {@code srun} can be run here at all; a missing one is a clear error, not a crash per worker. */
    static void requireSrun(ToolRunner tools) throws UsageException {
        ToolOutput out = tools.run(List.of("srun", "--version"), Duration.ofSeconds(10));
        if (out.status() != ToolOutput.Status.EXITED || out.exitCode() != 0) {
            throw new UsageException("--launcher slurm needs Slurm's srun, but " + (out.problem() != null
                    ? out.problem() : "'srun --version' exited with status " + out.exitCode() + ": "
                    + out.stderr().strip())
                    + "; run archpool on a node of the cluster (a login node, or inside sbatch/salloc) where Slurm's"
                    + " client commands are installed, or use --launcher local");
        }
    }

    /**
     * {@code -j}'s default: under Slurm inside an allocation, its number of tasks ({@code SLURM_NTASKS}, as
     * {@code sbatch --ntasks} set it); otherwise this machine's CPUs.
     */
    int defaultJobs(Map<String, String> env, int cpus) {
        return slurm() && env.containsKey(SlurmConfig.JOB_ID_VARIABLE) ? positive(env.get("SLURM_NTASKS"), cpus) : cpus;
    }

    /**
     * {@code K} under Slurm: {@code --build-parallelism}, else the allocation's {@code SLURM_CPUS_PER_TASK}
     * (sbatch {@code --cpus-per-task}), else 1. Each worker's step asks for K CPUs and its builds use K.
     */
    static int slurmCpusPerTask(int buildParallelism, Map<String, String> env) {
        return buildParallelism > 0 ? buildParallelism : positive(env.get("SLURM_CPUS_PER_TASK"), 1);
    }

    SlurmConfig slurmConfig(Map<String, String> env, int cpusPerTask) {
        String user = env.getOrDefault("USER", System.getProperty("user.name"));
        byte[] tag = new byte[4];
        new SecureRandom().nextBytes(tag);
        return SlurmConfig.of(env, partition, srunArgs, cpusPerTask, HexFormat.of().formatHex(tag), user);
    }

    private static int positive(String value, int otherwise) {
        try {
            int n = value == null ? otherwise : Integer.parseInt(value.strip());
            return n > 0 ? n : otherwise;
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }
}
