package org.archpool.orchestrator.toolchain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.Phase;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Step;
import org.archpool.protocol.Target;
import org.junit.jupiter.api.Test;

/** Every step a worker will run, made concrete by the coordinator before the job is sent. */
class JobPlannerTest {

    private final JobPlanner planner = new JobPlanner(new CmakeInvocation("/opt/cmake/bin/cmake"));

    @Test
    void aCmakeJobIsConfiguredForTheTargetThenBuiltWithItsParallelism() {
        CmakeJob job = new CmakeJob("k", "/src", "/build/k", null, "Release", Map.of("USE_X", "ON"), null, null,
                List.of("kernels"), Map.of("CC", "gcc"), null, null);
        ConcreteJob plan = planner.plan(job, new Target(Platform.CUDA, List.of("80", "90a")), 4);

        assertThat(plan.job()).isSameAs(job);
        assertThat(plan.steps()).extracting(Step::phase).containsExactly(Phase.CONFIGURE, Phase.BUILD);
        Step configure = plan.steps().get(0);
        assertThat(configure.argv()).containsExactly("/opt/cmake/bin/cmake", "-S", "/src", "-B", "/build/k", "-G",
                "Ninja", "-DCMAKE_BUILD_TYPE=Release", "-DUSE_X=ON", "-DCMAKE_CUDA_ARCHITECTURES=80;90a");
        assertThat(plan.steps().get(1).argv()).containsExactly("/opt/cmake/bin/cmake", "--build", "/build/k",
                "--parallel", "4", "--target", "kernels");
        assertThat(plan.steps()).allSatisfy(step -> {
            assertThat(step.cwd()).isEqualTo("/build/k");
            assertThat(step.env()).containsEntry("CC", "gcc").containsEntry("CUDAARCHS", "80;90a")
                    .containsEntry("TORCH_CUDA_ARCH_LIST", "8.0+PTX;9.0a+PTX");
        });
    }

    @Test
    void aCommandJobRunsItsArgvWithThePlaceholdersExpanded() {
        CommandJob job = new CommandJob("c", List.of("hipcc", "{offload-arch-flags}", "-DARCHS={archs}", "-c", "k.hip"),
                "/work", Map.of("HIPCC_VERBOSE", "1"), null, null);
        ConcreteJob plan = planner.plan(job, new Target(Platform.HIP, List.of("gfx942", "gfx90a:xnack-")), 2);

        List<String> argv = List.of("hipcc", "--offload-arch=gfx942", "--offload-arch=gfx90a:xnack-",
                "-DARCHS=gfx942;gfx90a:xnack-", "-c", "k.hip");
        assertThat(plan.job()).isInstanceOf(CommandJob.class);
        assertThat(((CommandJob) plan.job()).argv()).isEqualTo(argv);
        assertThat(plan.steps()).singleElement().satisfies(step -> {
            assertThat(step.phase()).isEqualTo(Phase.COMMAND);
            assertThat(step.argv()).isEqualTo(argv);
            assertThat(step.cwd()).isEqualTo("/work");
            assertThat(step.env()).containsEntry("HIPCC_VERBOSE", "1").containsEntry("HIPARCHS", "gfx942;gfx90a:xnack-")
                    .containsEntry("PYTORCH_ROCM_ARCH", "gfx942;gfx90a:xnack-");
        });
    }

    @Test
    void theArchitectureConventionsWinOverTheJobsOwnValues() {
        CommandJob job = new CommandJob("c", List.of("make"), "/work", Map.of("CUDAARCHS", "75", "TORCH_CUDA_ARCH_LIST",
                "7.5"), null, null);
        Step step = planner.plan(job, new Target(Platform.CUDA, List.of("90-real")), 1).steps().get(0);
        assertThat(step.env()).containsEntry("CUDAARCHS", "90-real").containsEntry("TORCH_CUDA_ARCH_LIST", "9.0");
    }

    @Test
    void anArchitectureNoCompilerFlagCanNameIsRefused() {
        CommandJob job = new CommandJob("c", List.of("nvcc", "{offload-arch-flags}"), "/work", null, null, null);
        assertThatThrownBy(() -> planner.plan(job, new Target(Platform.CUDA, List.of("sm_90")), 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'sm_90'");
    }
}
