package org.archpool.orchestrator.cli;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.Function;
import org.archpool.orchestrator.BuildSession;
import org.archpool.orchestrator.arch.ToolchainCheck;
import org.archpool.orchestrator.pool.LocalWorkerLauncher;
import org.archpool.orchestrator.pool.PoolMode;
import org.archpool.orchestrator.pool.ThreadWorkerLauncher;
import org.archpool.orchestrator.pool.WorkerLauncher;
import org.archpool.orchestrator.pool.WorkerSpec;
import org.archpool.orchestrator.pool.slurm.Scancel;
import org.archpool.orchestrator.pool.slurm.SlurmConfig;
import org.archpool.orchestrator.pool.slurm.SlurmWorkerLauncher;
import org.archpool.orchestrator.report.ReportFiles;
import org.archpool.orchestrator.tool.ProcessToolRunner;
import org.archpool.orchestrator.tool.ToolRunner;
import org.archpool.orchestrator.verify.Verification;
import org.archpool.orchestrator.verify.VerifyPolicy;
import org.archpool.worker.JobRunner;
import org.archpool.worker.exec.DeviceNamespace;
import org.archpool.worker.exec.RemoteIsolation;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code archpool build MANIFEST}: builds every job of a manifest for the resolved architecture. */
@Command(name = "build", mixinStandardHelpOptions = true,
        description = "Build every job of MANIFEST for one resolved GPU architecture, in a pool of workers"
                + " that cannot see a GPU. Writes a JSON report and one log per job.")
public final class BuildCommand implements Callable<Integer> {

    @ParentCommand
    ArchpoolCommand parent;

    @Parameters(index = "0", paramLabel = "MANIFEST", description = "The manifest (JSON, version 1).")
    Path manifest;

    @Mixin
    ArchOptions archOptions = new ArchOptions();

    @Mixin
    PoolOptions poolOptions = new PoolOptions();

    @Mixin
    LauncherOptions launcherOptions = new LauncherOptions();

    @Mixin
    OutputOptions outputOptions = new OutputOptions();

    @Mixin
    IsolationOptions isolationOptions = new IsolationOptions();

    @Option(names = "--report", paramLabel = "FILE",
            description = "Where to write the JSON report (default: .archpool/report.json beside the manifest).")
    Path report;

    @Option(names = "--log-dir", paramLabel = "DIR",
            description = "Folder for job and worker logs (default: .archpool/logs beside the manifest); one build"
                    + " at a time holds it.")
    Path logDir;

    @Option(names = "--verify", paramLabel = "strict|exact|warn|off", defaultValue = "strict",
            description = "Check the GPU code in what each job built: strict (default) fails a job whose artifacts"
                    + " lack a requested architecture, exact also fails on extra ones, warn only warns, off skips.")
    VerifyPolicy verify;

    @Option(names = "--forbid-hostcall",
            description = "Fail jobs whose AMD kernels need a hostcall buffer (device printf or assert), which GPUs on"
                    + " platforms without PCIe atomics cannot dispatch.")
    boolean forbidHostcall;

    @Option(names = "--no-toolchain-check",
            description = "Do not ask the compiler (nvcc, hipcc or clang++; $CUDACXX/$HIPCXX) whether it supports the"
                    + " resolved architectures before the build.")
    boolean noToolchainCheck;

    @Override
    public Integer call() throws Exception {
        CliContext context = parent.context();
        // every output path (these, the defaults beside the manifest, the log folder) is checked by BuildSession,
        // through OutputPaths, once the manifest is read and before anything runs
        outputOptions.check();
        launcherOptions.check(poolOptions.mode);
        Map<String, String> env = context.environment();
        ProcessToolRunner tools = new ProcessToolRunner(env, context.clock());
        int cpus = Runtime.getRuntime().availableProcessors();
        int jobs = poolOptions.jobs(launcherOptions.defaultJobs(env, cpus));
        int buildParallelism = poolOptions.buildParallelism();
        if (launcherOptions.slurm()) {
            LauncherOptions.requireSrun(tools);
            buildParallelism = LauncherOptions.slurmCpusPerTask(buildParallelism, env);
        }
        BuildSession.Settings settings = new BuildSession.Settings(manifest, jobs, archOptions.request(), report,
                logDir, poolOptions.keepGoing, poolOptions.timeout, poolOptions.retries(), buildParallelism,
                poolOptions.maxJobsPerWorker(), new Verification(verify, forbidHostcall),
                new ReportFiles(null, outputOptions.metrics, outputOptions.trace, outputOptions.junit,
                        outputOptions.html),
                outputOptions.style(context), columns(context), cpus, outputOptions.maxLogBytes());
        Function<Path, WorkerLauncher> launchers = launchers(env, tools, settings.buildParallelism(),
                context.err()::println);
        ToolchainCheck toolchain = noToolchainCheck ? null : new ToolchainCheck(tools, env, archOptions.probeTimeout);
        return new BuildSession(settings, archOptions.resolver(context), toolchain, launchers, context.clock(),
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), context.out(), context.err()).run();
    }

    /** What starts the workers, given the folder for their logs. */
    private Function<Path, WorkerLauncher> launchers(Map<String, String> env, ToolRunner tools, int cpusPerTask,
                                                     Consumer<String> note) throws UsageException {
        Duration silence = poolOptions.heartbeatTimeout();
        if (poolOptions.mode == PoolMode.THREAD) {
            IsolationOptions.ThreadSteps steps = isolationOptions.threadSteps(note);
            return workerLogs -> new ThreadWorkerLauncher(JobRunner.standard(steps.launcher()), steps.isolation());
        }
        if (launcherOptions.slurm()) {
            Duration start = poolOptions.workerStartTimeout(LauncherOptions.SLURM_START_TIMEOUT);
            SlurmConfig slurm = launcherOptions.slurmConfig(env, cpusPerTask);
            Optional<RemoteIsolation> isolation = isolationOptions.remote();
            return workerLogs -> new SlurmWorkerLauncher(WorkerSpec.ofCurrentJvm(env, workerLogs, start, silence),
                    slurm, new Scancel(slurm, tools), isolation);
        }
        Duration start = poolOptions.workerStartTimeout(WorkerSpec.DEFAULT_HELLO_TIMEOUT);
        Optional<DeviceNamespace> isolation = isolationOptions.workerNamespace(note);
        return workerLogs -> new LocalWorkerLauncher(WorkerSpec.ofCurrentJvm(env, workerLogs, start, silence)
                .isolatedIn(isolation));
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
