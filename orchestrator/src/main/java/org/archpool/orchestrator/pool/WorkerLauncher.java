package org.archpool.orchestrator.pool;

/** Starts workers: worker JVMs on this machine, in-process runners, Slurm job steps. */
public interface WorkerLauncher extends AutoCloseable {

    /**
     * Starts a worker and waits until it is ready to take a request.
     *
     * @throws WorkerFailedException when it cannot be started or does not say hello properly
     */
    Worker launch(String workerId) throws WorkerFailedException;

    /** What kind of worker this launches, for the report: {@code process} or {@code thread}. */
    String mode();

    /** Where workers run, for the report: {@code local} (this machine) or {@code slurm}. */
    default String launcher() {
        return "local";
    }

    /** How the workers this launches are kept from seeing a GPU, for the report. */
    default DeviceIsolation deviceIsolation() {
        return DeviceIsolation.ENVIRONMENT;
    }

    /** Releases what the launcher itself holds (not its workers). */
    @Override
    default void close() {
    }
}
