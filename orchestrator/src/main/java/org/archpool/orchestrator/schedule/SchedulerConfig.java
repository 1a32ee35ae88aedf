package org.archpool.orchestrator.schedule;

import java.nio.file.Path;
import java.util.Objects;
import org.archpool.orchestrator.cache.BuildCache;
import org.archpool.orchestrator.output.LogLayout;
import org.archpool.orchestrator.seed.ConfigureSeeds;
import org.archpool.orchestrator.toolchain.JobPlanner;
import org.archpool.orchestrator.toolchain.TargetedJob;
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
 * @param order             which queued job a free slot takes next
 * @param history           how long each job took last time, for {@code order}, and where this session's times are
 *                          recorded; null for none (then every order is submission order)
 * @param seeds             the configure seeds a fresh CMake build tree starts from; null for none
 *                          ({@code --no-configure-seed})
 */
public record SchedulerConfig(Target target, Path logDir, long defaultTimeoutMs, int buildParallelism,
                              int retries, boolean keepGoing, JobPlanner planner, ArtifactJudge judge,
                              Long maxLogBytes, BuildCache cache, JobOrder order, DurationHistory history,
                              ConfigureSeeds seeds) {

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
                null, JobOrder.FIFO, null, null);
    }

    /** This configuration with each job's log capped at {@code bytes} (null: no cap). */
    public SchedulerConfig withMaxLogBytes(Long bytes) {
        return new SchedulerConfig(target, logDir, defaultTimeoutMs, buildParallelism, retries, keepGoing, planner,
                judge, bytes, cache, order, history, seeds);
    }

    /** This configuration with {@code cache} (null: none). */
    public SchedulerConfig withCache(BuildCache buildCache) {
        return new SchedulerConfig(target, logDir, defaultTimeoutMs, buildParallelism, retries, keepGoing, planner,
                judge, maxLogBytes, buildCache, order, history, seeds);
    }

    /** This configuration taking jobs in {@code jobOrder} by the durations in {@code durations} (null: none). */
    public SchedulerConfig withOrder(JobOrder jobOrder, DurationHistory durations) {
        return new SchedulerConfig(target, logDir, defaultTimeoutMs, buildParallelism, retries, keepGoing, planner,
                judge, maxLogBytes, cache, jobOrder, durations, seeds);
    }

    /** This configuration seeding fresh CMake build trees from {@code configureSeeds} (null: none). */
    public SchedulerConfig withSeeds(ConfigureSeeds configureSeeds) {
        return new SchedulerConfig(target, logDir, defaultTimeoutMs, buildParallelism, retries, keepGoing, planner,
                judge, maxLogBytes, cache, order, history, configureSeeds);
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
        Objects.requireNonNull(order, "order");
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
    Path logPath(TargetedJob unit, int attempt) {
        return new LogLayout(logDir).jobLog(unit.logName(), attempt);
    }
}
