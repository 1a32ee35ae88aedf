package org.archpool.orchestrator.report;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;
import org.archpool.orchestrator.arch.GpuDevice;
import org.archpool.orchestrator.arch.ProbeReport;
import org.archpool.orchestrator.arch.Resolution;
import org.archpool.orchestrator.arch.ToolchainCheck;
import org.archpool.orchestrator.arch.Visibility;
import org.archpool.orchestrator.pool.NodeSummary;
import org.archpool.orchestrator.pool.WorkerEvent;
import org.archpool.orchestrator.cache.CacheSummary;
import org.archpool.orchestrator.schedule.JobOutcome;
import org.archpool.orchestrator.schedule.ScheduleSummary;
import org.archpool.protocol.Platform;

/**
 * The JSON report of one build (schema version 2): what was targeted and why, the pool, and one entry per job and
 * target, in manifest order and, per job, in target order.
 *
 * @param gpuTargets each GPU target of the run: how its architectures were resolved, and what the compiler said of them
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
        List<TargetEntry> gpuTargets,
        Pool pool,
        Map<String, Integer> outcomes,
        CacheSummary cache,
        ScheduleSummary schedule,
        List<JobOutcome> jobs) {

    /**
     * 2: {@code resolution} and {@code toolchainCheck} became {@code gpuTargets}, one entry per target; every job
     * entry has its {@code target}; {@code skipped} is an outcome.
     */
    public static final int SCHEMA_VERSION = 2;

    public BuildReport {
        gpuTargets = gpuTargets == null ? List.of() : List.copyOf(gpuTargets);
    }

    /** A report of a build of one target, without a cache. */
    public BuildReport(int schemaVersion, String archpoolVersion, String manifest, String startedAt, long durationMs,
                       int exitCode, Resolution resolution, ToolchainCheck.Result toolchainCheck, Pool pool,
                       Map<String, Integer> outcomes, List<JobOutcome> jobs) {
        this(schemaVersion, archpoolVersion, manifest, startedAt, durationMs, exitCode,
                resolution == null ? List.of() : List.of(new TargetEntry(resolution, toolchainCheck)), pool, outcomes,
                null, null, jobs);
    }

    /**
     * One target: its {@link Resolution}'s fields, and {@code toolchainCheck}, what the compiler said of it before
     * the build (absent when skipped).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record TargetEntry(Platform platform, List<String> archs, String source, String detail,
                              List<GpuDevice> devices, Visibility visibility, List<String> warnings,
                              List<ProbeReport> probes, ToolchainCheck.Result toolchainCheck) {

        public TargetEntry(Resolution resolution, ToolchainCheck.Result toolchainCheck) {
            this(resolution.platform(), resolution.archs(), resolution.source(), resolution.detail(),
                    resolution.devices(), resolution.visibility(), resolution.warnings(), resolution.probes(),
                    toolchainCheck);
        }

        /** The target's resolution, as {@code archpool arch} gives it. */
        @JsonIgnore
        public Resolution resolution() {
            return new Resolution(platform, archs, source, detail, devices == null ? List.of() : devices, visibility,
                    warnings == null ? List.of() : warnings, probes == null ? List.of() : probes);
        }
    }

    /** The first target's resolution, for outputs that name one target; null when there is none. */
    @JsonIgnore
    public Resolution resolution() {
        return gpuTargets.isEmpty() ? null : gpuTargets.get(0).resolution();
    }

    /** The first target's toolchain check; null when there is none or it was skipped. */
    @JsonIgnore
    public ToolchainCheck.Result toolchainCheck() {
        return gpuTargets.isEmpty() ? null : gpuTargets.get(0).toolchainCheck();
    }

    /**
     * The pool's shape and its workers' starts and deaths.
     *
     * @param nodes under Slurm, what the build saw of each node its workers ran on or tried to start on (lost and
     *              avoided nodes among them); absent where workers ran on this machine
     */
    public record Pool(String mode, String launcher, int workers, int buildParallelism, int retries, boolean keepGoing,
                       String logDir, List<WorkerEvent> workerEvents, String deviceIsolation,
                       @JsonInclude(JsonInclude.Include.NON_EMPTY) List<NodeSummary> nodes) {

        public Pool {
            nodes = nodes == null ? List.of() : List.copyOf(nodes);
        }

        /** Where workers ran on this machine: no nodes. */
        public Pool(String mode, String launcher, int workers, int buildParallelism, int retries, boolean keepGoing,
                    String logDir, List<WorkerEvent> workerEvents, String deviceIsolation) {
            this(mode, launcher, workers, buildParallelism, retries, keepGoing, logDir, workerEvents, deviceIsolation,
                    List.of());
        }
    }
}
