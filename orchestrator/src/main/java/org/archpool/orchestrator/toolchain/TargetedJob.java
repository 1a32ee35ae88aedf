package org.archpool.orchestrator.toolchain;

import java.util.Objects;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Target;

/**
 * One job built for one target: the job as it is built for that target (a CMake job's build folder under the
 * platform's folder when the run has several targets), the target narrowed to the architectures the job supports,
 * and whether the run has several targets, when the job goes by {@code id[platform]} and its logs by
 * {@code platform/id}.
 */
public record TargetedJob(JobSpec job, Target target, boolean tagged) {

    public TargetedJob {
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(target, "target");
    }

    /** {@code job} for the one target of a run: it goes by its id. */
    public static TargetedJob only(JobSpec job, Target target) {
        return new TargetedJob(job, target, false);
    }

    /** The job's id, with {@code [platform]} appended when the run has several targets: unique within a run. */
    public String name() {
        return tagged ? job.id() + "[" + target.platform().wireName() + "]" : job.id();
    }

    /** Where its logs go within the log folder: its id, under the platform's folder when the run has several. */
    public String logName() {
        return tagged ? target.platform().wireName() + "/" + job.id() : job.id();
    }
}
