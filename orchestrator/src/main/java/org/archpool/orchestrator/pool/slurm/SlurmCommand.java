package org.archpool.orchestrator.pool.slurm;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.archpool.orchestrator.tool.ToolOutput;
import org.archpool.orchestrator.tool.ToolRunner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs Slurm's client commands ({@code scancel}, {@code squeue}, {@code sinfo}) for the coordinator. */
final class SlurmCommand {

    private static final Logger LOG = LoggerFactory.getLogger(SlurmCommand.class);
    /** Slurm's commands answer in milliseconds; a controller that does not answer in this time is down. */
    static final Duration TIMEOUT = Duration.ofSeconds(15);

    private SlurmCommand() {
    }

    /**
     * Runs one of Slurm's commands; its stdout, or empty when it could not be run, timed out or failed (which is
     * logged: what goes wrong asking Slurm never stops a build).
     */
    static Optional<String> stdout(ToolRunner runner, List<String> command) {
        ToolOutput out = runner.run(command, TIMEOUT);
        if (out.status() != ToolOutput.Status.EXITED) {
            LOG.warn("{}: {}", String.join(" ", command), out.problem());
            return Optional.empty();
        }
        if (out.exitCode() != 0) {
            LOG.warn("{} exited with status {}: {}", String.join(" ", command), out.exitCode(), out.stderr().strip());
            return Optional.empty();
        }
        return Optional.of(out.stdout());
    }
}
