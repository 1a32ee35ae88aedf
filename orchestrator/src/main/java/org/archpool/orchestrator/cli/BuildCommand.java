package org.archpool.orchestrator.cli;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.archpool.orchestrator.BuildSession;
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

    @Option(names = "--report", paramLabel = "FILE",
            description = "Where to write the JSON report (default: .archpool/report.json beside the manifest).")
    Path report;

    @Option(names = "--log-dir", paramLabel = "DIR",
            description = "Folder for job and worker logs (default: .archpool/logs beside the manifest); one build"
                    + " at a time holds it.")
    Path logDir;

    @Mixin
    CheckOptions checkOptions = new CheckOptions();

    @Mixin
    CacheOptions cacheOptions = new CacheOptions();

    @Option(names = {"-k", "--keep-going"},
            description = "Keep starting jobs after one fails (default: stop starting new ones; all are reported).")
    boolean keepGoing;

    @Mixin
    IsolationOptions isolationOptions = new IsolationOptions();

    @Override
    public Integer call() throws Exception {
        CliContext context = parent.context();
        SessionSetup setup = new SessionSetup(context, archOptions, poolOptions, launcherOptions, outputOptions,
                checkOptions, isolationOptions, cacheOptions);
        BuildSession.Settings settings = setup.settings(manifest, keepGoing, report, logDir);
        return new BuildSession(settings, archOptions.resolver(context), setup.toolchain(), setup.launchers(settings),
                context.clock(), new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), context.out(), context.err())
                .run();
    }
}
