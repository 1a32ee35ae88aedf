package org.archpool.orchestrator.tool;

import java.util.List;

/**
 * What running a probe tool gave.
 *
 * @param exitCode set when the tool ran to an exit
 * @param problem  why it did not run or did not finish, for anything but {@link Status#EXITED}
 */
public record ToolOutput(List<String> command, Status status, Integer exitCode, String stdout, String stderr,
                         long ms, String problem) {

    /** How a tool run ended. */
    public enum Status {
        EXITED, MISSING, NOT_EXECUTABLE, TIMED_OUT, FAILED_TO_START
    }

    public ToolOutput {
        command = List.copyOf(command);
        stdout = stdout == null ? "" : stdout;
        stderr = stderr == null ? "" : stderr;
    }
}
