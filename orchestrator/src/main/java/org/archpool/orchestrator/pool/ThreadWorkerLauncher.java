package org.archpool.orchestrator.pool;

import org.archpool.worker.JobRunner;
import org.archpool.worker.exec.StepLauncher;

/** {@code --mode thread}: workers are threads of the coordinator sharing one {@link JobRunner}. */
public final class ThreadWorkerLauncher implements WorkerLauncher {

    private final JobRunner runner;
    private final DeviceIsolation isolation;
    private final Runnable endSteps;

    private ThreadWorkerLauncher(JobRunner runner, DeviceIsolation isolation, Runnable endSteps) {
        this.runner = runner;
        this.isolation = isolation;
        this.endSteps = endSteps;
    }

    /** @param isolation how {@code runner}'s steps are started (their {@code StepLauncher}), which the caller ends */
    public ThreadWorkerLauncher(JobRunner runner, DeviceIsolation isolation) {
        this(runner, isolation, () -> { });
    }

    public ThreadWorkerLauncher(JobRunner runner) {
        this(runner, DeviceIsolation.ENVIRONMENT);
    }

    /**
     * Workers whose steps {@code steps} starts, ended with this launcher: its step hosts (a PID namespace each) are
     * gone before the coordinator exits, so that no thread of the JVM still waits on one of them then (the JVM
     * waits up to 300 ms at exit for threads in native code).
     */
    public static ThreadWorkerLauncher owning(StepLauncher steps, DeviceIsolation isolation) {
        return new ThreadWorkerLauncher(JobRunner.standard(steps), isolation, steps::close);
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

    @Override
    public void close() {
        endSteps.run();
    }
}
