package org.archpool.orchestrator.pool.slurm;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.archpool.protocol.HiddenDevices;

/**
 * The command line that starts one worker as a Slurm step: {@code srun} with one task of {@code K} CPUs, its
 * stdin and stdout unbuffered (they carry the protocol), its stderr to a file (a task that writes stderr
 * through {@code srun} slows every exchange to tens of milliseconds), then {@code env} with every
 * device-visibility variable empty before the worker's own command: Slurm sets {@code CUDA_VISIBLE_DEVICES}
 * for tasks given GPUs, and the worker must see none whatever the allocation holds.
 */
public final class SrunCommand {

    private SrunCommand() {
    }

    /**
     * @param stepName      the name of the job or step ({@link SlurmConfig#stepName})
     * @param workerStderr  where the task's stderr goes; on a shared file system when the worker runs on
     *                      another node
     * @param workerCommand the worker JVM's command line
     * @param avoided       nodes this build keeps its workers off, merged with the user's own {@code --exclude}
     *                      into one {@code --exclude} (srun keeps only the last)
     */
    public static List<String> argv(SlurmConfig config, String stepName, Path workerStderr,
                                    List<String> workerCommand, List<String> avoided) {
        List<String> argv = new ArrayList<>();
        argv.add(config.srun());
        argv.add("--ntasks=1");
        argv.add("--nodes=1");
        argv.add("--cpus-per-task=" + config.cpusPerTask());
        if (config.inAllocation()) {
            argv.add("--exact"); // only the CPUs asked for, so that the other workers' steps fit beside it
        }
        argv.add("--unbuffered");
        argv.add("--job-name=" + stepName);
        argv.add("--error=" + escape(workerStderr.toString()));
        argv.add("--open-mode=append");
        if (config.partition() != null) {
            argv.add("--partition=" + config.partition());
        }
        SrunArguments.Split split = SrunArguments.excludes(config.extraArgs());
        argv.addAll(split.rest());
        List<String> excluded = new ArrayList<>(split.excluded());
        excluded.addAll(avoided);
        if (!excluded.isEmpty()) {
            argv.add("--exclude=" + String.join(",", excluded));
        }
        argv.add("env");
        HiddenDevices.environment().forEach((name, value) -> argv.add(name + "=" + value));
        argv.addAll(workerCommand);
        return argv;
    }

    /** srun expands {@code %j}, {@code %t}… in file names; a literal {@code %} is written {@code %%}. */
    static String escape(String fileName) {
        return fileName.replace("%", "%%");
    }
}
