package org.archpool.orchestrator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.archpool.orchestrator.pool.slurm.SlurmConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The defaults {@code --launcher slurm} takes from Slurm's environment. */
class LauncherOptionsTest {

    private static LauncherOptions slurm() {
        LauncherOptions options = new LauncherOptions();
        options.launcher = LauncherOptions.Launcher.SLURM;
        return options;
    }

    @Test
    void insideAnAllocationJobsDefaultToItsTasks() {
        Map<String, String> env = Map.of("SLURM_JOB_ID", "12", "SLURM_NTASKS", "6");
        assertThat(slurm().defaultJobs(env, 64)).isEqualTo(6);
        assertThat(slurm().defaultJobs(Map.of("SLURM_JOB_ID", "12", "SLURM_NTASKS", "zero"), 64)).isEqualTo(64);
        assertThat(slurm().defaultJobs(Map.of("SLURM_JOB_ID", "12", "SLURM_NTASKS", "0"), 64)).isEqualTo(64);
        assertThat(slurm().defaultJobs(Map.of("SLURM_NTASKS", "6"), 64)).as("no allocation").isEqualTo(64);
        LauncherOptions local = new LauncherOptions();
        local.launcher = LauncherOptions.Launcher.LOCAL;
        assertThat(local.defaultJobs(env, 64)).as("a local build ignores Slurm").isEqualTo(64);
    }

    @ParameterizedTest(name = "--build-parallelism {0}, SLURM_CPUS_PER_TASK [{1}]: {2}")
    @CsvSource({
        "3, 8,     3",
        "0, 8,     8",
        "0, ' 8 ', 8",
        "0,      , 1",
        "0, -1,    1",
    })
    void cpusPerTaskAreBuildParallelismElseTheAllocationsElseOne(int buildParallelism, String slurmCpusPerTask,
            int cpusPerTask) {
        Map<String, String> env = slurmCpusPerTask == null ? Map.of() : Map.of("SLURM_CPUS_PER_TASK", slurmCpusPerTask);
        assertThat(LauncherOptions.slurmCpusPerTask(buildParallelism, env)).isEqualTo(cpusPerTask);
    }

    @Test
    void theConfigTakesTheAllocationUserAndAFreshTag() {
        LauncherOptions options = slurm();
        options.partition = "gpu";
        options.srunArgs = List.of("--time=10");
        SlurmConfig config = options.slurmConfig(Map.of("SLURM_JOB_ID", "12", "USER", "someone"), 4);
        assertThat(config.allocation()).isEqualTo("12");
        assertThat(config.user()).isEqualTo("someone");
        assertThat(config.partition()).isEqualTo("gpu");
        assertThat(config.extraArgs()).containsExactly("--time=10");
        assertThat(config.cpusPerTask()).isEqualTo(4);
        assertThat(config.buildTag()).matches("[0-9a-f]{8}");
        assertThat(options.slurmConfig(Map.of(), 4).buildTag()).as("unique to each build")
                .isNotEqualTo(config.buildTag());
        assertThat(options.slurmConfig(Map.of(), 4).user()).as("without USER").isEqualTo(System.getProperty("user.name"));
    }
}
