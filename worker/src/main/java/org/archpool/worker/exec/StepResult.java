package org.archpool.worker.exec;

import java.util.List;
import java.util.Optional;

/**
 * How one step ended.
 *
 * @param exitCode the process's exit status when it ran to an end (128 + n when killed by signal n)
 * @param ms       wall time of the step
 * @param message  why it did not run or did not finish, for the log and the result
 * @param killed   the processes the time limit killed ({@code pid N: command line}), root first; else empty
 */
public record StepResult(Ending ending, Integer exitCode, long ms, String message, List<String> killed) {

    public StepResult {
        killed = killed == null ? List.of() : List.copyOf(killed);
    }

    public StepResult(Ending ending, Integer exitCode, long ms, String message) {
        this(ending, exitCode, ms, message, List.of());
    }

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

    /**
     * The signal the exit status stands for ({@code SIGSEGV} for 139), when the process exited on its own
     * with such a status; never for a tree archpool killed itself (time limit, cancel). See {@link Signals}
     * for why this cannot tell a signal from a wrapper passing one on.
     */
    public Optional<String> signal() {
        return ending == Ending.EXITED && exitCode != null ? Signals.fromExitStatus(exitCode) : Optional.empty();
    }
}
