package org.archpool.orchestrator.arch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.archpool.orchestrator.tool.ToolOutput;
import org.archpool.orchestrator.tool.ToolRunner;
import org.archpool.protocol.Platform;
import org.junit.jupiter.api.Test;

/**
 * The precedence matrix, native, fallback, the second HIP source, visibility and mixed hosts. Probe tools are
 * replaced by their real captured outputs (there is no GPU here); {@link ProbeFailureMatrixTest} and
 * {@link ToolRunnerTest} run real executables.
 */
class ArchResolverTest {

    private static final String H200 = "nvidia-smi/query-index-uuid-compute_cap-name-csv-noheader-h200.txt";
    private static final String MI300X = "rocminfo/mi300x-x4-gfx942.txt";
    private static final String NO_ROCK = "ROCk module is NOT loaded, possibly no GPU devices\n";

    private final List<String> ran = new ArrayList<>();
    private final Map<String, ToolOutput> outputs = new HashMap<>();

    private ArchResolver resolver(Map<String, String> env) {
        ToolRunner fake = (command, timeout) -> {
            ran.add(command.get(0));
            ToolOutput out = outputs.get(command.get(0));
            return out != null ? new ToolOutput(command, out.status(), out.exitCode(), out.stdout(), "", 5, null)
                    : new ToolOutput(command, ToolOutput.Status.MISSING, null, "", "", 0, command.get(0) + " is not on the PATH");
        };
        return ArchResolver.standard(env, fake, Duration.ofSeconds(10));
    }

    private void captured(String tool, int exit, String stdout) {
        outputs.put(tool, new ToolOutput(List.of(tool), ToolOutput.Status.EXITED, exit, stdout, "", 5, null));
    }

    private static ArchResolver.Request ask(PlatformChoice platform, String arch) {
        return new ArchResolver.Request(platform, arch, null);
    }

    @Test
    void theFlagWinsOverEverythingAndNothingIsProbed() throws Exception {
        captured("nvidia-smi", 0, Fixtures.read(H200));
        Resolution r = resolver(Map.of("CUDAARCHS", "80")).resolve(new ArchResolver.Request(PlatformChoice.AUTO, "sm_90a,90a-real", "75"));
        assertThat(r.platform()).isEqualTo(Platform.CUDA);
        assertThat(r.archs()).containsExactly("90a-real");
        assertThat(r.source()).isEqualTo("flag");
        assertThat(ran).isEmpty();
    }

    @Test
    void theEnvironmentComesNext() throws Exception {
        captured("rocminfo", 0, Fixtures.read(MI300X));
        Resolution r = resolver(Map.of("HIPARCHS", "gfx942;gfx90a:xnack-")).resolve(ask(PlatformChoice.AUTO, null));
        assertThat(r.platform()).isEqualTo(Platform.HIP);
        assertThat(r.archs()).containsExactly("gfx942", "gfx90a:xnack-");
        assertThat(r.source()).isEqualTo("env:HIPARCHS");
        assertThat(ran).isEmpty();
        assertThatThrownBy(() -> resolver(Map.of("HIPARCHS", "gfx942", "CUDAARCHS", "90")).resolve(ask(PlatformChoice.AUTO, null)))
                .isInstanceOf(ArchResolutionException.class).hasMessageContaining("--platform");
        assertThatThrownBy(() -> resolver(Map.of("CUDAARCHS", "../x")).resolve(ask(PlatformChoice.CUDA, null)))
                .isInstanceOf(ArchResolutionException.class).hasMessageContaining("CUDAARCHS");
    }

    @Test
    void detectionReadsTheCapturedH200() throws Exception {
        captured("nvidia-smi", 0, Fixtures.read(H200));
        captured("rocminfo", 1, NO_ROCK);
        captured("amdgpu-arch", 1, "");
        Resolution r = resolver(Map.of()).resolve(ask(PlatformChoice.AUTO, null));
        assertThat(r.platform()).isEqualTo(Platform.CUDA);
        assertThat(r.archs()).containsExactly("90");
        assertThat(r.source()).isEqualTo("detected:nvidia-smi");
        assertThat(r.devices()).singleElement().satisfies(d -> {
            assertThat(d.name()).isEqualTo("NVIDIA H200");
            assertThat(d.uuid()).isEqualTo("GPU-65af7ae3-370d-13bc-7a10-a93e8ff6d1e8");
        });
        assertThat(r.visibility().visibleIndices()).containsExactly(0);
        assertThat(r.probes()).extracting(ProbeReport::tool).containsExactly("rocminfo", "amdgpu-arch", "nvidia-smi");
        assertThat(r.probes()).extracting(ProbeReport::status).containsExactly("failed", "failed", "detected");
    }

    @Test
    void rocminfoWinsAndStripsDeviceFeatures() throws Exception {
        captured("rocminfo", 0, Fixtures.read(MI300X));
        Resolution r = resolver(Map.of()).resolve(ask(PlatformChoice.HIP, null));
        assertThat(r.archs()).containsExactly("gfx942");
        assertThat(r.devices()).hasSize(4).allSatisfy(d -> assertThat(d.targetId()).isEqualTo("gfx942:sramecc+:xnack-"));
        assertThat(r.source()).isEqualTo("detected:rocminfo");
        assertThat(ran).containsExactly("rocminfo");
    }

    @Test
    void amdgpuArchIsTheSecondSourceAndMixedHostsGetEveryArch() throws Exception {
        captured("rocminfo", 1, NO_ROCK);
        captured("amdgpu-arch", 0, "gfx950\ngfx942\ngfx942\n");
        Resolution r = resolver(Map.of()).resolve(ask(PlatformChoice.HIP, null));
        assertThat(r.archs()).containsExactly("gfx942", "gfx950");
        assertThat(r.source()).isEqualTo("detected:amdgpu-arch");
    }

    @Test
    void emptyAmdgpuArchOutputIsNotADetection() {
        captured("rocminfo", 1, NO_ROCK);
        captured("amdgpu-arch", 0, "");
        assertThatThrownBy(() -> resolver(Map.of()).resolve(ask(PlatformChoice.HIP, null)))
                .isInstanceOf(ArchResolutionException.class).hasMessageContaining("amdgpu-arch: no_devices");
    }

    @Test
    void nativeMeansDetectionHere() throws Exception {
        captured("nvidia-smi", 0, Fixtures.read(H200));
        Resolution r = resolver(Map.of()).resolve(ask(PlatformChoice.CUDA, "native"));
        assertThat(r.archs()).containsExactly("90");
        assertThat(r.detail()).isEqualTo("--arch native");
        Resolution fromEnv = resolver(Map.of("CUDAARCHS", "native")).resolve(ask(PlatformChoice.AUTO, null));
        assertThat(fromEnv.archs()).containsExactly("90");
        assertThat(fromEnv.detail()).isEqualTo("CUDAARCHS=native");
    }

    @Test
    void nativeWithoutADeviceIsRefusedNeverPassedOn() {
        assertThatThrownBy(() -> resolver(Map.of()).resolve(ask(PlatformChoice.CUDA, "native")))
                .isInstanceOf(ArchResolutionException.class).hasMessageContaining("--arch native asks for the GPUs of this machine");
    }

    @Test
    void nothingFoundIsARefusalThatNamesEveryProbe() {
        captured("rocminfo", 1, NO_ROCK);
        assertThatThrownBy(() -> resolver(Map.of()).resolve(ask(PlatformChoice.AUTO, null)))
                .isInstanceOf(ArchResolutionException.class)
                .hasMessageContaining("rocminfo: failed").hasMessageContaining("ROCk module is NOT loaded")
                .hasMessageContaining("amdgpu-arch: missing")
                .hasMessageContaining("nvidia-smi --query-gpu=index,uuid,compute_cap,name --format=csv,noheader: missing")
                .hasMessageContaining("--arch").hasMessageContaining("--fallback-arch");
    }

    @Test
    void theFallbackIsOptInWarnedAndRecorded() throws Exception {
        Resolution r = resolver(Map.of()).resolve(new ArchResolver.Request(PlatformChoice.AUTO, null, "80;90"));
        assertThat(r.source()).isEqualTo("fallback");
        assertThat(r.archs()).containsExactly("80", "90");
        assertThat(r.warnings()).singleElement().asString().contains("fallback").contains("80;90");
        assertThat(r.probes()).isNotEmpty();
    }

    @Test
    void anOldDriverIsNamed() {
        captured("nvidia-smi", 2, "Field \"compute_cap\" is not a valid field to query.\n");
        assertThatThrownBy(() -> resolver(Map.of()).resolve(ask(PlatformChoice.CUDA, null)))
                .isInstanceOf(ArchResolutionException.class)
                .hasMessageContaining("cannot report compute capability").hasMessageContaining("--arch");
    }

    @Test
    void bothPlatformsVisibleIsARefusalToGuess() {
        captured("nvidia-smi", 0, Fixtures.read(H200));
        captured("rocminfo", 0, Fixtures.read(MI300X));
        assertThatThrownBy(() -> resolver(Map.of()).resolve(ask(PlatformChoice.AUTO, null)))
                .isInstanceOf(ArchResolutionException.class).hasMessageContaining("--platform hip or --platform cuda");
    }

    @Test
    void theCoordinatorsVisibilityChoosesTheDevices() throws Exception {
        captured("rocminfo", 0, Fixtures.read(MI300X));
        Resolution r = resolver(Map.of("ROCR_VISIBLE_DEVICES", "GPU-e8986800e182538a,0"))
                .resolve(ask(PlatformChoice.HIP, null));
        assertThat(r.visibility().visibleIndices()).containsExactly(2, 0);
        assertThat(r.visibility().applied()).contains("ROCR_VISIBLE_DEVICES");
    }

    @Test
    void aVisibilitySettingThatHidesEverythingIsAnErrorUnlessTheFallbackIsWanted() throws Exception {
        captured("nvidia-smi", 0, Fixtures.read(H200));
        assertThatThrownBy(() -> resolver(Map.of("CUDA_VISIBLE_DEVICES", "")).resolve(ask(PlatformChoice.CUDA, null)))
                .isInstanceOf(ArchResolutionException.class).hasMessageContaining("CUDA_VISIBLE_DEVICES");
        Resolution r = resolver(Map.of("CUDA_VISIBLE_DEVICES", ""))
                .resolve(new ArchResolver.Request(PlatformChoice.CUDA, null, "90"));
        assertThat(r.source()).isEqualTo("fallback");
        assertThat(r.warnings()).anyMatch(w -> w.contains("CUDA_VISIBLE_DEVICES"));
    }

    @Test
    void eachToolRunsAtMostOnce() throws Exception {
        captured("nvidia-smi", 0, Fixtures.read(H200));
        ArchResolver resolver = resolver(Map.of());
        for (int i = 0; i < 5; i++) {
            resolver.resolve(ask(PlatformChoice.AUTO, null));
        }
        assertThat(ran).containsExactly("rocminfo", "amdgpu-arch", "nvidia-smi");
    }
}
