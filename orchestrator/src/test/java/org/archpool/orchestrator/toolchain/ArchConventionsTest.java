package org.archpool.orchestrator.toolchain;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;
import org.junit.jupiter.api.Test;

class ArchConventionsTest {

    @Test
    void exportsEveryConvention() {
        assertThat(ArchConventions.environment(new Target(Platform.HIP, List.of("gfx942", "gfx90a"))))
                .containsExactly(Map.entry("HIPARCHS", "gfx942;gfx90a"),
                        Map.entry("PYTORCH_ROCM_ARCH", "gfx942;gfx90a"));
        assertThat(ArchConventions.environment(new Target(Platform.CUDA, List.of("90a", "80-real", "100f"))))
                .containsEntry("CUDAARCHS", "90a;80-real;100f")
                .containsEntry("TORCH_CUDA_ARCH_LIST", "9.0a+PTX;8.0;10.0f+PTX");
    }
}
