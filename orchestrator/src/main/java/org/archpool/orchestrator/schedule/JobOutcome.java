package org.archpool.orchestrator.schedule;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.ArrayList;
import java.util.List;
import org.archpool.orchestrator.cache.CacheLookup;
import org.archpool.orchestrator.cache.CacheResult;
import org.archpool.orchestrator.toolchain.TargetedJob;
import org.archpool.protocol.Artifact;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;
import org.archpool.protocol.PhaseTiming;
import org.archpool.protocol.Target;

/**
 * The one recorded outcome of a job, as the report shows it (the order of the components is the order of the
 * report's fields). Made by the named factories: {@link #fromResult} for a job a worker answered,
 * {@link #notStarted}, {@link #unsent}, {@link #cancelled} and {@link #crashed} for one it did not.
 *
 * @param worker          the worker that ran the last attempt (null when none did)
 * @param attempts        how many times the job was sent to a worker
 * @param startMs         when the last attempt was sent to a worker, in ms since the scheduler started
 * @param queueWaitMs     from submission to the first dispatch
 * @param inspectMs       reading the GPU code of the artifacts, in the worker
 * @param totalMs         from the first dispatch to the outcome
 * @param attemptFailures why earlier attempts crashed, in order
 * @param warnings        what the user should know about a job that passed (e.g. extra architectures)
 * @param clientJobId     under {@code archpool serve}, the client's name for the job (shown after {@code id});
 *                        null for a manifest's job
 * @param cacheResult     what the build cache did for the job (the report's {@code cache}, {@code cacheKey} and
 *                        {@code cacheNote}); null when the build has no cache
 * @param expectedMs      how long the job took when it last ran, which placed it in the queue; null when unknown
 * @param configureSeeded for a CMake job that a worker configured: whether its build tree started from a configure
 *                        seed; null for other jobs and when seeding is off
 * @param target          the platform and architectures the job was built for (the run's target narrowed to those
 *                        the job supports); for a skipped job, the run's target it was skipped for
 * @param name            what the run calls the job: its id, or {@code id[platform]} when the run has several
 *                        targets; null until the scheduler sets it ({@link #name()} then answers the id)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"id", "clientJobId"})
public record JobOutcome(
        String id,
        String kind,
        Outcome outcome,
        Integer exitCode,
        String signal,
        String worker,
        int attempts,
        long startMs,
        long queueWaitMs,
        long configureMs,
        long buildMs,
        long commandMs,
        long inspectMs,
        long totalMs,
        List<PhaseTiming> phases,
        String logPath,
        String logTail,
        String message,
        List<Artifact> artifacts,
        List<String> attemptFailures,
        List<String> warnings,
        String clientJobId,
        @JsonIgnore CacheResult cacheResult,
        Long expectedMs,
        Boolean configureSeeded,
        Target target,
        @JsonIgnore String name) {

    public JobOutcome {
        phases = phases == null ? List.of() : List.copyOf(phases);
        artifacts = artifacts == null ? List.of() : List.copyOf(artifacts);
        attemptFailures = attemptFailures == null ? List.of() : List.copyOf(attemptFailures);
        warnings = warnings == null ? List.of() : List.copyOf(warnings);
    }

    /** A manifest job's outcome: no {@code clientJobId}. */
    public JobOutcome(String id, String kind, Outcome outcome, Integer exitCode, String signal, String worker,
                      int attempts, long startMs, long queueWaitMs, long configureMs, long buildMs, long commandMs,
                      long inspectMs, long totalMs, List<PhaseTiming> phases, String logPath, String logTail,
                      String message, List<Artifact> artifacts, List<String> attemptFailures, List<String> warnings) {
        this(id, kind, outcome, exitCode, signal, worker, attempts, startMs, queueWaitMs, configureMs, buildMs,
                commandMs, inspectMs, totalMs, phases, logPath, logTail, message, artifacts, attemptFailures, warnings,
                null, null, null, null, null, null);
    }

    /** This outcome as the client that named the job {@code clientJobId} is told it. */
    public JobOutcome forClient(String clientJobId) {
        return new JobOutcome(id, kind, outcome, exitCode, signal, worker, attempts, startMs, queueWaitMs,
                configureMs, buildMs, commandMs, inspectMs, totalMs, phases, logPath, logTail, message, artifacts,
                attemptFailures, warnings, clientJobId, cacheResult, expectedMs, configureSeeded, target, name);
    }

    /** This outcome with what the build cache did for the job. */
    public JobOutcome withCache(CacheResult cache) {
        return new JobOutcome(id, kind, outcome, exitCode, signal, worker, attempts, startMs, queueWaitMs,
                configureMs, buildMs, commandMs, inspectMs, totalMs, phases, logPath, logTail, message, artifacts,
                attemptFailures, warnings, clientJobId, cache, expectedMs, configureSeeded, target, name);
    }

    /** This outcome with how long the job took when it last ran (null: unknown). */
    public JobOutcome withExpectedMs(Long ms) {
        return new JobOutcome(id, kind, outcome, exitCode, signal, worker, attempts, startMs, queueWaitMs,
                configureMs, buildMs, commandMs, inspectMs, totalMs, phases, logPath, logTail, message, artifacts,
                attemptFailures, warnings, clientJobId, cacheResult, ms, configureSeeded, target, name);
    }

    /** This outcome saying whether the job's build tree was seeded, with {@code warning} added when not null. */
    public JobOutcome withConfigureSeeded(boolean seeded, String warning) {
        List<String> all = new ArrayList<>(warnings);
        if (warning != null) {
            all.add(warning);
        }
        return new JobOutcome(id, kind, outcome, exitCode, signal, worker, attempts, startMs, queueWaitMs,
                configureMs, buildMs, commandMs, inspectMs, totalMs, phases, logPath, logTail, message, artifacts,
                attemptFailures, all, clientJobId, cacheResult, expectedMs, seeded, target, name);
    }

    /** This outcome as that of {@code unit}: its target and the name the run gives it. */
    public JobOutcome forTarget(TargetedJob unit) {
        return new JobOutcome(id, kind, outcome, exitCode, signal, worker, attempts, startMs, queueWaitMs,
                configureMs, buildMs, commandMs, inspectMs, totalMs, phases, logPath, logTail, message, artifacts,
                attemptFailures, warnings, clientJobId, cacheResult, expectedMs, configureSeeded, unit.target(),
                unit.name());
    }

    /** What the run calls the job: its id, or {@code id[platform]} when the run has several targets. */
    @Override
    public String name() {
        return name != null ? name : id;
    }

    /**
     * {@code unit}, not built because it supports none of its target's architectures ({@code reason} says which):
     * {@code skipped}, which is not a failure.
     */
    public static JobOutcome skipped(TargetedJob unit, String reason) {
        JobSpec job = unit.job();
        return new JobOutcome(job.id(), job.kind(), Outcome.SKIPPED, null, null, null, 0, 0, 0, 0, 0, 0, 0, 0, null,
                null, null, "skipped: " + reason, null, null, null, null, null, null, null, unit.target(),
                unit.name());
    }

    /** The time the job's own work took in its last attempt: configure, build or command, and inspection. */
    public long workMs() {
        return configureMs + buildMs + commandMs + inspectMs;
    }

    /** {@code hit}, {@code remote-hit}, {@code miss}, {@code stored}, {@code uncacheable} or {@code rejected}. */
    @JsonProperty("cache")
    public String cache() {
        return cacheResult == null ? null : cacheResult.status().wireName();
    }

    /** The job's cache key (SHA-256), when it has one. */
    @JsonProperty("cacheKey")
    public String cacheKey() {
        return cacheResult == null ? null : cacheResult.key();
    }

    /**
     * Why a job that was looked up and built found nothing to restore: {@code no-entry}, {@code read-set-changed} or
     * {@code rejected} ({@link org.archpool.orchestrator.cache.MissReason}).
     */
    @JsonProperty("cacheMissReason")
    public String cacheMissReason() {
        return cacheResult == null || cacheResult.missReason() == null ? null : cacheResult.missReason().wireName();
    }

    /** Why the job was uncacheable, rejected, or not stored. */
    @JsonProperty("cacheNote")
    public String cacheNote() {
        return cacheResult == null ? null : cacheResult.note();
    }

    /**
     * A job restored from the cache: {@code succeeded} with the artifacts as the inspector read them again, no
     * worker and no attempt; {@code totalMs} is the lookup and restore.
     */
    public static JobOutcome restored(JobSpec job, CacheLookup.Hit hit, long atMs, long queueWaitMs,
                                      String logPath) {
        return new JobOutcome(job.id(), job.kind(), Outcome.SUCCEEDED, 0, null, null, 0, atMs, queueWaitMs, 0, 0, 0,
                0, hit.restoreMs(), null, logPath, null, null, hit.artifacts(), null, null, null,
                CacheResult.restored(hit),
                null, null, null, null);
    }

    /**
     * A job a worker answered: the result's exit, phases, log and artifacts, with the outcome and message the
     * coordinator decided (a verdict on the artifacts can turn {@code succeeded} into {@code failed}).
     */
    public static JobOutcome fromResult(JobSpec job, BuildResult result, Outcome outcome, String message,
                                        List<String> warnings, Attempts attempts, long queueWaitMs, long totalMs) {
        return new JobOutcome(job.id(), job.kind(), outcome, result.exitCode(), result.signal(),
                attempts.lastWorker(), attempts.count(), attempts.lastStartMs(), queueWaitMs,
                result.millisIn(Phase.CONFIGURE), result.millisIn(Phase.BUILD), result.millisIn(Phase.COMMAND),
                result.millisIn(Phase.INSPECT), totalMs, result.phases(), result.logPath(), result.logTail(), message,
                result.artifacts(), attempts.failures(), warnings);
    }

    /** A job the build stopped before its turn came: {@code cancelled}, {@code not started: reason}. */
    public static JobOutcome notStarted(JobSpec job, long atMs, long queueWaitMs, String reason) {
        return withoutResult(job, Outcome.CANCELLED, Attempts.none(atMs), queueWaitMs, 0, null,
                "not started: " + reason);
    }

    /** A job that could not be made concrete for the target, so no worker was sent it: {@code failed}. */
    public static JobOutcome unsent(JobSpec job, Attempts attempts, long queueWaitMs, long totalMs, String message) {
        return withoutResult(job, Outcome.FAILED, attempts, queueWaitMs, totalMs, null, message);
    }

    /** A job the build stopped while it was starting or running, with no result from its worker. */
    public static JobOutcome cancelled(JobSpec job, Attempts attempts, long queueWaitMs, long totalMs,
                                       String logPath, String message) {
        return withoutResult(job, Outcome.CANCELLED, attempts, queueWaitMs, totalMs, logPath, message);
    }

    /** A job whose every try failed because the infrastructure did; the message names the last reason. */
    public static JobOutcome crashed(JobSpec job, Attempts attempts, long queueWaitMs, long totalMs, String logPath) {
        return withoutResult(job, Outcome.CRASHED, attempts, queueWaitMs, totalMs, logPath,
                "the infrastructure failed " + attempts.failures().size() + " time(s); last: "
                        + attempts.lastFailure());
    }

    private static JobOutcome withoutResult(JobSpec job, Outcome outcome, Attempts attempts, long queueWaitMs,
                                            long totalMs, String logPath, String message) {
        return new JobOutcome(job.id(), job.kind(), outcome, null, null, attempts.lastWorker(), attempts.count(),
                attempts.lastStartMs(), queueWaitMs, 0, 0, 0, 0, totalMs, null, logPath, null, message, null,
                attempts.failures(), null);
    }
}
