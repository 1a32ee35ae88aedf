package org.archpool.worker;

import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.worker.exec.CancellationToken;

/** Runs one request to its result on the calling thread: what a worker's job thread does ({@link JobRunner}). */
@FunctionalInterface
public interface RequestRunner {

    /**
     * @param token    cancels the running step (its process tree is killed)
     * @param activity told each phase and every sign of life
     */
    BuildResult run(BuildRequest request, CancellationToken token, JobActivity activity);
}
