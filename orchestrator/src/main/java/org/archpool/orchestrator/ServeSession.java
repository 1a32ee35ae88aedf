package org.archpool.orchestrator;

import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.archpool.orchestrator.arch.ArchResolutionException;
import org.archpool.orchestrator.arch.ArchResolver;
import org.archpool.orchestrator.arch.ArchSyntaxException;
import org.archpool.orchestrator.arch.Resolution;
import org.archpool.orchestrator.arch.ToolchainCheck;
import org.archpool.orchestrator.cache.BuildCache;
import org.archpool.orchestrator.cache.CacheSetupException;
import org.archpool.orchestrator.cache.DiskCache;
import org.archpool.orchestrator.manifest.ManifestReader;
import org.archpool.orchestrator.metrics.BuildMetrics;
import org.archpool.orchestrator.output.LogFolderLock;
import org.archpool.orchestrator.output.LogLayout;
import org.archpool.orchestrator.output.OutputPathException;
import org.archpool.orchestrator.pool.WorkerLauncher;
import org.archpool.orchestrator.pool.WorkerPool;
import org.archpool.orchestrator.report.BuildReport;
import org.archpool.orchestrator.report.ConsoleOutput;
import org.archpool.orchestrator.report.ConsoleReporter;
import org.archpool.orchestrator.report.ConsoleStyle;
import org.archpool.orchestrator.report.LiveMetrics;
import org.archpool.orchestrator.report.LogReporter;
import org.archpool.orchestrator.report.OutputProgress;
import org.archpool.orchestrator.report.OutputWriteException;
import org.archpool.orchestrator.report.ReportFiles;
import org.archpool.orchestrator.schedule.JobOutcome;
import org.archpool.orchestrator.schedule.Scheduler;
import org.archpool.orchestrator.schedule.SchedulerListener;
import org.archpool.orchestrator.service.ConnectionWriter;
import org.archpool.orchestrator.service.JobService;
import org.archpool.orchestrator.service.ServerMessage;
import org.archpool.orchestrator.service.SocketPath;
import org.archpool.orchestrator.service.SocketTransport;
import org.archpool.orchestrator.service.StdioTransport;
import org.archpool.orchestrator.service.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code archpool serve} (docs/service.md): check the output paths and the socket, resolve the target once
 * while the workers start, then take jobs from clients over stdio or a Unix socket until a shutdown, the end of
 * stdin or a signal; then write the report of every job that ran and say {@code bye}. It only sequences; the steps
 * it shares with {@link BuildSession} are that class's output paths and {@link ResolvedTarget}.
 */
public final class ServeSession {

    private static final Logger LOG = LoggerFactory.getLogger(ServeSession.class);

    /** How long the last replies ({@code result}s, {@code bye}) get to reach the clients at the end. */
    static final Duration FAREWELL_GRACE = Duration.ofSeconds(2);
    /**
     * The same after SIGINT or SIGTERM, which end serve within 2 s: the cancel of the running jobs takes most of
     * that, and a client that does not read is not waited on.
     */
    static final Duration INTERRUPTED_FAREWELL_GRACE = Duration.ofMillis(300);

    /**
     * Where clients come from.
     *
     * @param socket     the Unix socket's path, or null for stdio ({@code in} and {@code out})
     * @param stallLimit how long a client may leave a reply unread before it is disconnected
     */
    public record Endpoint(Path socket, InputStream in, OutputStream out, Duration stallLimit) {

        public static Endpoint stdio(InputStream in, OutputStream out, Duration stallLimit) {
            return new Endpoint(null, in, out, stallLimit);
        }

        public static Endpoint socket(Path path, Duration stallLimit) {
            return new Endpoint(path, null, null, stallLimit);
        }
    }

    private final BuildSession.Settings settings;
    private final Endpoint endpoint;
    private final Path cwd;
    private final ArchResolver resolver;
    private final ToolchainCheck toolchain;
    private final Function<Path, WorkerLauncher> launchers;
    private final Clock clock;
    private final MeterRegistry registry;
    private final PrintStream err;

    /**
     * @param settings as for a build, without a manifest; {@code keepGoing} is ignored (a service always keeps going)
     * @param cwd      where the default log folder goes
     */
    public ServeSession(BuildSession.Settings settings, Endpoint endpoint, Path cwd, ArchResolver resolver,
                        ToolchainCheck toolchain, Function<Path, WorkerLauncher> launchers, Clock clock,
                        MeterRegistry registry, PrintStream err) {
        this.settings = settings;
        this.endpoint = endpoint;
        this.cwd = cwd.toAbsolutePath();
        this.resolver = resolver;
        this.toolchain = toolchain;
        this.launchers = launchers;
        this.clock = clock;
        this.registry = registry;
        this.err = err;
    }

    /** Serves until the end; 0, 74 when the report could not be written, 130 after a signal (from the hook). */
    public int run() throws OutputPathException, ArchSyntaxException, ArchResolutionException, CacheSetupException,
            IOException {
        Instant started = clock.instant();
        long pid = ProcessHandle.current().pid();
        Path logDir = settings.logDir() != null ? settings.logDir().toAbsolutePath()
                : cwd.resolve(".archpool").resolve("serve-" + pid);
        Path reportFile = settings.report() != null ? settings.report().toAbsolutePath()
                : logDir.resolve("report.json");
        BuildSession.outputPaths(settings, null, logDir, reportFile).check(Set.of(), settings.retries() + 1);
        DiskCache cacheFolder = SessionReport.openCacheFolder(settings, err);
        LogLayout logs = new LogLayout(logDir);
        // its lock is held to the end: another serve starting on the path meanwhile is refused
        try (SocketPath socket = endpoint.socket() == null ? null : SocketPath.prepare(endpoint.socket())) {
            return run(started, pid, logDir, reportFile, logs, socket, cacheFolder);
        }
    }

    private int run(Instant started, long pid, Path logDir, Path reportFile, LogLayout logs, SocketPath socket,
                    DiskCache cacheFolder) throws OutputPathException, ArchSyntaxException, ArchResolutionException, IOException {
        ConsoleOutput stderr = ConsoleOutput.start(err, "stderr");
        try (LogFolderLock lock = LogFolderLock.acquire(logs, LogFolderLock.Holder.thisProcess(started,
                     Path.of("serve")));
             CoordinatorLog log = CoordinatorLog.open(logs.coordinatorLog())) {
            LOG.info("archpool {} serve, pid {}, -j {}, on {}", Version.current(), pid, settings.jobs(),
                    socket == null ? "stdio" : socket.path());
            return serve(started, logDir, reportFile, socket, cacheFolder, stderr);
        } finally {
            stderr.finish();
        }
    }

    private int serve(Instant started, Path logDir, Path reportFile, SocketPath socket, DiskCache cacheFolder,
                      ConsoleOutput stderr) throws ArchSyntaxException, ArchResolutionException, OutputPathException, IOException {
        BuildMetrics metrics = new BuildMetrics(registry);
        ConsoleStyle style = new ConsoleStyle(false, settings.style().color(), settings.style().verbosity());
        // progress goes to stderr: on stdio, stdout carries the protocol alone
        ConsoleReporter console = new ConsoleReporter(stderr, 0, style, settings.width());
        LogReporter logReporter = new LogReporter();
        WorkerLauncher launcher = launchers.apply(new LogLayout(logDir).workerLogs());
        try (WorkerPool pool = new WorkerPool(launcher, settings.jobs(), settings.maxJobsPerWorker(), clock,
                event -> {
                    metrics.accept(event);
                    logReporter.accept(event);
                    console.accept(event);
                })) {
            pool.warmUp();
            List<ResolvedTarget> targets;
            try (ResolutionInterruptHook interrupt = new ResolutionInterruptHook(pool, err)) {
                targets = ResolvedTarget.resolveAll(resolver, toolchain, settings.arch(), metrics, stderr);
            }
            for (ResolvedTarget target : targets) {
                console.note(target.line());
                LOG.info(target.line());
            }
            try (Transport transport = socket == null
                    ? new StdioTransport(endpoint.in(), endpoint.out(), clock, endpoint.stallLimit())
                    : new SocketTransport(socket, socket.bind(), clock, endpoint.stallLimit())) {
                return serve(started, logDir, reportFile, cacheFolder, targets, pool, metrics, console, logReporter,
                        stderr, transport);
            }
        }
    }

    private int serve(Instant started, Path logDir, Path reportFile, DiskCache cacheFolder,
                      List<ResolvedTarget> targets, WorkerPool pool,
                      BuildMetrics metrics, ConsoleReporter console, LogReporter logReporter, ConsoleOutput stderr,
                      Transport transport) throws OutputWriteException {
        Resolution resolution = targets.get(0).resolution();
        List<ServerMessage.Hello.Target> said = targets.stream().map(ResolvedTarget::resolution)
                .map(r -> new ServerMessage.Hello.Target(r.platform().wireName(), r.archs(), r.source(), r.detail()))
                .toList();
        int parallelism = settings.buildParallelism(pool.size());
        ReportFiles outputs = settings.outputs().withReport(reportFile);
        ServerMessage.Hello hello = new ServerMessage.Hello(ServerMessage.SERVICE_VERSION, Version.current(),
                ProcessHandle.current().pid(),
                said.get(0), said,
                new ServerMessage.Hello.Pool(pool.mode(), pool.launcher(), pool.size(),
                        pool.deviceIsolation().reportName()), logDir.toString(),
                reportFile.toString());
        try (SessionScheduling scheduling = SessionScheduling.open(settings.scheduling(), cacheFolder, null);
             BuildCache cache = SessionReport.openCache(settings, cacheFolder, stderr);
             Scheduler scheduler = new Scheduler(pool,
                     BuildSession.schedulerConfig(settings, resolution.target(), parallelism, logDir, true, cache,
                             scheduling),
                     clock, SchedulerListener.all(logReporter, console, metrics))) {
            JobService service = new JobService(scheduler, pool, new ManifestReader(), clock, hello,
                    targets.stream().map(t -> t.resolution().target()).toList(), ResolvedTarget.builds(targets));
            try (InterruptHook interrupt = new InterruptHook(scheduler, pool, stderr, "serve",
                    () -> service.shutdown(true, "serve was interrupted (SIGINT or SIGTERM)"))) {
                OutputProgress progress = outputs.progress();
                interrupt.track(progress);
                metrics.watchPool(scheduler::busy, pool::liveWorkers, scheduler::queued);
                transport.start(service);
                try (LiveMetrics live = LiveMetrics.start(registry, outputs.metrics(), LiveMetrics.SERVE_INTERVAL)) {
                    service.drained().join();
                }
                interrupt.jobsEnded();
                List<JobOutcome> outcomes = service.outcomes();
                Map<String, Integer> counts = service.outcomeCounts();
                int exitCode = interrupt.fired() ? InterruptHook.EXIT_CODE : 0;
                BuildReport report = SessionReport.of(null, started, clock.millis() - started.toEpochMilli(), exitCode,
                        targets, pool, parallelism, settings.retries(), true, logDir, outcomes, cache,
                        scheduler.summary());
                scheduling.save();
                SessionReport.pruneCache(settings, cacheFolder, stderr);
                OutputWriteException notWritten = SessionReport.write(outputs, report, registry, progress);
                service.bye(notWritten == null ? reportFile.toString() : null,
                        notWritten == null ? null : notWritten.getMessage());
                transport.finish(interrupt.fired() ? INTERRUPTED_FAREWELL_GRACE : FAREWELL_GRACE);
                SessionReport.nameLostNodes(report, stderr);
                stderr.line("archpool serve: " + outcomes.size() + " job(s) ran " + counts + "; report: "
                        + (notWritten == null ? reportFile : "not written: " + notWritten.getMessage()));
                interrupt.outputsWritten(notWritten == null ? null : notWritten.getMessage());
                if (notWritten != null && !interrupt.fired()) {
                    throw notWritten;
                }
                return exitCode;
            }
        }
    }
}
