package org.archpool.orchestrator.seed;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.archpool.orchestrator.toolchain.ConcreteJob;
import org.archpool.orchestrator.toolchain.JobPlanner;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;
import org.junit.jupiter.api.Test;

class SeedKeyTest {

    private static final Target SM90 = new Target(Platform.CUDA, List.of("90"));
    private static final Map<String, String> ENV = Map.of("PATH", "/usr/bin:/bin");

    private static CmakeJob job(String id, String source, Map<String, String> defines, Map<String, String> env) {
        return new CmakeJob(id, source, source + "/build", "Ninja", "Release", defines, List.of(), List.of(),
                List.of(), env, null, List.of());
    }

    private static SeedKey key(CmakeJob job, Target target, Map<String, String> env) {
        ConcreteJob concrete = JobPlanner.standard().plan(job, target, 1);
        return SeedKey.of(concrete, env).orElseThrow();
    }

    @Test
    void projectsDifferingOnlyInTheirFoldersAndTheirOwnDefinesShareAKey() {
        SeedKey a = key(job("a", "/src/a", Map.of("FOO", "ON", "WITH_TESTS", "1"), Map.of()), SM90, ENV);
        SeedKey b = key(job("b", "/src/b", Map.of("FOO", "OFF"), Map.of()), SM90, ENV);
        assertThat(a.sha256()).isEqualTo(b.sha256()).hasSize(64);
        assertThat(String.join("\n", a.lines())).doesNotContain("/src/a").doesNotContain("FOO")
                .contains("arg -DCMAKE_CUDA_ARCHITECTURES=90").contains("arg -G").contains("arg Ninja")
                .contains("arg -DCMAKE_BUILD_TYPE=Release");
    }

    @Test
    void anotherArchitectureCompilerGeneratorEnvironmentOrToolkitIsAnotherKey() {
        SeedKey base = key(job("a", "/src/a", Map.of(), Map.of()), SM90, ENV);
        assertThat(key(job("a", "/src/a", Map.of(), Map.of()), new Target(Platform.CUDA, List.of("80")), ENV))
                .isNotEqualTo(base);
        assertThat(key(job("a", "/src/a", Map.of("CMAKE_CUDA_COMPILER", "/opt/cuda/bin/nvcc"), Map.of()), SM90,
                ENV)).isNotEqualTo(base);
        assertThat(key(job("a", "/src/a", Map.of("CUDAToolkit_ROOT", "/opt/cuda"), Map.of()), SM90, ENV))
                .isNotEqualTo(base);
        assertThat(key(job("a", "/src/a", Map.of(), Map.of("CUDAFLAGS", "-g")), SM90, ENV)).isNotEqualTo(base);
        assertThat(key(job("a", "/src/a", Map.of(), Map.of()), SM90, Map.of("PATH", "/usr/bin:/bin",
                "CXX", "clang++"))).isNotEqualTo(base);
        CmakeJob makefiles = new CmakeJob("a", "/src/a", "/src/a/build", "Unix Makefiles", "Release", Map.of(),
                List.of(), List.of(), List.of(), Map.of(), null, List.of());
        assertThat(key(makefiles, SM90, ENV)).isNotEqualTo(base);
    }

    @Test
    void onlyCmakeJobsHaveAKey() {
        CommandJob command = new CommandJob("c", List.of("nvcc", "-c", "k.cu"), "/src", null, null, null);
        assertThat(SeedKey.of(JobPlanner.standard().plan(command, SM90, 1), ENV)).isEmpty();
    }

    @Test
    void sourceAndBuildFoldersInEitherSpellingAndProjectDefinesAreLeftOut() {
        assertThat(SeedKey.arguments(List.of("-S", "/s", "-B", "/b", "-S/s2", "-B/b2", "-D", "FOO=1",
                "-DBAR:BOOL=ON", "-D", "CMAKE_C_COMPILER=cc", "-DHIP_PATH=/opt/rocm", "-Wno-dev")))
                .containsExactly("arg -DCMAKE_C_COMPILER=cc", "arg -DHIP_PATH=/opt/rocm", "arg -Wno-dev");
        assertThat(SeedKey.toolchainDefine("rocm_root=/x")).isTrue();
        assertThat(SeedKey.toolchainDefine("MY_OPTION:BOOL=ON")).isFalse();
    }
}
