package org.archpool.orchestrator.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.archpool.orchestrator.BuildSession;
import org.archpool.orchestrator.ServeSession;
import org.archpool.orchestrator.output.FileErrors;
import org.archpool.orchestrator.service.ConnectionWriter;
import org.archpool.orchestrator.service.StdioTransport;
import org.archpool.orchestrator.service.StopRequest;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code archpool serve}: builds jobs that clients submit, for one resolved architecture (docs/service.md). */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Resolve the GPU architecture once, start a pool of workers that cannot see a GPU, and build the"
                + " jobs clients submit as JSON lines over stdio or a Unix socket (docs/service.md), until a shutdown."
                + " Writes a JSON report of every job that ran and one log per job.")
public final class ServeCommand implements Callable<Integer> {

    @ParentCommand
    ArchpoolCommand parent;

    @Option(names = "--stdio", description = "Talk to the one client that started serve, over stdin and stdout.")
    boolean stdio;

    @Option(names = "--socket", paramLabel = "PATH",
            description = "Listen on a Unix domain socket at PATH (its folder: yours, mode 0700, created if missing).")
    Path socket;

    @Option(names = "--stop", description = "With --socket: stop the serve listening there (its running jobs are"
            + " cancelled) and wait until it has written its report.")
    boolean stop;

    @Option(names = "--stop-timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "With --stop: how long to wait for that serve's hello and bye (default: 60s).")
    Duration stopTimeout = StopRequest.DEFAULT_LIMIT;

    @Option(names = "--client-stall-limit", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long a client may leave a reply unread before it is disconnected (a client over"
                    + " --stdio: serve then ends); default: 30s.")
    Duration clientStallLimit = ConnectionWriter.DEFAULT_STALL_LIMIT;

    @Mixin
    ArchOptions archOptions = new ArchOptions();

    @Mixin
    PoolOptions poolOptions = new PoolOptions();

    @Mixin
    LauncherOptions launcherOptions = new LauncherOptions();

    @Mixin
    OutputOptions outputOptions = new OutputOptions();

    @Mixin
    CheckOptions checkOptions = new CheckOptions();

    @Mixin
    CacheOptions cacheOptions = new CacheOptions();

    /** Not an option of serve (it always keeps going), kept out of its help: there only to say so. */
    @Option(names = {"-k", "--keep-going"}, hidden = true)
    boolean keepGoing;

    @Mixin
    IsolationOptions isolationOptions = new IsolationOptions();

    @Option(names = "--report", paramLabel = "FILE",
            description = "Where to write the JSON report when serve ends (default: report.json in the log folder).")
    Path report;

    @Option(names = "--log-dir", paramLabel = "DIR",
            description = "Folder for job and worker logs (default: .archpool/serve-PID in the working folder).")
    Path logDir;

    @Override
    public Integer call() throws Exception {
        CliContext context = parent.context();
        if (stdio == (socket != null)) {
            throw new UsageException("serve needs exactly one of --stdio (one client, over stdin and stdout) and"
                    + " --socket PATH (any number of clients, over a Unix socket)");
        }
        if (stop) {
            if (socket == null) {
                throw new UsageException("--stop stops the serve on a socket: give --socket PATH with it");
            }
            return stop(context);
        }
        if (keepGoing) {
            throw new UsageException("-k/--keep-going does not apply to serve, which always keeps going; leave it out");
        }
        SessionSetup setup = new SessionSetup(context, archOptions, poolOptions, launcherOptions, outputOptions,
                checkOptions, isolationOptions, cacheOptions);
        BuildSession.Settings settings = setup.settings(null, true, report, logDir);
        ServeSession.Endpoint endpoint = stdio
                ? ServeSession.Endpoint.stdio(new FileInputStream(FileDescriptor.in), StdioTransport.standardOutput(),
                        clientStallLimit)
                : ServeSession.Endpoint.socket(socket, clientStallLimit);
        return new ServeSession(settings, endpoint, Path.of("").toAbsolutePath(), archOptions.resolver(context),
                setup.toolchain(), setup.launchers(settings), context.clock(),
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), context.err()).run();
    }

    private int stop(CliContext context) throws UsageException {
        JsonNode bye;
        try {
            bye = StopRequest.stop(socket.toAbsolutePath(), stopTimeout);
        } catch (StopRequest.NoAnswerException e) {
            throw new UsageException("--stop could not stop what listens on --socket " + socket + ": "
                    + e.getMessage() + "; find its process (e.g. 'fuser " + socket + "' or 'ss -xp'), and continue or"
                    + " kill it; --stop-timeout DURATION waits longer");
        } catch (IOException e) {
            throw new UsageException("no archpool serve answers on --socket " + socket + " ("
                    + FileErrors.describe(e) + "), so there is nothing to stop; check the path");
        }
        context.err().println("archpool: the serve on " + socket + " stopped; "
                + (bye.hasNonNull("report") ? "report: " + bye.get("report").asText()
                : "its report was not written: " + bye.path("notWritten").asText()));
        return ExitCodes.OK;
    }
}
