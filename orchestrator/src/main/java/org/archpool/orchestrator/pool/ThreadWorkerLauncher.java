package org.archpool.orchestrator.pool;

import org.archpool.worker.JobRunner;

/** {@code --mode thread}: workers are threads of the coordinator sharing one {@link JobRunner}. */
public final class ThreadWorkerLauncher implements WorkerLauncher {

    private final JobRunner runner;

    public ThreadWorkerLauncher(JobRunner runner) {
        this.runner = runner;
    }

    @Override
    public Worker launch(String workerId) {
        return new InProcessWorker(workerId, runner);
    }

    @Override
    public String mode() {
        return "thread";
    }
}
