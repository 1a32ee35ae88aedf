package org.archpool.orchestrator.tool;

import java.time.Duration;
import java.util.List;

/** Runs a probe tool and captures what it printed. */
@FunctionalInterface
public interface ToolRunner {
    ToolOutput run(List<String> command, Duration timeout);
}
