package org.archpool.orchestrator.cli;

import java.io.PrintStream;
import java.time.Clock;
import java.util.Map;

/** What the commands take from the outside world, injected so tests can supply their own. */
public record CliContext(Map<String, String> environment, Clock clock, PrintStream out, PrintStream err) {

    public CliContext {
        environment = Map.copyOf(environment);
    }

    public static CliContext system() {
        return new CliContext(System.getenv(), Clock.systemUTC(), System.out, System.err);
    }
}
