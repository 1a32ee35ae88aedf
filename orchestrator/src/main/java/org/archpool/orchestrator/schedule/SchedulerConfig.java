package org.archpool.orchestrator.schedule;

import java.nio.file.Path;
import java.util.Objects;
import org.archpool.orchestrator.verify.Verification;
import org.archpool.protocol.Target;

/**
 * How the scheduler runs jobs.
 *
 * @param target            the architecture every job is built for
 * @param logDir            where each job's log file goes
 * @param defaultTimeoutMs  a job's time limit when its manifest entry sets none (0 = none)
 * @param buildParallelism  {@code K} of {@code cmake --build --parallel K}
 * @param retries           how many times a job whose worker failed is retried on a fresh worker
 * @param keepGoing         keep starting jobs after one did not succeed
 * @param verify            how the GPU code in each job's artifacts is judged
 */
public record SchedulerConfig(Target target, Path logDir, long defaultTimeoutMs, int buildParallelism,
                              int retries, boolean keepGoing, Verification verify) {

    /** With the default verification: {@code --verify strict}, hostcalls allowed. */
    public SchedulerConfig(Target target, Path logDir, long defaultTimeoutMs, int buildParallelism, int retries,
                           boolean keepGoing) {
        this(target, logDir, defaultTimeoutMs, buildParallelism, retries, keepGoing, Verification.DEFAULT);
    }

    public SchedulerConfig {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(logDir, "logDir");
        Objects.requireNonNull(verify, "verify");
        if (buildParallelism < 1 || retries < 0 || defaultTimeoutMs < 0) {
            throw new IllegalArgumentException("buildParallelism >= 1, retries >= 0 and defaultTimeoutMs >= 0");
        }
    }
}
