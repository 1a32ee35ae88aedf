package org.archpool.worker.exec;

/**
 * How one step ended.
 *
 * @param exitCode the process's exit status when it ran to an end (128 + n when killed by signal n)
 * @param ms       wall time of the step
 * @param message  why it did not run or did not finish, for the log and the result
 */
public record StepResult(Ending ending, Integer exitCode, long ms, String message) {

    /** How a step can end. */
    public enum Ending {
        /** The process exited on its own (with any status). */
        EXITED,
        /** The job's time ran out; the tree was killed. */
        TIMED_OUT,
        /** The job was cancelled; the tree was killed. */
        CANCELLED,
        /** The program could not be started (missing, not executable, bad folder). */
        NOT_STARTED
    }

    public boolean succeeded() {
        return ending == Ending.EXITED && exitCode != null && exitCode == 0;
    }
}
