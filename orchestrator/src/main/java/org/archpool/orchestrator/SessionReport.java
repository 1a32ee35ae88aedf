package org.archpool.orchestrator;

import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.archpool.orchestrator.pool.WorkerPool;
import org.archpool.orchestrator.report.BuildReport;
import org.archpool.orchestrator.report.OutputProgress;
import org.archpool.orchestrator.report.OutputWriteException;
import org.archpool.orchestrator.report.ReportFiles;
import org.archpool.orchestrator.schedule.JobOutcome;

/** The end of a build or a service: its report, assembled from what ran, and its outputs written. */
final class SessionReport {

    private SessionReport() {
    }

    /**
     * The report of the jobs that ran on {@code pool}.
     *
     * @param manifest the manifest's path; null for {@code serve}
     * @param durationMs from {@code started} until now
     */
    static BuildReport of(String manifest, Instant started, long durationMs, int exitCode, ResolvedTarget target,
                          WorkerPool pool, int buildParallelism, int retries, boolean keepGoing, Path logDir,
                          List<JobOutcome> outcomes) {
        BuildReport.Pool facts = new BuildReport.Pool(pool.mode(), pool.launcher(), pool.size(), buildParallelism,
                retries, keepGoing, logDir.toString(), pool.events(), pool.deviceIsolation().reportName());
        Map<String, Integer> counts = new LinkedHashMap<>();
        outcomes.forEach(o -> counts.merge(o.outcome().wireName(), 1, Integer::sum));
        return new BuildReport(BuildReport.SCHEMA_VERSION, Version.current(), manifest, started.toString(),
                durationMs, exitCode, target.resolution(), target.checked(), facts, counts, outcomes);
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
