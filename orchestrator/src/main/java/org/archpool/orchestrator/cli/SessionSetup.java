package org.archpool.orchestrator.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import org.archpool.orchestrator.BuildSession;
import org.archpool.orchestrator.SessionScheduling;
import org.archpool.orchestrator.arch.TargetRequest;
import org.archpool.orchestrator.arch.ToolchainCheck;
import org.archpool.orchestrator.pool.LocalWorkerLauncher;
import org.archpool.orchestrator.pool.PoolMode;
import org.archpool.orchestrator.pool.ThreadWorkerLauncher;
import org.archpool.orchestrator.pool.WorkerLauncher;
import org.archpool.orchestrator.pool.WorkerSpec;
import org.archpool.orchestrator.pool.slurm.Scancel;
import org.archpool.orchestrator.pool.slurm.Sinfo;
import org.archpool.orchestrator.pool.slurm.SlurmConfig;
import org.archpool.orchestrator.pool.slurm.SlurmWorkerLauncher;
import org.archpool.orchestrator.report.ReportFiles;
import org.archpool.orchestrator.tool.ProcessToolRunner;
import org.archpool.orchestrator.tool.ToolRunner;
import org.archpool.worker.exec.DeviceNamespace;
import org.archpool.worker.exec.RemoteIsolation;

/**
 * What {@code build} and {@code serve} make of their shared options, checked: the session's settings, what starts
 * the workers, and the compiler check.
 */
final class SessionSetup {

    private final CliContext context;
    private final ArchOptions arch;
    private final PoolOptions pool;
    private final LauncherOptions launcher;
    private final OutputOptions output;
    private final CheckOptions checks;
    private final IsolationOptions isolation;
    private final CacheOptions cache;
    private final Map<String, String> env;
    private final ProcessToolRunner tools;

    SessionSetup(CliContext context, ArchOptions arch, PoolOptions pool, LauncherOptions launcher, OutputOptions output,
                 CheckOptions checks, IsolationOptions isolation, CacheOptions cache) throws UsageException {
        this.context = context;
        this.arch = arch;
        this.pool = pool;
        this.launcher = launcher;
        this.output = output;
        this.checks = checks;
        this.isolation = isolation;
        this.cache = cache;
        // every output path (these, the defaults, the log folder) is checked by the session, through OutputPaths,
        // before anything runs
        output.check();
        launcher.check(pool.mode);
        this.env = context.environment();
        this.tools = new ProcessToolRunner(env, context.clock());
    }

    /** @param manifest null for serve */
    BuildSession.Settings settings(Path manifest, boolean keepGoing, Path report, Path logDir) throws UsageException {
        int cpus = Runtime.getRuntime().availableProcessors();
        int jobs = pool.jobs(launcher.defaultJobs(env, cpus));
        int buildParallelism = pool.buildParallelism();
        if (launcher.slurm()) {
            LauncherOptions.requireSrun(tools);
            buildParallelism = LauncherOptions.slurmCpusPerTask(buildParallelism, env);
        }
        TargetRequest targets = arch.targetRequest();
        return new BuildSession.Settings(manifest, jobs, targets, report, logDir, keepGoing, pool.timeout,
                pool.retries(), buildParallelism, pool.maxJobsPerWorker(), checks.verification(),
                new ReportFiles(null, output.metrics, output.trace, output.junit, output.html),
                output.style(context), columns(context), cpus, output.maxLogBytes(), cache.open(context, tools),
                new SessionScheduling.Options(pool.order, !pool.noConfigureSeed, env));
    }

    /** What starts the workers, given the folder for their logs; {@code --isolate-devices} is decided here, once. */
    Function<Path, WorkerLauncher> launchers(BuildSession.Settings settings) throws UsageException {
        int cpusPerTask = settings.buildParallelism();
        Duration silence = pool.heartbeatTimeout();
        Consumer<String> note = context.err()::println;
        if (pool.mode == PoolMode.THREAD) {
            IsolationOptions.ThreadSteps steps = isolation.threadSteps(note);
            return workerLogs -> ThreadWorkerLauncher.owning(steps.launcher(), steps.isolation());
        }
        if (launcher.slurm()) {
            Duration start = pool.workerStartTimeout(LauncherOptions.SLURM_START_TIMEOUT);
            SlurmConfig slurm = launcher.slurmConfig(env, cpusPerTask);
            ToolRunner runner = tools;
            Optional<RemoteIsolation> remote = isolation.remote();
            return workerLogs -> new SlurmWorkerLauncher(WorkerSpec.ofCurrentJvm(env, workerLogs, start, silence),
                    slurm, new Scancel(slurm, runner), remote, new Sinfo(slurm.sinfo(), runner));
        }
        Duration start = pool.workerStartTimeout(WorkerSpec.DEFAULT_HELLO_TIMEOUT);
        Optional<DeviceNamespace> namespace = isolation.workerNamespace(note);
        return workerLogs -> new LocalWorkerLauncher(WorkerSpec.ofCurrentJvm(env, workerLogs, start, silence)
                .isolatedIn(namespace));
    }

    /** The compiler check, or null when {@code --no-toolchain-check}. */
    ToolchainCheck toolchain() {
        return checks.noToolchainCheck ? null : new ToolchainCheck(tools, env, arch.probeTimeout);
    }

    /** The terminal's width from {@code COLUMNS}, which shells export; 0 when unknown. */
    private static int columns(CliContext context) {
        try {
            return Integer.parseInt(context.environment().getOrDefault("COLUMNS", "0").trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
