package org.archpool.orchestrator.cli;

import java.io.PrintStream;
import java.time.Clock;
import java.util.Map;

/**
 * What the commands take from the outside world, injected so tests can supply their own.
 *
 * @param terminal whether {@code out} is an interactive terminal (then progress is a status line updated in place)
 */
public record CliContext(Map<String, String> environment, Clock clock, PrintStream out, PrintStream err,
                         boolean terminal) {

    public CliContext {
        environment = Map.copyOf(environment);
    }

    /** Not a terminal. */
    public CliContext(Map<String, String> environment, Clock clock, PrintStream out, PrintStream err) {
        this(environment, clock, out, err, false);
    }

    public static CliContext system() {
        String term = System.getenv("TERM");
        boolean terminal = System.console() != null && !"dumb".equals(term);
        return new CliContext(System.getenv(), Clock.systemUTC(), System.out, System.err, terminal);
    }
}
