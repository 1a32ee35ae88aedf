package org.archpool.orchestrator.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.archpool.orchestrator.toolchain.JobPlanner;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;
import org.junit.jupiter.api.Test;

class ActionKeyTest {

    private static final Target CUDA_90 = new Target(Platform.CUDA, List.of("90"));
    private static final ToolchainIdentity TOOLCHAIN = new ToolchainIdentity(Digests.of("nvcc 13.0"), List.of());
    private static final String INPUTS = Digests.of("k.cu");

    private static CmakeJob cmake(String id, Map<String, String> defines, Map<String, String> env) {
        return new CmakeJob(id, "/src/k", "/build/k", null, "Release", defines, null, null, null, env, null, null);
    }

    private static String key(JobSpec job, Target target, int parallelism) {
        return ActionKey.of(JobPlanner.standard().plan(job, target, parallelism), target, TOOLCHAIN, INPUTS, "nvcc")
                .sha256();
    }

    @Test
    void theKeyIsStableAndIgnoresTheJobsIdAndTheBuildsParallelism() {
        String a = key(cmake("a", Map.of(), Map.of()), CUDA_90, 2);
        assertThat(a).matches("[0-9a-f]{64}");
        assertThat(key(cmake("a", Map.of(), Map.of()), CUDA_90, 2)).isEqualTo(a);
        assertThat(key(cmake("b", Map.of(), Map.of()), CUDA_90, 8)).isEqualTo(a);
    }

    @Test
    void theTargetIsPartOfTheKey() {
        String k90 = key(cmake("a", Map.of(), Map.of()), CUDA_90, 2);
        assertThat(key(cmake("a", Map.of(), Map.of()), new Target(Platform.CUDA, List.of("80")), 2)).isNotEqualTo(k90);
        assertThat(key(cmake("a", Map.of(), Map.of()), new Target(Platform.CUDA, List.of("90a")), 2))
                .isNotEqualTo(k90);
        assertThat(key(cmake("a", Map.of(), Map.of()), new Target(Platform.CUDA, List.of("80", "90")), 2))
                .isNotEqualTo(k90);
        assertThat(key(cmake("a", Map.of(), Map.of()), new Target(Platform.HIP, List.of("gfx90a")), 2))
                .isNotEqualTo(k90);
    }

    @Test
    void definesEnvironmentToolchainAndInputsArePartOfTheKey() {
        CmakeJob plain = cmake("a", Map.of(), Map.of());
        String k = key(plain, CUDA_90, 2);
        assertThat(key(cmake("a", Map.of("USE_FAST_MATH", "ON"), Map.of()), CUDA_90, 2)).isNotEqualTo(k);
        assertThat(key(cmake("a", Map.of(), Map.of("NVCC_APPEND_FLAGS", "-G")), CUDA_90, 2)).isNotEqualTo(k);
        var concrete = JobPlanner.standard().plan(plain, CUDA_90, 2);
        assertThat(ActionKey.of(concrete, CUDA_90, new ToolchainIdentity(Digests.of("nvcc 12.8"), List.of()), INPUTS,
                null).sha256()).isNotEqualTo(k);
        assertThat(ActionKey.of(concrete, CUDA_90, TOOLCHAIN, Digests.of("k.cu edited"), null).sha256())
                .isNotEqualTo(k);
    }

    @Test
    void theValueOfEachVariableTheCMakeFilesReadIsPartOfTheKey() {
        var concrete = JobPlanner.standard().plan(cmake("a", Map.of(), Map.of()), CUDA_90, 2);
        String none = ActionKey.of(concrete, CUDA_90, TOOLCHAIN, INPUTS, null).sha256();
        Map<String, String> unset = new java.util.HashMap<>();
        unset.put("KV", null);
        List<String> keys = List.of(none,
                ActionKey.of(concrete, CUDA_90, TOOLCHAIN, INPUTS, null, Map.of("KV", "1")).sha256(),
                ActionKey.of(concrete, CUDA_90, TOOLCHAIN, INPUTS, null, Map.of("KV", "7")).sha256(),
                ActionKey.of(concrete, CUDA_90, TOOLCHAIN, INPUTS, null, Map.of("KV", "")).sha256(),
                ActionKey.of(concrete, CUDA_90, TOOLCHAIN, INPUTS, null, unset).sha256());
        assertThat(keys).doesNotHaveDuplicates();
        assertThat(ActionKey.of(concrete, CUDA_90, TOOLCHAIN, INPUTS, null, Map.of()).sha256()).isEqualTo(none);
    }

    @Test
    void aCommandJobsKeyHoldsItsExpandedArgvItsInputsAndItsProgram() {
        CommandJob job = new CommandJob("c", List.of("nvcc", "{offload-arch-flags}", "-c", "k.cu"), "/src",
                Map.of(), null, List.of(), List.of("k.cu"));
        var concrete = JobPlanner.standard().plan(job, CUDA_90, 1);
        ActionKey key = ActionKey.of(concrete, CUDA_90, TOOLCHAIN, INPUTS, "/usr/local/cuda/bin/nvcc sha256:1");
        assertThat(key.document()).contains("arch=compute_90").doesNotContain("{offload-arch-flags}");
        assertThat(ActionKey.of(concrete, CUDA_90, TOOLCHAIN, INPUTS, "/usr/local/cuda/bin/nvcc sha256:2").sha256())
                .isNotEqualTo(key.sha256());
        CommandJob otherGlobs = new CommandJob("c", job.argv(), "/src", Map.of(), null, List.of(),
                List.of("k.cu", "*.h"));
        assertThat(ActionKey.of(JobPlanner.standard().plan(otherGlobs, CUDA_90, 1), CUDA_90, TOOLCHAIN, INPUTS,
                "/usr/local/cuda/bin/nvcc sha256:1").sha256()).isNotEqualTo(key.sha256());
    }
}
