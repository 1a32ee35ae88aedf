package org.archpool.protocol;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One process of a job, concrete: which phase it is, the program and its arguments (run without a shell), the
 * folder it runs in, and the variables it gets on top of the worker's environment. The coordinator makes every
 * step of a job before it sends the job (the CMake command lines with the architecture define, a command's
 * expanded argv, the architecture conventions in {@code env}); a worker runs the steps in order as given, and
 * only adds the device-visibility variables, last.
 *
 * @param cwd an absolute path; the worker creates it when it does not exist
 */
public record Step(Phase phase, List<String> argv, String cwd, Map<String, String> env) {
    public Step {
        Objects.requireNonNull(phase, "step.phase");
        Objects.requireNonNull(argv, "step.argv");
        argv = List.copyOf(argv);
        if (argv.isEmpty() || argv.get(0).isBlank()) {
            throw new IllegalArgumentException("step.argv must name a program to run");
        }
        Objects.requireNonNull(cwd, "step.cwd");
        env = env == null ? Map.of() : Map.copyOf(env);
    }
}
