package org.archpool.orchestrator.verify;

import java.util.List;
import org.archpool.protocol.Artifact;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Target;

/**
 * Decides whether what a job built is what it was asked to build: the scheduler asks it about every job a worker
 * reports as succeeded, and a failing verdict makes the job {@code failed}. {@link ArtifactVerifier} is the one
 * archpool uses ({@code --verify}, {@code --forbid-hostcall}).
 */
@FunctionalInterface
public interface ArtifactJudge {

    /**
     * @param artifacts what the worker found in the job's outputs, with the GPU code read from each
     */
    Verdict judge(JobSpec job, Target target, List<Artifact> artifacts);
}
