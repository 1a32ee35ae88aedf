package org.archpool.orchestrator;

import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
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
import java.util.stream.Collectors;
import org.archpool.orchestrator.arch.ArchResolutionException;
import org.archpool.orchestrator.arch.ArchResolver;
import org.archpool.orchestrator.arch.ArchSyntaxException;
import org.archpool.orchestrator.arch.Resolution;
import org.archpool.orchestrator.arch.TargetRequest;
import org.archpool.orchestrator.arch.ToolchainCheck;
import org.archpool.orchestrator.cache.BuildCache;
import org.archpool.orchestrator.cache.CacheConfig;
import org.archpool.orchestrator.cache.CacheSetupException;
import org.archpool.orchestrator.cache.DiskCache;
import org.archpool.orchestrator.manifest.Manifest;
import org.archpool.orchestrator.manifest.ManifestException;
import org.archpool.orchestrator.manifest.ManifestReader;
import org.archpool.orchestrator.metrics.BuildMetrics;
import org.archpool.orchestrator.output.LogFolderLock;
import org.archpool.orchestrator.output.LogLayout;
import org.archpool.orchestrator.output.OutputPathException;
import org.archpool.orchestrator.output.OutputPaths;
import org.archpool.orchestrator.pool.WorkerLauncher;
import org.archpool.orchestrator.pool.WorkerPool;
import org.archpool.orchestrator.report.BuildReport;
import org.archpool.orchestrator.report.ConsoleOutput;
import org.archpool.orchestrator.report.ConsoleReporter;
import org.archpool.orchestrator.report.ConsoleStyle;
import org.archpool.orchestrator.report.LogReporter;
import org.archpool.orchestrator.report.OutputProgress;
import org.archpool.orchestrator.report.OutputWriteException;
import org.archpool.orchestrator.report.ReportFiles;
import org.archpool.orchestrator.schedule.JobOutcome;
import org.archpool.orchestrator.schedule.Scheduler;
import org.archpool.orchestrator.schedule.SchedulerConfig;
import org.archpool.orchestrator.schedule.SchedulerListener;
import org.archpool.orchestrator.toolchain.JobTargets;
import org.archpool.orchestrator.verify.Verification;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Target;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code archpool build}: read the manifest, resolve the architecture once, run every job on a pool,
 * write the report, print the summary. Each step belongs to its own class; this one only sequences them.
 */
public final class BuildSession {

    private static final Logger LOG = LoggerFactory.getLogger(BuildSession.class);

    /** The exit code of a build in which no worker could start (sysexits' EX_SOFTWARE; {@code ExitCodes.INTERNAL}). */
    static final int NO_WORKER_EXIT_CODE = 70;

    /**
     * What the user asked for.
     *
     * @param outputs the files to write besides the report; its report path is ignored ({@code report} decides)
     * @param style   how the console reports progress
     * @param width   the terminal's width in columns, for the status line
     * @param buildParallelism {@code K} of each job's {@code cmake --build --parallel K}; 0: the machine's
     *                         {@code cpus} shared out among the workers the build uses
     * @param cache   the build cache, opened; null for none ({@code --no-cache})
     * @param scheduling the order of the queue and configure seeding
     */
    public record Settings(Path manifest, int jobs, TargetRequest arch, Path report, Path logDir,
                           boolean keepGoing, Duration timeout, int retries, int buildParallelism,
                           int maxJobsPerWorker, Verification verify, ReportFiles outputs, ConsoleStyle style,
                           int width, int cpus, Long maxLogBytes, CacheConfig cache,
                           SessionScheduling.Options scheduling) {

        /** Without a cache, in submission order, without configure seeds. */
        public Settings(Path manifest, int jobs, TargetRequest arch, Path report, Path logDir,
                        boolean keepGoing, Duration timeout, int retries, int buildParallelism,
                        int maxJobsPerWorker, Verification verify, ReportFiles outputs, ConsoleStyle style,
                        int width, int cpus, Long maxLogBytes) {
            this(manifest, jobs, arch, report, logDir, keepGoing, timeout, retries, buildParallelism,
                    maxJobsPerWorker, verify, outputs, style, width, cpus, maxLogBytes, null,
                    SessionScheduling.Options.PLAIN);
        }

        /** These settings with {@code cache} (null: none). */
        public Settings withCache(CacheConfig config) {
            return new Settings(manifest, jobs, arch, report, logDir, keepGoing, timeout, retries, buildParallelism,
                    maxJobsPerWorker, verify, outputs, style, width, cpus, maxLogBytes, config, scheduling);
        }

        /** These settings with {@code options} for the queue's order and configure seeding. */
        public Settings withScheduling(SessionScheduling.Options options) {
            return new Settings(manifest, jobs, arch, report, logDir, keepGoing, timeout, retries, buildParallelism,
                    maxJobsPerWorker, verify, outputs, style, width, cpus, maxLogBytes, cache, options);
        }

        /** With each job's log capped at {@link SchedulerConfig#DEFAULT_MAX_LOG_BYTES}. */
        public Settings(Path manifest, int jobs, TargetRequest arch, Path report, Path logDir,
                        boolean keepGoing, Duration timeout, int retries, int buildParallelism,
                        int maxJobsPerWorker, Verification verify, ReportFiles outputs, ConsoleStyle style,
                        int width, int cpus) {
            this(manifest, jobs, arch, report, logDir, keepGoing, timeout, retries, buildParallelism,
                    maxJobsPerWorker, verify, outputs, style, width, cpus, SchedulerConfig.DEFAULT_MAX_LOG_BYTES);
        }

        /**
         * {@code K} for a build with {@code workers} workers: the one asked for, else the CPUs shared out among
         * the workers, so that the compilers neither oversubscribe the cores (every worker building at once)
         * nor leave them idle (fewer jobs than {@code -j}).
         */
        public int buildParallelism(int workers) {
            return buildParallelism > 0 ? buildParallelism : Math.max(1, cpus / workers);
        }
    }

    private final Settings settings;
    private final ArchResolver resolver;
    private final ToolchainCheck toolchain;
    private final Function<Path, WorkerLauncher> launchers;
    private final Clock clock;
    private final MeterRegistry registry;
    private final PrintStream out;
    private final PrintStream err;

    /**
     * @param toolchain asks the compiler about the resolved targets before any job starts; null to skip
     * @param launchers makes the worker launcher, given the folder for worker logs
     */
    public BuildSession(Settings settings, ArchResolver resolver, ToolchainCheck toolchain,
                        Function<Path, WorkerLauncher> launchers, Clock clock, MeterRegistry registry,
                        PrintStream out, PrintStream err) {
        this.settings = settings;
        this.resolver = resolver;
        this.toolchain = toolchain;
        this.launchers = launchers;
        this.clock = clock;
        this.registry = registry;
        this.out = out;
        this.err = err;
    }

    /**
     * Runs the build; the exit code is 0 when every job succeeded, 70 when no worker could start, 130 after an
     * interrupt, 1 otherwise.
     */
    public int run() throws ManifestException, OutputPathException, ArchSyntaxException, ArchResolutionException,
            CacheSetupException, IOException {
        Instant started = clock.instant();
        Manifest manifest = new ManifestReader().read(settings.manifest());
        Path base = manifest.baseDir();
        Path logDir = settings.logDir() != null ? settings.logDir().toAbsolutePath()
                : base.resolve(".archpool").resolve("logs");
        Path reportFile = settings.report() != null ? settings.report().toAbsolutePath()
                : base.resolve(".archpool").resolve("report.json");
        outputPaths(logDir, reportFile).check(
                manifest.jobs().stream().map(JobSpec::id).collect(Collectors.toSet()), settings.retries() + 1);
        DiskCache cacheFolder = SessionReport.openCacheFolder(settings, err);
        LogLayout logs = new LogLayout(logDir);
        // the console is written on threads of its own: a reader that does not read never stalls the build
        ConsoleOutput stdout = ConsoleOutput.start(out, "stdout");
        ConsoleOutput stderr = ConsoleOutput.start(err, "stderr");
        try (LogFolderLock lock = LogFolderLock.acquire(logs, LogFolderLock.Holder.thisProcess(started,
                     manifest.file()));
             CoordinatorLog log = CoordinatorLog.open(logs.coordinatorLog())) {
            LOG.info("archpool {} build of {} ({} jobs), -j {}", Version.current(), manifest.file(),
                    manifest.jobs().size(), settings.jobs());
            return run(started, manifest, logDir, reportFile, cacheFolder, stdout, stderr);
        } finally {
            stdout.finish();
            stderr.finish();
        }
    }

    /** Every path the build writes, as given or by default, for the check before anything runs. */
    private OutputPaths outputPaths(Path logDir, Path reportFile) {
        return outputPaths(settings, settings.manifest(), logDir, reportFile);
    }

    /**
     * Every path a session writes, as given or by default: the report, the other outputs asked for, the log folder.
     *
     * @param manifest the manifest, null for {@code serve}
     */
    static OutputPaths outputPaths(Settings settings, Path manifest, Path logDir, Path reportFile) {
        String where = manifest != null ? OutputPaths.Output.BESIDE_THE_MANIFEST : "in the working folder";
        List<OutputPaths.Output> files = new ArrayList<>();
        files.add(settings.report() != null ? OutputPaths.Output.given("--report", "report", settings.report())
                : OutputPaths.Output.byDefault("--report", "report", reportFile, where));
        ReportFiles more = settings.outputs();
        Map<String, Path> asked = new LinkedHashMap<>();
        asked.put("--metrics", more.metrics());
        asked.put("--trace", more.trace());
        asked.put("--junit", more.junit());
        asked.put("--html", more.html());
        asked.forEach((flag, path) -> {
            if (path != null) {
                files.add(OutputPaths.Output.given(flag, flag.substring(2), path));
            }
        });
        OutputPaths.Output folder = settings.logDir() != null
                ? OutputPaths.Output.given("--log-dir", "log folder", settings.logDir())
                : OutputPaths.Output.byDefault("--log-dir", "log folder", logDir, where);
        return new OutputPaths(manifest, files, folder);
    }

    private int run(Instant started, Manifest manifest, Path logDir, Path reportFile, DiskCache cacheFolder,
                    ConsoleOutput stdout, ConsoleOutput stderr)
            throws ArchSyntaxException, ArchResolutionException, IOException, ManifestException,
            OutputPathException {

        BuildMetrics metrics = new BuildMetrics(registry);
        int workers = Math.min(settings.jobs(), manifest.jobs().size());
        ConsoleReporter console = new ConsoleReporter(stdout, manifest.jobs().size(), settings.style(),
                settings.width());
        LogReporter logReporter = new LogReporter();
        WorkerLauncher launcher = launchers.apply(new LogLayout(logDir).workerLogs());
        try (WorkerPool pool = new WorkerPool(launcher, workers, settings.maxJobsPerWorker(), clock,
                event -> {
                    metrics.accept(event);
                    logReporter.accept(event);
                    console.accept(event);
                })) {
            // the workers' JVMs start while the architecture is resolved; they never need it to start
            pool.warmUp();
            List<ResolvedTarget> targets;
            try (ResolutionInterruptHook interrupt = new ResolutionInterruptHook(pool, err)) {
                targets = ResolvedTarget.resolveAll(resolver, toolchain, settings.arch(), metrics, stderr);
            }
            for (ResolvedTarget target : targets) {
                console.note(target.line());
                LOG.info(target.line());
            }
            List<JobTargets.Assignment> plan = plan(manifest, targets, logDir);
            console.expect(plan.size());
            return build(started, manifest, logDir, reportFile, cacheFolder, targets, plan, pool, metrics, console,
                    logReporter, stderr);
        }
    }

    /** How a build's or a service's scheduler runs jobs ({@code serve} always keeps going). */
    static SchedulerConfig schedulerConfig(Settings settings, Target target, int parallelism, Path logDir,
                                           boolean keepGoing, BuildCache cache, SessionScheduling scheduling) {
        return scheduling.applyTo(new SchedulerConfig(target, logDir,
                settings.timeout() == null ? 0 : settings.timeout().toMillis(), parallelism, settings.retries(),
                keepGoing, settings.verify())
                .withMaxLogBytes(settings.maxLogBytes())
                .withCache(cache));
    }

    /**
     * Which (job, target) pairs the build runs, before any runs; with several targets, the log folder gets a folder
     * per platform.
     *
     * @throws ManifestException   when a command job leaves its platform open in a run with several targets
     * @throws OutputPathException when a platform's log folder cannot be made (exit 2, nothing has run)
     */
    private static List<JobTargets.Assignment> plan(Manifest manifest, List<ResolvedTarget> targets, Path logDir)
            throws ManifestException, OutputPathException {
        List<JobTargets.Assignment> plan;
        try {
            plan = JobTargets.assign(manifest.jobs(), manifest::scope,
                    targets.stream().map(t -> t.resolution().target()).toList(), ResolvedTarget.builds(targets));
        } catch (ManifestException e) {
            throw new ManifestException("manifest " + manifest.file() + ": " + e.getMessage(), e);
        }
        if (targets.size() > 1) {
            for (ResolvedTarget t : targets) {
                Path folder = logDir.resolve(t.resolution().platform().wireName());
                try {
                    Files.createDirectories(folder);
                } catch (IOException e) {
                    throw new OutputPathException("cannot make " + folder + " (" + e.getMessage() + "), where the"
                            + " logs of the " + t.resolution().platform().wireName() + " target's jobs go in a run of"
                            + " several targets: remove what is there, or choose another --log-dir");
                }
            }
        }
        return plan;
    }

    private int build(Instant started, Manifest manifest, Path logDir, Path reportFile, DiskCache cacheFolder,
                      List<ResolvedTarget> targets, List<JobTargets.Assignment> plan,
                      WorkerPool pool, BuildMetrics metrics, ConsoleReporter console, LogReporter logReporter,
                      ConsoleOutput stderr) throws IOException {
        Resolution resolution = targets.get(0).resolution();
        int workers = pool.size();
        int parallelism = settings.buildParallelism(workers);
        List<JobOutcome> outcomes = new ArrayList<>();
        ReportFiles outputs = settings.outputs().withReport(reportFile);
        SchedulerListener listener = SchedulerListener.all(logReporter, console, metrics);
        try (SessionScheduling scheduling = SessionScheduling.open(settings.scheduling(), cacheFolder,
                     manifest.baseDir());
             BuildCache cache = SessionReport.openCache(settings, cacheFolder, stderr);
             Scheduler scheduler = new Scheduler(pool,
                     schedulerConfig(settings, resolution.target(), parallelism, logDir, settings.keepGoing(), cache,
                             scheduling),
                     clock,
                     listener);
             InterruptHook interrupt = new InterruptHook(scheduler, pool, stderr)) {
            OutputProgress progress = outputs.progress();
            interrupt.track(progress);
            metrics.watchPool(scheduler::busy, pool::liveWorkers, scheduler::queued);
            List<CompletableFuture<JobOutcome>> built = scheduler.submitTargeted(plan.stream()
                    .filter(a -> a.skipped() == null).map(JobTargets.Assignment::unit).toList());
            int next = 0;
            for (JobTargets.Assignment a : plan) {
                if (a.skipped() == null) {
                    outcomes.add(built.get(next++).join());
                } else {
                    JobOutcome skipped = JobOutcome.skipped(a.unit(), a.skipped());
                    listener.finished(skipped);
                    outcomes.add(skipped);
                }
            }
            interrupt.jobsEnded();
            String noWorker = pool.noWorkerStarted();
            int exitCode = interrupt.fired() ? InterruptHook.EXIT_CODE
                    : noWorker != null ? NO_WORKER_EXIT_CODE
                    : outcomes.stream().allMatch(o -> o.outcome() == Outcome.SUCCEEDED
                            || o.outcome() == Outcome.SKIPPED) ? 0 : 1;
            BuildReport report = SessionReport.of(manifest.file().toString(), started,
                    clock.millis() - started.toEpochMilli(), exitCode, targets, pool, parallelism, settings.retries(),
                    settings.keepGoing(), logDir, outcomes, cache, scheduler.summary());
            scheduling.save();
            SessionReport.pruneCache(settings, cacheFolder, stderr);
            OutputWriteException notWritten = SessionReport.write(outputs, report, registry, progress);
            SessionReport.nameLostNodes(report, stderr);
            if (exitCode == NO_WORKER_EXIT_CODE) {
                stderr.line("archpool: no worker could start, so no job ran (each is crashed in the report): "
                        + noWorker + ". Fix what the worker's JVM says (ARCHPOOL_WORKER_JAVA_OPTS, the Java runtime,"
                        + " the memory it may use) and run the build again.");
            }
            // an interrupted build ends in the interrupt hook, which names what was not written: it hears of the
            // outputs before the summary, the one place where the build waits for the console's reader
            interrupt.outputsWritten(notWritten == null ? null : notWritten.getMessage());
            console.summary(outcomes, targets.stream().map(ResolvedTarget::line).collect(Collectors.joining("\n")),
                    report.schedule().line(), reportFile.toString());
            if (notWritten != null && !interrupt.fired()) {
                throw notWritten;
            }
            return exitCode;
        }
    }
}
