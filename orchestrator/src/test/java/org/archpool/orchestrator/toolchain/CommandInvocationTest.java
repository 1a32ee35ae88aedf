package org.archpool.orchestrator.toolchain;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;
import org.junit.jupiter.api.Test;

class CommandInvocationTest {

    private static List<String> expand(Target target, String... argv) {
        return CommandInvocation.argv(new CommandJob("c", List.of(argv), "/", null, null, null), target);
    }

    @Test
    void expandsOffloadArchFlagsIntoOneItemPerArchitecture() {
        assertThat(expand(new Target(Platform.HIP, List.of("gfx942", "gfx90a:xnack-")), "hipcc", "{offload-arch-flags}", "k.hip"))
                .containsExactly("hipcc", "--offload-arch=gfx942", "--offload-arch=gfx90a:xnack-", "k.hip");
        assertThat(expand(new Target(Platform.CUDA, List.of("90", "80-real", "100f-virtual", "all-major")),
                "nvcc", "{offload-arch-flags}"))
                .containsExactly("nvcc", "-gencode=arch=compute_90,code=[compute_90,sm_90]",
                        "-gencode=arch=compute_80,code=sm_80", "-gencode=arch=compute_100f,code=compute_100f",
                        "-arch=all-major");
    }

    @Test
    void expandsArchsInsideItems() {
        assertThat(expand(new Target(Platform.CUDA, List.of("80", "90")), "tool", "--archs={archs}", "{archs}"))
                .containsExactly("tool", "--archs=80;90", "80;90");
    }
}
