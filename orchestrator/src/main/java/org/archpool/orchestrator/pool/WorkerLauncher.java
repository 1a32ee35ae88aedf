package org.archpool.orchestrator.pool;

import java.util.List;

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

    /**
     * Whether a start that just failed should be tried again at once, without counting against the job that needs
     * the worker: the failure was one place's (a node's), and the next start may go elsewhere. The pool tries at
     * most {@link WorkerPool#STARTS_AGAIN} times in a row.
     */
    default boolean startAgain(WorkerFailedException failure) {
        return false;
    }

    /**
     * A worker this launcher started died ({@code cause} is not {@link WorkerFailure#SHUTDOWN}): a launcher that
     * places workers on nodes may ask whether the node is lost, and keep later workers off it. Called before the
     * worker's job is retried.
     */
    default void workerDied(Worker worker, WorkerFailure cause, String reason) {
    }

    /** What the build saw of each node its workers ran on (under Slurm); empty where workers run here. */
    default List<NodeSummary> nodes() {
        return List.of();
    }

    /** Releases what the launcher itself holds (not its workers). */
    @Override
    default void close() {
    }
}
