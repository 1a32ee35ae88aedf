package org.archpool.orchestrator.schedule;

import java.nio.file.Path;
import java.util.Objects;
import org.archpool.orchestrator.cache.BuildCache;
import org.archpool.orchestrator.output.LogLayout;
import org.archpool.orchestrator.toolchain.JobPlanner;
import org.archpool.orchestrator.verify.ArtifactJudge;
import org.archpool.orchestrator.verify.ArtifactVerifier;
import org.archpool.orchestrator.verify.Verification;
import org.archpool.protocol.JobSpec;
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
 * @param planner           makes each job's steps concrete for {@code target} before it is sent
 * @param judge             decides whether the GPU code in a succeeded job's artifacts is what was asked for
 * @param maxLogBytes       the cap of each job's log ({@code --max-log-size}); null for none
 * @param cache             looks each job up before it is sent and stores what succeeded; null for none
 */
public record SchedulerConfig(Target target, Path logDir, long defaultTimeoutMs, int buildParallelism,
                              int retries, boolean keepGoing, JobPlanner planner, ArtifactJudge judge,
                              Long maxLogBytes, BuildCache cache) {

    /** {@code --max-log-size}'s default: 64 MiB. */
    public static final Long DEFAULT_MAX_LOG_BYTES = 64L << 20;

    /** With each job's log capped at {@link #DEFAULT_MAX_LOG_BYTES}. */
    public SchedulerConfig(Target target, Path logDir, long defaultTimeoutMs, int buildParallelism, int retries,
                           boolean keepGoing, JobPlanner planner, ArtifactJudge judge) {
        this(target, logDir, defaultTimeoutMs, buildParallelism, retries, keepGoing, planner, judge,
                DEFAULT_MAX_LOG_BYTES);
    }

    /** Without a cache. */
    public SchedulerConfig(Target target, Path logDir, long defaultTimeoutMs, int buildParallelism, int retries,
                           boolean keepGoing, JobPlanner planner, ArtifactJudge judge, Long maxLogBytes) {
        this(target, logDir, defaultTimeoutMs, buildParallelism, retries, keepGoing, planner, judge, maxLogBytes,
                null);
    }

    /** This configuration with each job's log capped at {@code bytes} (null: no cap). */
    public SchedulerConfig withMaxLogBytes(Long bytes) {
        return new SchedulerConfig(target, logDir, defaultTimeoutMs, buildParallelism, retries, keepGoing, planner,
                judge, bytes, cache);
    }

    /** This configuration with {@code cache} (null: none). */
    public SchedulerConfig withCache(BuildCache buildCache) {
        return new SchedulerConfig(target, logDir, defaultTimeoutMs, buildParallelism, retries, keepGoing, planner,
                judge, maxLogBytes, buildCache);
    }

    /** With the standard planner and the default verification: {@code --verify strict}, hostcalls allowed. */
    public SchedulerConfig(Target target, Path logDir, long defaultTimeoutMs, int buildParallelism, int retries,
                           boolean keepGoing) {
        this(target, logDir, defaultTimeoutMs, buildParallelism, retries, keepGoing, Verification.DEFAULT);
    }

    /** With the standard planner, judged by an {@link ArtifactVerifier} with {@code verification}. */
    public SchedulerConfig(Target target, Path logDir, long defaultTimeoutMs, int buildParallelism, int retries,
                           boolean keepGoing, Verification verification) {
        this(target, logDir, defaultTimeoutMs, buildParallelism, retries, keepGoing, JobPlanner.standard(),
                new ArtifactVerifier(verification));
    }

    public SchedulerConfig {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(logDir, "logDir");
        Objects.requireNonNull(planner, "planner");
        Objects.requireNonNull(judge, "judge");
        if (buildParallelism < 1 || retries < 0 || defaultTimeoutMs < 0) {
            throw new IllegalArgumentException("buildParallelism >= 1, retries >= 0 and defaultTimeoutMs >= 0");
        }
        if (maxLogBytes != null && maxLogBytes <= 0) {
            throw new IllegalArgumentException("maxLogBytes > 0, or null for no cap");
        }
    }

    /** A job's time limit: its own, else the default. */
    long timeoutMs(JobSpec job) {
        return job.timeoutMs() != null ? job.timeoutMs() : defaultTimeoutMs;
    }

    /** The log of a job's {@code attempt}: {@code <id>.log}, then {@code <id>@attempt<n>.log} ({@link LogLayout}). */
    Path logPath(JobSpec job, int attempt) {
        return new LogLayout(logDir).jobLog(job.id(), attempt);
    }
}
