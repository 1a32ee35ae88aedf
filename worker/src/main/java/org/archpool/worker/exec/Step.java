package org.archpool.worker.exec;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.archpool.protocol.Phase;

/** One process of a job: which phase it is, what to run (no shell), where, and with what environment. */
public record Step(Phase phase, List<String> argv, Path cwd, Map<String, String> env) {
    public Step {
        Objects.requireNonNull(phase, "phase");
        argv = List.copyOf(argv);
        Objects.requireNonNull(cwd, "cwd");
        env = Map.copyOf(env);
        if (argv.isEmpty()) {
            throw new IllegalArgumentException("a step needs a program to run");
        }
    }
}
