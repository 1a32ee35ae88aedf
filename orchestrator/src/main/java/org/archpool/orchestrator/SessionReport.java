package org.archpool.orchestrator;

import java.io.IOException;
import java.io.PrintStream;
import java.util.Objects;
import org.archpool.orchestrator.cache.BuildCache;
import org.archpool.orchestrator.cache.CacheConfig;
import org.archpool.orchestrator.cache.CachePruner;
import org.archpool.orchestrator.cache.CacheSetupException;
import org.archpool.orchestrator.cache.CacheSummary;
import org.archpool.orchestrator.cache.DiskCache;
import org.archpool.orchestrator.report.ConsoleOutput;
import org.archpool.protocol.Target;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.archpool.orchestrator.pool.NodeSummary;
import org.archpool.orchestrator.pool.WorkerPool;
import org.archpool.orchestrator.report.BuildReport;
import org.archpool.orchestrator.report.OutputProgress;
import org.archpool.orchestrator.report.OutputWriteException;
import org.archpool.orchestrator.report.ReportFiles;
import org.archpool.orchestrator.schedule.JobOutcome;
import org.archpool.orchestrator.schedule.ScheduleSummary;

/** The end of a build or a service: its report, assembled from what ran, and its outputs written. */
final class SessionReport {

    private static final Logger LOG = LoggerFactory.getLogger(SessionReport.class);

    private SessionReport() {
    }

    /**
     * The report of the jobs that ran on {@code pool}.
     *
     * @param manifest the manifest's path; null for {@code serve}
     * @param durationMs from {@code started} until now
     */
    static BuildReport of(String manifest, Instant started, long durationMs, int exitCode,
                          List<ResolvedTarget> targets,
                          WorkerPool pool, int buildParallelism, int retries, boolean keepGoing, Path logDir,
                          List<JobOutcome> outcomes, BuildCache cache, ScheduleSummary schedule) {
        BuildReport.Pool facts = new BuildReport.Pool(pool.mode(), pool.launcher(), pool.size(), buildParallelism,
                retries, keepGoing, logDir.toString(), pool.events(), pool.deviceIsolation().reportName(),
                pool.nodes());
        Map<String, Integer> counts = new LinkedHashMap<>();
        outcomes.forEach(o -> counts.merge(o.outcome().wireName(), 1, Integer::sum));
        CacheSummary summary = cache == null ? null : CacheSummary.of(cache.folder(), cache.remote(),
                outcomes.stream().map(JobOutcome::cacheResult).filter(Objects::nonNull).toList());
        return new BuildReport(BuildReport.SCHEMA_VERSION, Version.current(), manifest, started.toString(),
                durationMs, exitCode, targets.stream()
                        .map(t -> new BuildReport.TargetEntry(t.resolution(), t.checked())).toList(),
                facts, counts, summary, schedule,
                outcomes);
    }

    /** Under Slurm, names on {@code stderr} the nodes the session lost or kept its workers off, if any. */
    static void nameLostNodes(BuildReport report, ConsoleOutput stderr) {
        String nodes = NodeSummary.line(report.pool().nodes());
        if (nodes != null) {
            stderr.line("archpool: " + nodes + ".");
        }
    }

    /**
     * The session's cache folder, opened before any worker starts; null without a cache. The default folder is
     * best-effort: one that cannot be used (a {@code $HOME} that cannot be written) is said once on {@code stderr},
     * with the fix, and the session runs without a cache, its configure seeds and durations as with
     * {@code --no-cache}.
     *
     * @param stderr told of a default folder that cannot be used
     * @throws CacheSetupException when a folder named by {@code --cache} or {@code $ARCHPOOL_CACHE_DIR} cannot be
     *                             used (exit 2, nothing has run)
     */
    static DiskCache openCacheFolder(BuildSession.Settings settings, PrintStream stderr) throws CacheSetupException {
        CacheConfig cache = settings.cache();
        if (cache == null) {
            LOG.info("no build cache (--no-cache, or no folder for one: $HOME unset)");
            return null;
        }
        try {
            return cache.openFolder();
        } catch (CacheSetupException e) {
            if (cache.folderNamed()) {
                throw e;
            }
            String warning = "archpool: warning: the default cache folder " + cache.folder() + " cannot be used ("
                    + e.getMessage() + "); this run goes on without the build cache. Pass --cache DIR or set"
                    + " $ARCHPOOL_CACHE_DIR to a folder you can write, or pass --no-cache to"
                    + " silence this";
            stderr.println(warning);
            LOG.info(warning);
            return null;
        }
    }

    /**
     * The session's build cache, or null without one; what stops working in it is said once on
     * {@code stderr} and in the coordinator's log (at INFO: the log file keeps that level, and stderr, which shows
     * WARN and above, has the line already).
     */
    static BuildCache openCache(BuildSession.Settings settings, DiskCache folder, ConsoleOutput stderr) {
        if (folder == null) {
            return null;
        }
        return settings.cache().open(folder, settings.verify(), note -> {
            stderr.line(note);
            LOG.info(note);
        });
    }

    /** {@code --cache-max-size}: the local cache pruned, least recently used first, after the session. */
    static void pruneCache(BuildSession.Settings settings, DiskCache folder, ConsoleOutput stderr) {
        CacheConfig cache = settings.cache();
        if (folder == null || cache.maxSizeBytes() == null) {
            return;
        }
        try {
            CachePruner.Pruned pruned = new CachePruner(folder, cache.clock()).prune(cache.maxSizeBytes());
            LOG.info("cache pruned to {} bytes: {} entries and {} blobs removed", pruned.bytesAfter(),
                    pruned.entries(), pruned.blobs());
        } catch (IOException | RuntimeException e) {
            String note = "archpool: the cache " + folder.describe() + " could not be pruned to"
                    + " --cache-max-size: " + e.getMessage();
            stderr.line(note);
            LOG.info(note);
        }
    }

    /**
     * Writes the report and the other outputs asked for, marking each in {@code progress}.
     *
     * @return what could not be written, or null when everything was
     */
    static OutputWriteException write(ReportFiles outputs, BuildReport report, MeterRegistry registry,
                                      OutputProgress progress) {
        try {
            outputs.write(report, registry, progress);
            return null;
        } catch (OutputWriteException e) {
            return e;
        }
    }
}
