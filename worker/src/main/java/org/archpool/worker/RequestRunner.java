package org.archpool.worker;

import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.Outcome;
import org.archpool.worker.exec.CancellationToken;

/** Runs one request to its result on the calling thread: what a worker's job thread does ({@link JobRunner}). */
@FunctionalInterface
public interface RequestRunner {

    /**
     * @param token    cancels the running step (its process tree is killed)
     * @param activity told each phase and every sign of life
     */
    BuildResult run(BuildRequest request, CancellationToken token, JobActivity activity);

    /**
     * The result of a request whose runner threw ({@code OutOfMemoryError}, {@code StackOverflowError}, a bug):
     * the job {@code failed}, with the reason, so that it ends like any other (process and thread mode alike).
     */
    static BuildResult thrown(BuildRequest request, Throwable e) {
        return new BuildResult(request.requestId(), Outcome.FAILED, null, null, null, null, request.logPath(), null,
                "the worker failed while running the job: " + e + (e instanceof OutOfMemoryError
                        ? " (the worker's heap is " + (Runtime.getRuntime().maxMemory() >> 20) + " MiB; -Xmx in "
                        + "ARCHPOOL_WORKER_JAVA_OPTS gives it more)" : ""));
    }
}
