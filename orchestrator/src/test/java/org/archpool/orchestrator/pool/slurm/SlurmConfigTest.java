package org.archpool.orchestrator.pool.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What {@link SlurmConfig} takes from the environment, and what it refuses. */
class SlurmConfigTest {

    @Test
    void insideAnAllocationItsJobIdIsTaken() {
        SlurmConfig config = SlurmConfig.of(Map.of("SLURM_JOB_ID", "4242", "USER", "ignored"), "gpu",
                List.of("--time=10"), 8, "ab12cd34", "someone");
        assertThat(config.inAllocation()).isTrue();
        assertThat(config.allocation()).isEqualTo("4242");
        assertThat(config.partition()).isEqualTo("gpu");
        assertThat(config.extraArgs()).containsExactly("--time=10");
        assertThat(config.cpusPerTask()).isEqualTo(8);
        assertThat(config.user()).isEqualTo("someone");
        assertThat(List.of(config.srun(), config.scancel(), config.squeue()))
                .containsExactly("srun", "scancel", "squeue");
    }

    @Test
    void withoutSlurmJobIdThereIsNoAllocation() {
        SlurmConfig config = SlurmConfig.of(Map.of("SLURM_NTASKS", "4"), null, List.of(), 1, "t", "u");
        assertThat(config.inAllocation()).isFalse();
        assertThat(config.allocation()).isNull();
        assertThat(config.partition()).isNull();
    }

    @Test
    void aBlankJobIdIsNoAllocation() {
        assertThat(SlurmConfig.of(Map.of("SLURM_JOB_ID", ""), null, List.of(), 1, "t", "u").inAllocation())
                .isFalse();
        SlurmConfig blank = SlurmConfig.of(Map.of("SLURM_JOB_ID", "  "), null, List.of(), 1, "t", "u");
        assertThat(blank.inAllocation()).isFalse();
        assertThat(blank.allocation()).isNull();
    }

    @Test
    void eachWorkersStepIsNamedAfterTheBuildTag() {
        SlurmConfig config = SlurmConfig.of(Map.of(), null, List.of(), 1, "ab12cd34", "u");
        assertThat(config.stepName("w1")).isEqualTo("archpool.ab12cd34.w1");
        assertThat(config.stepName("w1.2")).isEqualTo("archpool.ab12cd34.w1.2");
    }

    @Test
    void lessThanOneCpuPerTaskIsRefused() {
        assertThatThrownBy(() -> SlurmConfig.of(Map.of(), null, List.of(), 0, "t", "u"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cpusPerTask");
        assertThatThrownBy(() -> SlurmConfig.of(Map.of(), null, List.of(), -2, "t", "u"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(SlurmConfig.of(Map.of(), null, List.of(), 1, "t", "u").cpusPerTask()).isEqualTo(1);
    }

    @Test
    void theExtraArgumentsAreACopy() {
        List<String> args = new ArrayList<>(List.of("--time=10"));
        SlurmConfig config = SlurmConfig.of(Map.of(), null, args, 1, "t", "u");
        args.add("--label");
        assertThat(config.extraArgs()).containsExactly("--time=10");
    }

    @Test
    void missingProgramsTagOrUserAreRefused() {
        assertThatThrownBy(() -> new SlurmConfig(null, "scancel", "squeue", "sinfo", null, null, List.of(), 1, "t", "u"))
                .isInstanceOf(NullPointerException.class).hasMessage("srun");
        assertThatThrownBy(() -> SlurmConfig.of(Map.of(), null, List.of(), 1, null, "u"))
                .isInstanceOf(NullPointerException.class).hasMessage("buildTag");
        assertThatThrownBy(() -> SlurmConfig.of(Map.of(), null, List.of(), 1, "t", null))
                .isInstanceOf(NullPointerException.class).hasMessage("user");
    }
}
