package org.archpool.orchestrator.cli;

import ch.qos.logback.classic.LoggerContext;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.Optional;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/** {@code archpool}: the only place that calls {@link System#exit}. */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        // bytes that are not UTF-8 are refused before the JVM's decoded copy of them is used anywhere
        Optional<String> notText = ProcessText.problem(args.length);
        if (notText.isPresent()) {
            System.err.println("archpool: " + notText.get());
            System.exit(ExitCodes.USAGE);
        }
        int code = run(args, CliContext.system());
        // diagnostics on stderr are written asynchronously (logback.xml): let the last ones out, briefly
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext logging) {
            logging.stop();
        }
        System.exit(code);
    }

    /** Runs the command line and returns the exit code. */
    public static int run(String[] args, CliContext context) {
        CommandLine cli = new CommandLine(new ArchpoolCommand(context))
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setOut(new PrintWriter(context.out(), true))
                .setErr(new PrintWriter(context.err(), true))
                .setExitCodeExceptionMapper(new ExitCodes())
                .setParameterExceptionHandler(Main::badUsage)
                .setExecutionExceptionHandler(Main::failed);
        return cli.execute(args);
    }

    private static int badUsage(CommandLine.ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        PrintWriter err = cmd.getErr();
        err.println("archpool: " + e.getMessage());
        CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
        err.println("Run '" + cmd.getCommandSpec().qualifiedName() + " --help' for the options.");
        return ExitCodes.USAGE;
    }

    private static int failed(Exception e, CommandLine cmd, CommandLine.ParseResult parsed) {
        PrintWriter err = cmd.getErr();
        int code = new ExitCodes().getExitCode(e);
        if (code == ExitCodes.INTERNAL) {
            err.println("archpool: internal error: " + e);
            e.printStackTrace(err);
            err.println("This is a bug in archpool; please report it with the lines above.");
        } else {
            err.println("archpool: " + e.getMessage());
        }
        err.flush();
        return code;
    }

    /** Used by tests: a context with the given streams and environment. */
    static CliContext context(PrintStream out, PrintStream err, java.util.Map<String, String> env) {
        return new CliContext(env, Clock.systemUTC(), out, err);
    }
}
