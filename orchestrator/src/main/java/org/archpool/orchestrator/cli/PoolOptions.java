package org.archpool.orchestrator.cli;

import java.time.Duration;
import org.archpool.orchestrator.pool.PoolMode;
import picocli.CommandLine.Option;

/** How many workers, of which kind, and how they treat jobs. */
public final class PoolOptions {

    @Option(names = {"-j", "--jobs"}, paramLabel = "N",
            description = "Jobs to run at once (default: the number of CPUs).")
    Integer jobs;

    @Option(names = "--mode", paramLabel = "process|thread", defaultValue = "process",
            description = "process: one worker JVM per slot (default); thread: slots are threads of archpool"
                    + " itself. Either way every compiler runs with no GPU visible.")
    PoolMode mode;

    @Option(names = "--retries", paramLabel = "N", defaultValue = "1",
            description = "Times a job is retried on a fresh worker when its worker dies (default: ${DEFAULT-VALUE}).")
    int retries;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Time limit of each job whose manifest entry sets none, e.g. 10m (default: none).")
    Duration timeout;

    @Option(names = {"-k", "--keep-going"},
            description = "Keep starting jobs after one fails (default: stop starting new ones; all are reported).")
    boolean keepGoing;

    int jobs(int cpus) throws UsageException {
        int n = jobs == null ? cpus : jobs;
        if (n < 1) {
            throw new UsageException("-j/--jobs must be at least 1 (got " + n + "); use -j 1 to build one job at a time");
        }
        return n;
    }

    int retries() throws UsageException {
        if (retries < 0) {
            throw new UsageException("--retries must be 0 or more (got " + retries + ")");
        }
        return retries;
    }
}
