package org.archpool.orchestrator.toolchain;

import java.util.List;
import java.util.Objects;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Step;
import org.archpool.protocol.Target;

/**
 * A job as a worker will run it for {@code target}: the job with its placeholders expanded, and every process of it
 * concrete (argv, folder, environment). What a {@code build} request carries, and what a cache key can be computed
 * from.
 */
public record ConcreteJob(JobSpec job, Target target, List<Step> steps) {
    public ConcreteJob {
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(target, "target");
        steps = List.copyOf(steps);
        if (steps.isEmpty()) {
            throw new IllegalArgumentException("job '" + job.id() + "' has no step to run");
        }
    }
}
