package org.archpool.orchestrator.pool;

import org.archpool.worker.JobRunner;

/** {@code --mode thread}: workers are threads of the coordinator sharing one {@link JobRunner}. */
public final class ThreadWorkerLauncher implements WorkerLauncher {

    private final JobRunner runner;
    private final DeviceIsolation isolation;

    /** @param isolation how {@code runner}'s steps are started (their {@code StepLauncher}) */
    public ThreadWorkerLauncher(JobRunner runner, DeviceIsolation isolation) {
        this.runner = runner;
        this.isolation = isolation;
    }

    public ThreadWorkerLauncher(JobRunner runner) {
        this(runner, DeviceIsolation.ENVIRONMENT);
    }

    @Override
    public Worker launch(String workerId) {
        return new InProcessWorker(workerId, runner);
    }

    @Override
    public String mode() {
        return "thread";
    }

    @Override
    public DeviceIsolation deviceIsolation() {
        return isolation;
    }
}
