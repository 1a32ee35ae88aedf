package org.archpool.orchestrator.tool;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs each distinct command at most once and replays its output afterwards: the coordinator probes each
 * tool at most once per process, however many jobs, workers or resolutions ask.
 */
public final class OnceToolRunner implements ToolRunner {

    private final ToolRunner delegate;
    private final Map<List<String>, ToolOutput> outputs = new ConcurrentHashMap<>();

    public OnceToolRunner(ToolRunner delegate) {
        this.delegate = delegate;
    }

    @Override
    public ToolOutput run(List<String> command, Duration timeout) {
        return outputs.computeIfAbsent(List.copyOf(command), c -> delegate.run(c, timeout));
    }
}
