package org.archpool.orchestrator.pool.slurm;

import java.util.ArrayList;
import java.util.List;
import org.archpool.orchestrator.tool.ToolRunner;

/**
 * Cancels workers with Slurm's own commands. A worker that is a job of its own is cancelled by name
 * ({@code scancel --name=N --user=U}), which also removes a job still waiting in the queue, whose {@code srun}
 * can no longer withdraw it once killed. A worker that is a step of the coordinator's allocation is looked up
 * by step name with {@code squeue --steps} and cancelled by its step id (a step waiting for CPUs does not
 * exist yet for Slurm: killing its {@code srun} is enough).
 */
public final class Scancel implements StepCanceller {

    private final SlurmConfig config;
    private final ToolRunner runner;

    public Scancel(SlurmConfig config, ToolRunner runner) {
        this.config = config;
        this.runner = runner;
    }

    @Override
    public void cancel(String stepName) {
        if (!config.inAllocation()) {
            run(List.of(config.scancel(), "--name=" + stepName, "--user=" + config.user()));
            return;
        }
        String steps = run(List.of(config.squeue(), "--steps", "--jobs=" + config.allocation(), "--noheader",
                "--format=%i %j"));
        for (String stepId : stepIds(steps, stepName)) {
            run(List.of(config.scancel(), stepId));
        }
    }

    /** The step ids of {@code squeue --steps --format="%i %j"} lines whose name is {@code stepName}. */
    static List<String> stepIds(String squeueOutput, String stepName) {
        List<String> ids = new ArrayList<>();
        for (String line : squeueOutput.split("\n")) {
            String[] fields = line.strip().split("\\s+", 2);
            if (fields.length == 2 && fields[1].strip().equals(stepName)) {
                ids.add(fields[0]);
            }
        }
        return ids;
    }

    private String run(List<String> command) {
        return SlurmCommand.stdout(runner, command).orElse("");
    }
}
