package org.archpool.orchestrator.arch;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * What one detection probe did, as the report and {@code archpool arch} show it.
 *
 * @param status  {@code detected}, {@code no_devices}, {@code missing}, {@code not_executable},
 *                {@code failed}, {@code timed_out} or {@code unparseable}
 * @param message a sentence saying what happened, for anything but {@code detected}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ProbeReport(String tool, List<String> command, String status, Integer exitCode, long ms,
                          int devices, String message) {
    public ProbeReport {
        command = List.copyOf(command);
    }

    public boolean detected() {
        return "detected".equals(status);
    }
}
