package org.archpool.orchestrator.toolchain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
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

    @Test
    void theFlagsPlaceholderMustBeAWholeItem() {
        assertThat(expand(new Target(Platform.HIP, List.of("gfx942")), "hipcc", "-x{offload-arch-flags}"))
                .containsExactly("hipcc", "-x{offload-arch-flags}");
    }

    @Test
    void anArchitectureNvccHasNoFlagForIsRefused() {
        assertThatThrownBy(() -> expand(new Target(Platform.CUDA, List.of("sm_90")), "nvcc", "{offload-arch-flags}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'sm_90' is not a CUDA architecture in CMake's spelling");
    }

    @Test
    void aConcreteCommandJobKeepsEverythingButItsArgv() {
        CommandJob job = new CommandJob("k", List.of("nvcc", "{offload-arch-flags}", "-o", "k.{archs}.o"), "/src",
                Map.of("A", "1"), 5_000L, List.of("*.o"));
        CommandJob sent = CommandInvocation.concrete(job, new Target(Platform.CUDA, List.of("90a")));
        assertThat(sent).isEqualTo(new CommandJob("k",
                List.of("nvcc", "-gencode=arch=compute_90a,code=[compute_90a,sm_90a]", "-o", "k.90a.o"), "/src",
                Map.of("A", "1"), 5_000L, List.of("*.o")));
        assertThat(job.argv()).containsExactly("nvcc", "{offload-arch-flags}", "-o", "k.{archs}.o");
    }

    @Test
    void jobsWithNothingToExpandAreSentAsTheyAre() {
        Target target = new Target(Platform.HIP, List.of("gfx942"));
        CommandJob plain = new CommandJob("p", List.of("make", "-j4"), "/src", null, null, null);
        assertThat(CommandInvocation.concrete(plain, target)).isSameAs(plain);
    }
}
