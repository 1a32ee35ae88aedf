package org.archpool.orchestrator;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.archpool.orchestrator.arch.ArchResolutionException;
import org.archpool.orchestrator.arch.ArchResolver;
import org.archpool.orchestrator.arch.ArchSyntaxException;
import org.archpool.orchestrator.arch.Resolution;
import org.archpool.orchestrator.arch.ToolchainCheck;
import org.archpool.orchestrator.pool.WorkerLauncher;
import org.archpool.orchestrator.pool.WorkerPool;
import org.archpool.orchestrator.report.BuildReport;
import org.archpool.orchestrator.report.ConsoleReporter;
import org.archpool.orchestrator.report.ReportWriter;
import org.archpool.orchestrator.schedule.JobOutcome;
import org.archpool.orchestrator.schedule.Scheduler;
import org.archpool.orchestrator.schedule.SchedulerConfig;
import org.archpool.orchestrator.verify.Verification;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.manifest.Manifest;
import org.archpool.protocol.manifest.ManifestException;
import org.archpool.protocol.manifest.ManifestReader;

/**
 * One {@code archpool build}: read the manifest, resolve the architecture once, run every job on a pool,
 * write the report, print the summary. Each step belongs to its own class; this one only sequences them.
 */
public final class BuildSession {

    /** What the user asked for. */
    public record Settings(Path manifest, int jobs, ArchResolver.Request arch, Path report, Path logDir,
                           boolean keepGoing, Duration timeout, int retries, int buildParallelism,
                           int maxJobsPerWorker, Verification verify) {
    }

    private final Settings settings;
    private final ArchResolver resolver;
    private final ToolchainCheck toolchain;
    private final Function<Path, WorkerLauncher> launchers;
    private final Clock clock;
    private final PrintStream out;
    private final PrintStream err;

    /**
     * @param launchers makes the worker launcher, given the folder for worker logs
     */
    /**
     * @param toolchain asks the compiler about the resolved targets before any job starts; null to skip
     */
    public BuildSession(Settings settings, ArchResolver resolver, ToolchainCheck toolchain,
                        Function<Path, WorkerLauncher> launchers, Clock clock, PrintStream out, PrintStream err) {
        this.settings = settings;
        this.resolver = resolver;
        this.toolchain = toolchain;
        this.launchers = launchers;
        this.clock = clock;
        this.out = out;
        this.err = err;
    }

    /** Runs the build; the exit code is 0 when every job succeeded, 1 otherwise. */
    public int run() throws ManifestException, ArchSyntaxException, ArchResolutionException, IOException {
        Instant started = clock.instant();
        Manifest manifest = new ManifestReader().read(settings.manifest());
        Path base = manifest.baseDir();
        Path logDir = settings.logDir() != null ? settings.logDir().toAbsolutePath()
                : base.resolve(".archpool").resolve("logs");
        Path reportFile = settings.report() != null ? settings.report().toAbsolutePath()
                : base.resolve(".archpool").resolve("report.json");

        Resolution resolution = resolver.resolve(settings.arch());
        resolution.warnings().forEach(w -> err.println("archpool: warning: " + w));
        ToolchainCheck.Result checked = null;
        if (toolchain != null) {
            checked = toolchain.check(resolution.platform(), resolution.archs());
            ToolchainCheck.requireSupported(checked, resolution.platform());
        }
        String targetLine = "target: " + resolution.platform().wireName() + " " + String.join(";", resolution.archs())
                + " (" + resolution.source() + (resolution.detail() == null ? "" : ", " + resolution.detail()) + ")";
        out.println(targetLine);

        int workers = Math.min(settings.jobs(), manifest.jobs().size());
        SchedulerConfig config = new SchedulerConfig(resolution.target(), logDir,
                settings.timeout() == null ? 0 : settings.timeout().toMillis(), settings.buildParallelism(),
                settings.retries(), settings.keepGoing(), settings.verify());
        ConsoleReporter console = new ConsoleReporter(out, manifest.jobs().size());
        WorkerLauncher launcher = launchers.apply(logDir.resolve("workers"));
        List<JobOutcome> outcomes = new ArrayList<>();
        try (WorkerPool pool = new WorkerPool(launcher, workers, settings.maxJobsPerWorker(), clock);
             Scheduler scheduler = new Scheduler(pool, config, clock, console);
             InterruptHook interrupt = new InterruptHook(scheduler, pool, err)) {
            List<CompletableFuture<JobOutcome>> futures = new ArrayList<>();
            for (JobSpec job : manifest.jobs()) {
                futures.add(scheduler.submit(job));
            }
            futures.forEach(f -> outcomes.add(f.join()));
            BuildReport.Pool poolFacts = new BuildReport.Pool(launcher.mode(), workers, settings.buildParallelism(),
                    settings.retries(), settings.keepGoing(), logDir.toString(), pool.events());
            int exitCode = interrupt.fired() ? InterruptHook.EXIT_CODE
                    : outcomes.stream().allMatch(o -> o.outcome() == Outcome.SUCCEEDED) ? 0 : 1;
            Map<String, Integer> counts = new LinkedHashMap<>();
            outcomes.forEach(o -> counts.merge(o.outcome().wireName(), 1, Integer::sum));
            BuildReport report = new BuildReport(BuildReport.SCHEMA_VERSION, Version.current(),
                    manifest.file().toString(), started.toString(), clock.millis() - started.toEpochMilli(), exitCode,
                    resolution, checked, poolFacts, counts, outcomes);
            new ReportWriter().write(report, reportFile);
            interrupt.reportWritten();
            console.summary(outcomes, targetLine, reportFile.toString());
            return exitCode;
        }
    }
}
