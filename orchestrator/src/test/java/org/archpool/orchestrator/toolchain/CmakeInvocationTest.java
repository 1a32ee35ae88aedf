package org.archpool.orchestrator.toolchain;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;
import org.junit.jupiter.api.Test;

class CmakeInvocationTest {

    private final CmakeInvocation cmake = new CmakeInvocation("cmake");

    private static CmakeJob job(List<String> targets) {
        return new CmakeJob("j", "/src", "/build/j", null, "Release", Map.of("USER", "1"), List.of("--fresh"),
                List.of("--verbose"), targets, null, null, null);
    }

    @Test
    void configurePassesTheArchitectureOfTheTarget() {
        assertThat(cmake.configure(job(List.of()), new Target(Platform.CUDA, List.of("80", "90a"))))
                .containsExactly("cmake", "-S", "/src", "-B", "/build/j", "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                        "-DUSER=1", "-DCMAKE_CUDA_ARCHITECTURES=80;90a", "--fresh");
        assertThat(cmake.configure(job(List.of()), new Target(Platform.HIP, List.of("gfx942"))))
                .contains("-DCMAKE_HIP_ARCHITECTURES=gfx942").doesNotContain("-DCMAKE_CUDA_ARCHITECTURES=gfx942");
    }

    @Test
    void buildUsesTheParallelismAndTargets() {
        assertThat(cmake.build(job(List.of("a", "b")), 3))
                .containsExactly("cmake", "--build", "/build/j", "--parallel", "3", "--target", "a", "b", "--verbose");
        assertThat(cmake.build(job(List.of()), 1)).containsExactly("cmake", "--build", "/build/j", "--parallel", "1",
                "--verbose");
    }
}
