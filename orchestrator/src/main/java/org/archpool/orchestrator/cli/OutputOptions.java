package org.archpool.orchestrator.cli;

import java.nio.file.Path;
import org.archpool.orchestrator.report.ConsoleStyle.Verbosity;
import org.archpool.orchestrator.report.ConsoleStyle;
import picocli.CommandLine.Option;

/** What {@code archpool build} writes besides the JSON report, and how much it prints. */
public final class OutputOptions {

    @Option(names = "--metrics", paramLabel = "FILE",
            description = "Write the build's metrics in Prometheus text format (for node_exporter's textfile"
                    + " collector): job timers, outcome counters, worker starts and deaths, probes.")
    Path metrics;

    @Option(names = "--trace", paramLabel = "FILE",
            description = "Write a Chrome trace-event JSON file, one track per worker (open it in Perfetto or"
                    + " chrome://tracing).")
    Path trace;

    @Option(names = "--junit", paramLabel = "FILE",
            description = "Write a JUnit XML file, one test case per job, for CI test reporters.")
    Path junit;

    @Option(names = "--html", paramLabel = "FILE",
            description = "Write a self-contained HTML report: summary, sortable job table, timeline, failures.")
    Path html;

    @Option(names = {"-q", "--quiet"}, description = "Print only jobs that did not succeed and the last line.")
    boolean quiet;

    @Option(names = {"-v", "--verbose"}, description = "Also print each attempt, phase and worker start or death.")
    boolean verbose;

    @Option(names = "--max-log-size", paramLabel = "SIZE", defaultValue = LogSize.DEFAULT,
            description = "The most each job's log keeps, e.g. 64M, 1G, 512K or bytes; 0 or unlimited for whole logs"
                    + " (default: ${DEFAULT-VALUE}). Over it a log keeps its first and last halves and says what was"
                    + " cut.")
    String maxLogSize = LogSize.DEFAULT;

    /** @return the cap of each job's log in bytes, or null for none */
    Long maxLogBytes() throws UsageException {
        return LogSize.parse(maxLogSize);
    }

    /**
     * @throws UsageException for contradictory flags (the paths are checked with the build's other outputs, by
     *                        {@code OutputPaths}), and a --max-log-size that is not a size
     */
    void check() throws UsageException {
        if (quiet && verbose) {
            throw new UsageException("--quiet and --verbose contradict each other; give at most one of them");
        }
        maxLogBytes();
    }

    ConsoleStyle style(CliContext context) {
        Verbosity verbosity = quiet ? Verbosity.QUIET : verbose ? Verbosity.VERBOSE : Verbosity.NORMAL;
        return ConsoleStyle.of(context.terminal(), context.environment(), verbosity);
    }
}
