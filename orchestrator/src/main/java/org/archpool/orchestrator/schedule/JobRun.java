package org.archpool.orchestrator.schedule;

import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.archpool.orchestrator.cache.BuildCache;
import org.archpool.orchestrator.cache.CacheLookup;
import org.archpool.orchestrator.cache.CacheResult;
import org.archpool.orchestrator.pool.Worker;
import org.archpool.orchestrator.pool.WorkerFailedException;
import org.archpool.orchestrator.pool.WorkerFailure;
import org.archpool.orchestrator.pool.WorkerPool;
import org.archpool.orchestrator.seed.ConfigureSeeds;
import org.archpool.orchestrator.seed.SeedKey;
import org.archpool.orchestrator.toolchain.ConcreteJob;
import org.archpool.orchestrator.toolchain.TargetedJob;
import org.archpool.orchestrator.verify.Verdict;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;
import org.archpool.protocol.codec.MessageCodec;
import org.archpool.protocol.codec.MessageReader;

/**
 * One job on one slot, from the queue to its outcome: made concrete for the target by the config's planner (a job
 * that cannot be is {@code failed} unsent), sent to the slot's worker, retried on a fresh worker when the
 * infrastructure fails (up to {@code retries} times, then {@code crashed}), and a succeeded job's artifacts put to
 * the config's judge.
 */
final class JobRun {

    /** How long past a job's own time limit the coordinator waits for the worker's answer. */
    static final long WORKER_ANSWER_GRACE_MS = 30_000;

    private static final MessageCodec CODEC = new MessageCodec();

    private final WorkerPool pool;
    private final SchedulerConfig config;
    private final Clock clock;
    private final long origin;
    private final SchedulerListener listener;
    private final BuildStop stop;

    /** @param origin when the scheduler started: every {@code startMs} counts from here */
    JobRun(WorkerPool pool, SchedulerConfig config, Clock clock, long origin, SchedulerListener listener,
           BuildStop stop) {
        this.pool = pool;
        this.config = config;
        this.clock = clock;
        this.origin = origin;
        this.listener = listener;
        this.stop = stop;
    }

    /** @param onStart told of each attempt handed to a worker, before it is sent */
    JobOutcome run(int slot, TargetedJob unit, long submittedAtMs, Consumer<JobStart> onStart) {
        JobSpec job = unit.job();
        long dispatchedAt = clock.millis();
        long queueWait = dispatchedAt - submittedAtMs;
        long timeoutMs = config.timeoutMs(job);
        Attempts attempts = Attempts.none(dispatchedAt - origin);
        ConcreteJob concrete;
        try {
            concrete = config.planner().plan(job, unit.target(), config.buildParallelism());
        } catch (IllegalArgumentException e) {
            return JobOutcome.unsent(job, attempts, queueWait, clock.millis() - dispatchedAt,
                    "its argv could not be expanded for the target: " + e.getMessage());
        }
        String tooLarge = tooLargeToSend(unit, concrete, timeoutMs);
        if (tooLarge != null) {
            return JobOutcome.unsent(job, attempts, queueWait, clock.millis() - dispatchedAt, tooLarge);
        }
        BuildCache cache = config.cache();
        if (cache == null) {
            return seededSend(slot, unit, concrete, timeoutMs, attempts, queueWait, dispatchedAt, onStart);
        }
        CacheLookup lookup = cache.lookup(concrete, config.logPath(unit, 1));
        if (lookup instanceof CacheLookup.Hit hit) {
            return JobOutcome.restored(job, hit, dispatchedAt - origin, queueWait, config.logPath(unit, 1).toString());
        }
        JobOutcome built = seededSend(slot, unit, concrete, timeoutMs, attempts, queueWait, dispatchedAt, onStart);
        if (lookup instanceof CacheLookup.Uncacheable u) {
            return built.withCache(CacheResult.uncacheable(u.reason()));
        }
        CacheLookup.Miss miss = (CacheLookup.Miss) lookup;
        if (built.outcome() == Outcome.SUCCEEDED) {
            Map<String, Long> phaseMs = new LinkedHashMap<>();
            built.phases().forEach(p -> phaseMs.put(p.name().wireName(), p.ms()));
            return built.withCache(cache.store(miss, concrete.job(), built.artifacts(), built.totalMs(), phaseMs,
                    built.logPath() == null ? null : Path.of(built.logPath())));
        }
        return built.withCache(CacheResult.built(miss, false, miss.note()));
    }

    /**
     * {@link #send}s the job, a CMake job's fresh build tree seeded first when the config has
     * {@linkplain SchedulerConfig#seeds() seeds} of its toolchain; a fresh tree configured without a seed becomes
     * the seed of its toolchain. A seeded configure that fails drops its seed and is sent once more, unseeded.
     */
    private JobOutcome seededSend(int slot, TargetedJob unit, ConcreteJob concrete, long timeoutMs,
                                  Attempts attempts, long queueWait, long dispatchedAt, Consumer<JobStart> onStart) {
        ConfigureSeeds seeds = config.seeds();
        Optional<SeedKey> key = seeds == null ? Optional.empty() : seeds.keyOf(concrete);
        if (key.isEmpty()) {
            return send(slot, unit, concrete, timeoutMs, attempts, queueWait, dispatchedAt, onStart);
        }
        Path buildDir = Path.of(((CmakeJob) concrete.job()).buildDir());
        boolean fresh = ConfigureSeeds.isFresh(buildDir);
        boolean seeded = fresh && seeds.plant(key.get(), buildDir);
        JobOutcome built = send(slot, unit, concrete, timeoutMs, attempts, queueWait, dispatchedAt, onStart);
        if (seeded && built.outcome() == Outcome.FAILED && !ran(built, Phase.BUILD) && ran(built, Phase.CONFIGURE)
                && stop.stopReason(unit.name()) == null) {
            seeds.discard(key.get());
            ConfigureSeeds.unplant(buildDir);
            String seededFailure = built.message();
            built = send(slot, unit, concrete, timeoutMs, Attempts.none(clock.millis() - origin), queueWait,
                    dispatchedAt, onStart);
            if (ran(built, Phase.BUILD)) {
                seeds.harvest(key.get(), buildDir);
            }
            return built.withConfigureSeeded(false, "its configure failed when seeded (" + seededFailure
                    + "), so the seed was dropped and the job configured again without one");
        }
        if (seeded && built.outcome() == Outcome.SUCCEEDED && holdsNoGpuCode(built)
                && ConfigureSeeds.enablesLanguage(buildDir, unit.target().platform().cmakeLanguage())
                && stop.stopReason(unit.name()) == null) {
            return builtAgainUnseeded(slot, unit, concrete, timeoutMs, queueWait, dispatchedAt, onStart, key.get(),
                    buildDir);
        }
        if (!seeded && fresh && ran(built, Phase.BUILD)) {
            seeds.harvest(key.get(), buildDir);
        }
        return built.withConfigureSeeded(seeded, null);
    }

    /**
     * A seeded build of a project that enables the target's GPU language, none of whose outputs holds GPU code: a
     * damaged seed can make CMake skip that language's sources without a word (a wrong source extension, say), so
     * it is built once more without the seed. When that build holds GPU code the seed was to blame and is
     * replaced by this configure; when it holds none either, the project builds no GPU code and the seed stays.
     */
    private JobOutcome builtAgainUnseeded(int slot, TargetedJob unit, ConcreteJob concrete, long timeoutMs,
                                          long queueWait, long dispatchedAt, Consumer<JobStart> onStart, SeedKey key,
                                          Path buildDir) {
        ConfigureSeeds seeds = config.seeds();
        ConfigureSeeds.unplant(buildDir);
        JobOutcome again = send(slot, unit, concrete, timeoutMs, Attempts.none(clock.millis() - origin), queueWait,
                dispatchedAt, onStart);
        if (again.outcome() == Outcome.SUCCEEDED && !holdsNoGpuCode(again)) {
            seeds.discard(key);
            seeds.harvest(key, buildDir);
            return again.withConfigureSeeded(false, "its seeded build held no GPU code although the project enables "
                    + unit.target().platform().cmakeLanguage() + ", and built again without the seed it does: the"
                    + " seed was damaged, and was replaced");
        }
        return again.withConfigureSeeded(false, "its seeded build held no GPU code, so it was built again without"
                + " the seed" + (again.outcome() == Outcome.SUCCEEDED ? ", which held none either (the seed was"
                + " kept)" : ""));
    }

    /** Whether there are outputs and none of them holds GPU code (or could not be read). */
    private static boolean holdsNoGpuCode(JobOutcome outcome) {
        return !outcome.artifacts().isEmpty()
                && outcome.artifacts().stream().allMatch(a -> a.archs().isEmpty() && a.problem() == null);
    }

    /** Whether the outcome's last attempt reached {@code phase}. */
    private static boolean ran(JobOutcome outcome, Phase phase) {
        return outcome.phases().stream().anyMatch(p -> p.name() == phase);
    }

    /** Sends the job to the slot's worker, retrying when the infrastructure fails, and judges what it built. */
    private JobOutcome send(int slot, TargetedJob unit, ConcreteJob concrete, long timeoutMs, Attempts attempts,
                            long queueWait, long dispatchedAt, Consumer<JobStart> onStart) {
        JobSpec job = unit.job();
        String name = unit.name();
        for (int attempt = 1; attempt <= config.retries() + 1; attempt++) {
            String stoppedBefore = stop.stopReason(name);
            if (stoppedBefore != null && attempt > 1) {
                // cancelled while its worker failed: not retried
                return JobOutcome.cancelled(job, attempts, queueWait, clock.millis() - dispatchedAt,
                        config.logPath(unit, attempt - 1).toString(), "cancelled: " + stoppedBefore);
            }
            Worker worker;
            try {
                worker = pool.workerFor(slot);
            } catch (WorkerFailedException e) {
                attempts = attempts.failed(e.getMessage());
                String stopped = stop.stopReason(name);
                if (stopped != null) {
                    // its worker's start was stopped with the build (a Slurm job still queued, say): not a crash
                    return JobOutcome.cancelled(job, attempts, queueWait, clock.millis() - dispatchedAt, null,
                            "cancelled: " + stopped + " before its worker had started");
                }
                continue;
            }
            attempts = attempts.sent(attempt, worker.id(), clock.millis() - origin);
            listener.started(name, worker.id(), attempt);
            onStart.accept(new JobStart(job.id(), worker.id(), attempt));
            BuildRequest request = new BuildRequest(name + "#" + attempt, concrete.job(), unit.target(),
                    concrete.steps(), timeoutMs, config.logPath(unit, attempt).toString(), config.maxLogBytes());
            CompletableFuture<BuildResult> answer = worker.execute(request, phase -> listener.phase(name, phase));
            stop.running(slot, name, worker, request.requestId());
            try {
                BuildResult result = timeoutMs > 0
                        ? answer.get(timeoutMs + WORKER_ANSWER_GRACE_MS, TimeUnit.MILLISECONDS)
                        : answer.get();
                pool.jobFinished(slot, worker);
                return judged(unit, result, attempts, queueWait, clock.millis() - dispatchedAt);
            } catch (ExecutionException e) {
                WorkerFailedException failed = e.getCause() instanceof WorkerFailedException w ? w : null;
                String reason = failed != null ? failed.getMessage() : String.valueOf(e.getCause());
                attempts = attempts.failed(reason);
                pool.discard(slot, worker, failed != null ? failed.failure() : WorkerFailure.IO, reason);
                String stopped = stop.stopReason(name);
                if (stopped != null) {
                    return JobOutcome.cancelled(job, attempts, queueWait, clock.millis() - dispatchedAt,
                            request.logPath(), "cancelled: " + stopped + "; its worker was stopped");
                }
            } catch (TimeoutException e) {
                String reason = "worker " + worker.id() + " gave no answer " + WORKER_ANSWER_GRACE_MS
                        + " ms past the job's time limit; it was killed";
                attempts = attempts.failed(reason);
                pool.discard(slot, worker, WorkerFailure.NO_ANSWER, reason);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                worker.cancel(request.requestId());
                return JobOutcome.cancelled(job, attempts, queueWait, clock.millis() - dispatchedAt,
                        request.logPath(), "cancelled: the coordinator was interrupted");
            } finally {
                stop.idle(slot);
            }
        }
        return JobOutcome.crashed(job, attempts, queueWait, clock.millis() - dispatchedAt,
                attempts.count() > 0 ? config.logPath(unit, attempts.count()).toString() : null);
    }

    /**
     * Why the job's request would be longer than a worker reads (a line of at most
     * {@link MessageReader#DEFAULT_MAX_LINE_BYTES}), or null when it fits: the manifest reader refuses such jobs, and
     * this catches what the coordinator added to one (flags for many architectures, a long log path). Measured on
     * the request of the last attempt, whose id and log path are the longest.
     */
    private String tooLargeToSend(TargetedJob unit, ConcreteJob concrete, long timeoutMs) {
        int last = config.retries() + 1;
        BuildRequest longest = new BuildRequest(unit.name() + "#" + last, concrete.job(), unit.target(),
                concrete.steps(), timeoutMs, config.logPath(unit, last).toString());
        int bytes = CODEC.encode(longest).length;
        if (bytes < MessageReader.DEFAULT_MAX_LINE_BYTES) {
            return null;
        }
        return "its request to a worker would be " + bytes + " bytes, over the protocol's limit of "
                + MessageReader.DEFAULT_MAX_LINE_BYTES + " bytes per message; pass the long arguments in a file"
                + " instead (a response file such as @args.txt, or a script)";
    }

    /** The worker's answer, with a succeeded job's artifacts judged against the target. */
    private JobOutcome judged(TargetedJob unit, BuildResult r, Attempts attempts, long queueWait, long totalMs) {
        JobSpec job = unit.job();
        Outcome outcome = r.outcome();
        String stopped = stop.stopReason(unit.name());
        String message = outcome == Outcome.CANCELLED && stopped != null ? "cancelled: " + stopped : r.message();
        List<String> warnings = List.of();
        if (outcome == Outcome.SUCCEEDED) {
            Verdict verdict = config.judge().judge(job, unit.target(), r.artifacts());
            warnings = verdict.warnings();
            if (!verdict.passed()) {
                outcome = Outcome.FAILED;
                message = verdict.failure();
            }
        }
        return JobOutcome.fromResult(job, r, outcome, message, warnings, attempts, queueWait, totalMs);
    }
}
