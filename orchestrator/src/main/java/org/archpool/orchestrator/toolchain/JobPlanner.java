package org.archpool.orchestrator.toolchain;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Phase;
import org.archpool.protocol.Step;
import org.archpool.protocol.Target;

/**
 * The one place where a target becomes tool arguments. For a {@link CmakeJob}: configure with the generator,
 * build type, the user's defines and {@code -DCMAKE_<LANG>_ARCHITECTURES=<list>} ({@link CmakeInvocation}), then
 * build with {@code --parallel K}; for a {@link CommandJob}: its argv with {@code {archs}} and
 * {@code {offload-arch-flags}} expanded ({@link CommandInvocation}). Every step's environment is the job's own
 * variables, then the architecture conventions nested tools read instead of probing ({@link ArchConventions}).
 * The coordinator plans each job before it is sent; a worker runs the steps as given.
 */
public final class JobPlanner {

    private final CmakeInvocation cmake;

    public JobPlanner(CmakeInvocation cmake) {
        this.cmake = cmake;
    }

    /** A planner that runs {@code cmake} from the worker's PATH. */
    public static JobPlanner standard() {
        return new JobPlanner(new CmakeInvocation("cmake"));
    }

    /**
     * @param buildParallelism {@code K} of {@code cmake --build --parallel K}
     * @throws IllegalArgumentException when an architecture of {@code target} has no compiler flag for a command
     *                                  job's {@code {offload-arch-flags}}
     */
    public ConcreteJob plan(JobSpec job, Target target, int buildParallelism) {
        Map<String, String> env = new LinkedHashMap<>(job.env());
        env.putAll(ArchConventions.environment(target));
        if (job instanceof CmakeJob c) {
            return new ConcreteJob(c, target, List.of(
                    new Step(Phase.CONFIGURE, cmake.configure(c, target), c.buildDir(), env),
                    new Step(Phase.BUILD, cmake.build(c, buildParallelism), c.buildDir(), env)));
        }
        CommandJob command = CommandInvocation.concrete((CommandJob) job, target);
        return new ConcreteJob(command, target, List.of(new Step(Phase.COMMAND, command.argv(), command.cwd(), env)));
    }
}
