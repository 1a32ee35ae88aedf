package org.archpool.worker.exec;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;

/**
 * A step that {@link StepLauncher#start} started, until it has ended: on a {@link StepHost} ({@link HostedStep}) or
 * as processes of its own ({@link SpawnedStep}). {@link StepRunner} drives it: waits for its exit within the
 * deadline, kills it at the deadline or on cancellation, and then {@linkplain #finish finishes} it exactly once.
 */
sealed interface StartedStep permits HostedStep, SpawnedStep {

    /**
     * Waits for the step's main process to exit.
     *
     * @param limit how long to wait; {@code null} for as long as it takes
     * @return whether it exited within {@code limit}
     */
    boolean awaitExit(Duration limit) throws InterruptedException;

    /** The step's own processes, its main process first, none of the launcher's: what a time limit names. */
    List<ProcessHandle> stepProcesses();

    /** Forcibly kills every process of the step; once it has ended, does nothing. Safe from any thread. */
    void killAll();

    /**
     * Ends what the step left running, waits for the rest of its output, and gives back what it ran on.
     *
     * @param exited whether the step's main process exited by itself (else it was killed)
     * @return its exit status, 128 + n for signal n
     * @throws ExecutionException when track of the step was lost (its output or status could not be read)
     */
    int finish(boolean exited) throws InterruptedException, ExecutionException;

    /**
     * Gives the step up without finishing it (its thread was interrupted), after {@link #killAll}: what it ran on
     * is not used again.
     */
    void abandon();
}
