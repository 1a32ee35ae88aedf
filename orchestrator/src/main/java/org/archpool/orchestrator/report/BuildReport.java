package org.archpool.orchestrator.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;
import org.archpool.orchestrator.arch.Resolution;
import org.archpool.orchestrator.arch.ToolchainCheck;
import org.archpool.orchestrator.pool.WorkerEvent;
import org.archpool.orchestrator.cache.CacheSummary;
import org.archpool.orchestrator.schedule.JobOutcome;
import org.archpool.orchestrator.schedule.ScheduleSummary;

/**
 * The JSON report of one build (schema version 1): what was targeted and why, the pool, and one entry per
 * manifest job, in manifest order.
 *
 * @param toolchainCheck what the compiler said about the targets before the build (absent when skipped)
 * @param outcomes how many jobs ended with each outcome
 * @param cache    what the build cache did (absent with {@code --no-cache})
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BuildReport(
        int schemaVersion,
        String archpoolVersion,
        String manifest,
        String startedAt,
        long durationMs,
        int exitCode,
        Resolution resolution,
        ToolchainCheck.Result toolchainCheck,
        Pool pool,
        Map<String, Integer> outcomes,
        CacheSummary cache,
        ScheduleSummary schedule,
        List<JobOutcome> jobs) {

    public static final int SCHEMA_VERSION = 1;

    /** A report of a build without a cache. */
    public BuildReport(int schemaVersion, String archpoolVersion, String manifest, String startedAt, long durationMs,
                       int exitCode, Resolution resolution, ToolchainCheck.Result toolchainCheck, Pool pool,
                       Map<String, Integer> outcomes, List<JobOutcome> jobs) {
        this(schemaVersion, archpoolVersion, manifest, startedAt, durationMs, exitCode, resolution, toolchainCheck,
                pool, outcomes, null, null, jobs);
    }

    /** The pool's shape and its workers' starts and deaths. */
    public record Pool(String mode, String launcher, int workers, int buildParallelism, int retries, boolean keepGoing,
                       String logDir, List<WorkerEvent> workerEvents, String deviceIsolation) {
    }
}
