package org.archpool.orchestrator.pool.slurm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The command line that starts one worker as a Slurm job or step. */
class SrunCommandTest {

    private static final List<String> WORKER = List.of("/opt/java/bin/java", "-Xmx128m", "-cp", "worker.jar",
            "org.archpool.worker.WorkerMain", "--worker-id", "w1");
    private static final Path STDERR = Path.of("/shared/logs/w1.stderr.log");

    private static SlurmConfig config(String allocation, String partition, List<String> extraArgs) {
        return new SlurmConfig("srun", "scancel", "squeue", "sinfo", allocation, partition, extraArgs, 4, "t", "someone");
    }

    private static List<String> argv(SlurmConfig config) {
        return SrunCommand.argv(config, config.stepName("w1"), STDERR, WORKER, List.of());
    }

    private static List<String> withWorker(List<String> srunPart) {
        List<String> all = new java.util.ArrayList<>(srunPart);
        all.addAll(List.of("env", "CUDA_VISIBLE_DEVICES=", "ROCR_VISIBLE_DEVICES=", "HIP_VISIBLE_DEVICES=",
                "NVIDIA_VISIBLE_DEVICES=void"));
        all.addAll(WORKER);
        return all;
    }

    @Test
    void aJobOfItsOwnAsksForOneTaskOfKCpusWithoutExact() {
        assertThat(argv(config(null, null, List.of()))).containsExactlyElementsOf(withWorker(List.of(
                "srun", "--ntasks=1", "--nodes=1", "--cpus-per-task=4", "--unbuffered",
                "--job-name=archpool.t.w1", "--error=/shared/logs/w1.stderr.log", "--open-mode=append")));
    }

    @Test
    void aStepOfTheAllocationIsExact() {
        assertThat(argv(config("1234", null, List.of()))).containsExactlyElementsOf(withWorker(List.of(
                "srun", "--ntasks=1", "--nodes=1", "--cpus-per-task=4", "--exact", "--unbuffered",
                "--job-name=archpool.t.w1", "--error=/shared/logs/w1.stderr.log", "--open-mode=append")));
    }

    @Test
    void thePartitionAndTheUsersArgumentsComeAfterArchpoolsOwnAndBeforeEnv() {
        assertThat(argv(config("1234", "gpu", List.of("--mem-per-cpu=2G", "--time=10"))))
                .containsExactlyElementsOf(withWorker(List.of(
                        "srun", "--ntasks=1", "--nodes=1", "--cpus-per-task=4", "--exact", "--unbuffered",
                        "--job-name=archpool.t.w1", "--error=/shared/logs/w1.stderr.log", "--open-mode=append",
                        "--partition=gpu", "--mem-per-cpu=2G", "--time=10")));
    }

    @Test
    void extraArgumentsWithoutAPartitionFollowOpenMode() {
        List<String> argv = argv(config(null, null, List.of("--mem-per-cpu=2G")));
        assertThat(argv).noneMatch(a -> a.startsWith("--partition"));
        assertThat(argv.subList(argv.indexOf("--open-mode=append"), argv.indexOf("env") + 1))
                .containsExactly("--open-mode=append", "--mem-per-cpu=2G", "env");
    }

    @Test
    void theSrunProgramIsTheConfigured() {
        SlurmConfig config = new SlurmConfig("/usr/local/slurm/bin/srun", "scancel", "squeue", "sinfo", null, null, List.of(),
                1, "t", "u");
        assertThat(argv(config)).first().isEqualTo("/usr/local/slurm/bin/srun");
        assertThat(argv(config)).contains("--cpus-per-task=1");
    }

    @Test
    void aPercentInTheStderrPathIsEscaped() {
        List<String> argv = SrunCommand.argv(config(null, null, List.of()), "archpool.t.w1",
                Path.of("/shared/100%/%j/w1.stderr.log"), WORKER, List.of());
        assertThat(argv).contains("--error=/shared/100%%/%%j/w1.stderr.log");
        assertThat(SrunCommand.escape("no percent")).isEqualTo("no percent");
    }

    @Test
    void theWorkerCommandIsPassedAsItIsAfterTheHiddenDevices() {
        List<String> argv = argv(config(null, null, List.of()));
        int env = argv.indexOf("env");
        assertThat(argv.subList(env + 1, env + 5)).containsExactly("CUDA_VISIBLE_DEVICES=", "ROCR_VISIBLE_DEVICES=",
                "HIP_VISIBLE_DEVICES=", "NVIDIA_VISIBLE_DEVICES=void");
        assertThat(argv.subList(env + 5, argv.size())).isEqualTo(WORKER);
        assertThat(argv).containsOnlyOnce("env");
    }

    @Test
    void withoutExcludedOrAvoidedNodesThereIsNoExclude() {
        assertThat(argv(config("1234", "gpu", List.of("--mem-per-cpu=2G", "--exclusive"))))
                .noneMatch(a -> a.startsWith("--exclude") || a.equals("-x"));
    }

    @Test
    void theUsersExcludedNodesAndTheAvoidedOnesAreOneExcludeBeforeEnv() {
        SlurmConfig config = config("1234", null, List.of("--mem-per-cpu=2G", "-x", "node7", "--time=10"));
        List<String> argv = SrunCommand.argv(config, "archpool.t.w1", STDERR, WORKER, List.of("node2", "node3"));
        assertThat(argv).filteredOn(a -> a.startsWith("--exclude")).containsExactly("--exclude=node7,node2,node3");
        assertThat(argv).doesNotContain("-x", "node7");
        assertThat(argv.subList(argv.indexOf("--open-mode=append"), argv.indexOf("env") + 1)).containsExactly(
                "--open-mode=append", "--mem-per-cpu=2G", "--time=10", "--exclude=node7,node2,node3", "env");
    }

    @Test
    void everyExcludeTheUserGaveIsMergedIntoOne() {
        SlurmConfig config = config(null, null, List.of("--exclude=node7", "-xnode[8-9]", "--exclude", "gpu1"));
        List<String> argv = SrunCommand.argv(config, "archpool.t.w1", STDERR, WORKER, List.of("node2"));
        assertThat(argv).filteredOn(a -> a.startsWith("--exclude") || a.startsWith("-x"))
                .containsExactly("--exclude=node7,node[8-9],gpu1,node2");
        assertThat(argv).doesNotContain("gpu1");
    }

    @Test
    void theAvoidedNodesAloneAreAnExcludeBeforeEnv() {
        List<String> argv = SrunCommand.argv(config(null, null, List.of()), "archpool.t.w1", STDERR, WORKER,
                List.of("node2"));
        assertThat(argv).filteredOn(a -> a.startsWith("--exclude")).containsExactly("--exclude=node2");
        assertThat(argv.indexOf("--exclude=node2")).isEqualTo(argv.indexOf("env") - 1);
    }

    @Test
    void theUsersExcludeAloneIsPassedAsOne() {
        List<String> argv = argv(config(null, null, List.of("-x", "node7")));
        assertThat(argv).filteredOn(a -> a.startsWith("--exclude")).containsExactly("--exclude=node7");
        assertThat(argv).doesNotContain("-x", "node7");
    }
}
