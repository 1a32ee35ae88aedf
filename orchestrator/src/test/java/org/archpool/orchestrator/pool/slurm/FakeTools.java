package org.archpool.orchestrator.pool.slurm;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.archpool.orchestrator.tool.ToolOutput;
import org.archpool.orchestrator.tool.ToolRunner;

/** Slurm's commands faked for the tests of the classes that run them: records every command, answers with a function. */
final class FakeTools implements ToolRunner {

    final List<List<String>> commands = new ArrayList<>();
    final List<Duration> timeouts = new ArrayList<>();
    private final Function<List<String>, ToolOutput> answer;

    FakeTools(Function<List<String>, ToolOutput> answer) {
        this.answer = answer;
    }

    @Override
    public ToolOutput run(List<String> command, Duration timeout) {
        commands.add(command);
        timeouts.add(timeout);
        return answer.apply(command);
    }

    /** What a command that ran and exited with {@code code} gives. */
    static ToolOutput exited(List<String> command, int code, String stdout, String stderr) {
        return new ToolOutput(command, ToolOutput.Status.EXITED, code, stdout, stderr, 3, null);
    }
}
