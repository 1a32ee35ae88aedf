package org.archpool.orchestrator.cli;

import java.time.Duration;
import org.archpool.orchestrator.pool.PoolMode;
import org.archpool.orchestrator.schedule.JobOrder;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** How many workers, of which kind, and how they treat jobs. */
public final class PoolOptions {

    @Option(names = {"-j", "--jobs"}, paramLabel = "N",
            description = "Jobs to run at once (default: the number of CPUs; with --launcher slurm inside an"
                    + " allocation, its SLURM_NTASKS).")
    Integer jobs;

    @Option(names = "--mode", paramLabel = "process|thread", defaultValue = "process",
            description = "process: one worker JVM per slot (default); thread: slots are threads of archpool"
                    + " itself. Either way every compiler runs with no GPU visible.")
    PoolMode mode;

    @Option(names = "--build-parallelism", paramLabel = "K",
            description = "K of each CMake job's 'cmake --build --parallel K' (default: the CPUs divided among the"
                    + " workers the build uses, at least 1). With --launcher slurm, each worker's step asks for K CPUs"
                    + " (default: the allocation's SLURM_CPUS_PER_TASK, else 1).")
    Integer buildParallelism;

    @Option(names = "--retries", paramLabel = "N", defaultValue = "1",
            description = "Times a job is retried on a fresh worker when its worker dies (default: ${DEFAULT-VALUE}).")
    int retries;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Time limit of each job whose manifest entry sets none, e.g. 10m (default: none).")
    Duration timeout;

    @Option(names = "--max-jobs-per-worker", paramLabel = "N", defaultValue = "0",
            description = "Replace a worker after it ran N jobs (default: never).")
    int maxJobsPerWorker;

    @Option(names = "--worker-start-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long a new worker may take to start and say hello before it counts as failed"
                    + " (default: 30s; 5m with --launcher slurm, where a worker may wait in Slurm's queue).")
    Duration workerStartTimeout;

    @Option(names = "--heartbeat-timeout", paramLabel = "DURATION", defaultValue = "10s",
            converter = DurationConverter.class,
            description = "How long a busy worker may stay silent (it reports every second) before it is declared"
                    + " hung, killed and replaced, and its job retried (default: ${DEFAULT-VALUE}).")
    Duration heartbeatTimeout;

    @Option(names = "--order", paramLabel = "fifo|longest-first", defaultValue = "longest-first",
            converter = JobOrderConverter.class,
            description = "Which queued job a free slot takes next: longest-first (default) runs the jobs that took"
                    + " longest last time first (their durations are kept in the cache folder, or beside the"
                    + " manifest in .archpool/durations), then jobs never seen, in the manifest's order; fifo keeps"
                    + " the manifest's order.")
    JobOrder order;

    @Option(names = "--no-configure-seed",
            description = "Configure every fresh CMake build tree from scratch. By default, the first configure of"
                    + " each toolchain (cmake, generator, compilers, architectures, environment) is kept as a seed,"
                    + " and later fresh build trees of that toolchain start from it, so that CMake identifies the"
                    + " compilers once. A seed holds toolchain state only, never a project's own cache variables.")
    boolean noConfigureSeed;

    /** {@code --order} as picocli reads it: {@code fifo} or {@code longest-first}. */
    static final class JobOrderConverter implements ITypeConverter<JobOrder> {
        @Override
        public JobOrder convert(String value) {
            try {
                return JobOrder.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** @param byDefault what {@code -j} is when it is not given */
    int jobs(int byDefault) throws UsageException {
        int n = jobs == null ? byDefault : jobs;
        if (n < 1) {
            throw new UsageException("-j/--jobs must be at least 1 (got " + n + "); use -j 1 to build one job at a time");
        }
        return n;
    }

    /** @return K, or 0 to share the CPUs out among the workers */
    int buildParallelism() throws UsageException {
        if (buildParallelism == null) {
            return 0;
        }
        if (buildParallelism < 1) {
            throw new UsageException("--build-parallelism must be at least 1 (got " + buildParallelism
                    + "); leave it out to share the CPUs among the workers");
        }
        return buildParallelism;
    }

    int maxJobsPerWorker() throws UsageException {
        if (maxJobsPerWorker < 0) {
            throw new UsageException("--max-jobs-per-worker must be 0 (never replace) or more (got " + maxJobsPerWorker
                    + ")");
        }
        return maxJobsPerWorker;
    }

    /** @param byDefault the launcher's default, when the option is not given */
    Duration workerStartTimeout(Duration byDefault) {
        return workerStartTimeout == null ? byDefault : workerStartTimeout;
    }

    Duration heartbeatTimeout() throws UsageException {
        if (heartbeatTimeout.toMillis() < 200) {
            throw new UsageException("--heartbeat-timeout must be at least 200ms (got " + heartbeatTimeout.toMillis()
                    + "ms): workers report once a second, less often than that under load");
        }
        return heartbeatTimeout;
    }

    int retries() throws UsageException {
        if (retries < 0) {
            throw new UsageException("--retries must be 0 or more (got " + retries + ")");
        }
        return retries;
    }
}
