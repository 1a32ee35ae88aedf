package org.archpool.orchestrator.report;

import java.util.Map;

/**
 * How the console reports progress.
 *
 * @param statusLine one {@code [done/total] running: …} line updated in place (on a terminal), instead of one line
 *                   per finished job
 * @param color      outcomes in colour: only on a terminal, and never when {@code NO_COLOR} is set
 * @param verbosity  how much is printed
 */
public record ConsoleStyle(boolean statusLine, boolean color, Verbosity verbosity) {

    /** {@code --quiet}, default, {@code --verbose}. */
    public enum Verbosity {
        /** Only jobs that did not succeed, and the final summary line. */
        QUIET,
        /** Progress, each finished job (or the status line), warnings, failures with their log tails, the table. */
        NORMAL,
        /** Also each attempt as it starts and each phase, and worker starts and deaths. */
        VERBOSE
    }

    /**
     * @param terminal    whether standard output is an interactive terminal
     * @param environment the environment, for {@code NO_COLOR} (https://no-color.org: set to anything non-empty)
     * @param verbosity   from {@code --quiet} / {@code --verbose}
     */
    public static ConsoleStyle of(boolean terminal, Map<String, String> environment, Verbosity verbosity) {
        String noColor = environment.get("NO_COLOR");
        boolean color = terminal && (noColor == null || noColor.isEmpty());
        return new ConsoleStyle(terminal && verbosity != Verbosity.QUIET, color, verbosity);
    }
}
