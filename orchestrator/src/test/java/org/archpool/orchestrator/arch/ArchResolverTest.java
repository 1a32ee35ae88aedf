package org.archpool.orchestrator.arch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.archpool.protocol.Platform;
import org.junit.jupiter.api.Test;

/**
 * Precedence and refusal. The probe tools are replaced by their real captured outputs (no GPU here);
 * {@link ToolRunnerTest} covers running real executables.
 */
class ArchResolverTest {

    private final List<List<String>> ran = new ArrayList<>();
    private final Map<String, ToolOutput> outputs = new HashMap<>();

    private ToolRunner tools() {
        return (command, timeout) -> {
            ran.add(command);
            ToolOutput out = outputs.get(command.get(0));
            return out != null ? out
                    : new ToolOutput(command, ToolOutput.Status.MISSING, null, "", "", 0, command.get(0) + " is not on the PATH");
        };
    }

    private void captured(String tool, int exit, String stdout) {
        outputs.put(tool, new ToolOutput(List.of(tool), ToolOutput.Status.EXITED, exit, stdout, "", 12, null));
    }

    private ArchResolver resolver(Map<String, String> env) {
        OnceToolRunner once = new OnceToolRunner(tools());
        return new ArchResolver(env, ToolDetector.standard(once, Duration.ofSeconds(10)));
    }

    @Test
    void theFlagWinsAndNothingIsProbed() throws Exception {
        Resolution r = resolver(Map.of("CUDAARCHS", "80")).resolve(PlatformChoice.AUTO, "90a");
        assertThat(r.platform()).isEqualTo(Platform.CUDA);
        assertThat(r.archs()).containsExactly("90a");
        assertThat(r.source()).isEqualTo("flag");
        assertThat(ran).isEmpty();
    }

    @Test
    void theEnvironmentComesNext() throws Exception {
        Resolution r = resolver(Map.of("HIPARCHS", "gfx942;gfx90a")).resolve(PlatformChoice.AUTO, null);
        assertThat(r.platform()).isEqualTo(Platform.HIP);
        assertThat(r.archs()).containsExactly("gfx942", "gfx90a");
        assertThat(r.detail()).isEqualTo("HIPARCHS=gfx942;gfx90a");
        assertThat(ran).isEmpty();
        assertThatThrownBy(() -> resolver(Map.of("HIPARCHS", "gfx942", "CUDAARCHS", "90")).resolve(PlatformChoice.AUTO, null))
                .isInstanceOf(ArchResolutionException.class).hasMessageContaining("--platform");
        assertThatThrownBy(() -> resolver(Map.of("CUDAARCHS", "native")).resolve(PlatformChoice.CUDA, null))
                .isInstanceOf(ArchResolutionException.class).hasMessageContaining("CUDAARCHS");
    }

    @Test
    void detectionReadsTheCapturedH200() throws Exception {
        captured("nvidia-smi", 0, Fixtures.read("nvidia-smi/query-index-uuid-compute_cap-name-csv-noheader-h200.txt"));
        captured("rocminfo", 1, "ROCk module is NOT loaded, possibly no GPU devices\n");
        Resolution r = resolver(Map.of()).resolve(PlatformChoice.AUTO, null);
        assertThat(r.platform()).isEqualTo(Platform.CUDA);
        assertThat(r.archs()).containsExactly("90");
        assertThat(r.source()).isEqualTo("detected");
        assertThat(r.devices()).singleElement().satisfies(d -> {
            assertThat(d.name()).isEqualTo("NVIDIA H200");
            assertThat(d.uuid()).isEqualTo("GPU-65af7ae3-370d-13bc-7a10-a93e8ff6d1e8");
        });
        assertThat(r.probes()).extracting(ProbeReport::status).containsExactly("failed", "detected");
    }

    @Test
    void detectionReadsTheCapturedMi300x() throws Exception {
        captured("rocminfo", 0, Fixtures.read("rocminfo/mi300x-x4-gfx942.txt"));
        Resolution r = resolver(Map.of()).resolve(PlatformChoice.HIP, null);
        assertThat(r.archs()).containsExactly("gfx942");
        assertThat(r.devices()).hasSize(4);
        assertThat(ran).extracting(c -> c.get(0)).containsExactly("rocminfo");
    }

    @Test
    void nothingFoundIsARefusalThatNamesEveryProbe() {
        captured("rocminfo", 1, "ROCk module is NOT loaded, possibly no GPU devices\n");
        assertThatThrownBy(() -> resolver(Map.of()).resolve(PlatformChoice.AUTO, null))
                .isInstanceOf(ArchResolutionException.class)
                .hasMessageContaining("rocminfo: failed").hasMessageContaining("ROCk module is NOT loaded")
                .hasMessageContaining("nvidia-smi --query-gpu=index,uuid,compute_cap,name --format=csv,noheader: missing")
                .hasMessageContaining("--arch");
    }

    @Test
    void anOldDriverIsNamed() {
        captured("nvidia-smi", 2, "Field \"compute_cap\" is not a valid field to query.\n");
        assertThatThrownBy(() -> resolver(Map.of()).resolve(PlatformChoice.CUDA, null))
                .isInstanceOf(ArchResolutionException.class)
                .hasMessageContaining("cannot report compute capability").hasMessageContaining("--arch");
    }

    @Test
    void bothPlatformsDetectedIsARefusalToGuess() {
        captured("nvidia-smi", 0, Fixtures.read("nvidia-smi/query-index-uuid-compute_cap-name-csv-noheader-h200.txt"));
        captured("rocminfo", 0, Fixtures.read("rocminfo/mi300x-x4-gfx942.txt"));
        assertThatThrownBy(() -> resolver(Map.of()).resolve(PlatformChoice.AUTO, null))
                .isInstanceOf(ArchResolutionException.class).hasMessageContaining("--platform hip or --platform cuda");
    }

    @Test
    void eachToolRunsAtMostOnce() throws Exception {
        captured("nvidia-smi", 0, Fixtures.read("nvidia-smi/query-index-uuid-compute_cap-name-csv-noheader-h200.txt"));
        ArchResolver resolver = resolver(Map.of());
        for (int i = 0; i < 5; i++) {
            resolver.resolve(PlatformChoice.AUTO, null);
        }
        assertThat(ran).hasSize(2);
    }
}
