package org.archpool.orchestrator.arch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.archpool.orchestrator.tool.ProcessToolRunner;
import org.archpool.protocol.Platform;
import org.archpool.testing.RequiredTool;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real compilers say which targets they build: nvcc lists them, clang refuses unknown ones in a dry run. */
@Tag("process")
class ToolchainCheckTest {

    private static ToolchainCheck check(Map<String, String> env) {
        return new ToolchainCheck(new ProcessToolRunner(env, Clock.systemUTC()), env, Duration.ofSeconds(30));
    }

    private static Map<String, String> systemPath() {
        return Map.of("PATH", System.getenv("PATH"));
    }

    @Test
    void nvccBuildsWhatItListsAndRefusesTheRest() {
        RequiredTool.require("nvcc");
        ToolchainCheck.Result ok = check(systemPath()).check(Platform.CUDA, List.of("90", "80-real", "90a", "all-major"));
        assertThat(ok.refused()).isEmpty();
        assertThat(ok.probes()).extracting(ProbeReport::status).containsOnly("ok");

        ToolchainCheck.Result old = check(systemPath()).check(Platform.CUDA, List.of("90", "70", "52-virtual"));
        assertThat(old.refused()).hasSize(2);
        assertThat(old.refused().get(0)).startsWith("70 (this nvcc builds ").contains("sm_75");
        assertThatThrownBy(() -> ToolchainCheck.requireSupported(old, Platform.CUDA))
                .isInstanceOf(ArchResolutionException.class).hasMessageContaining("nvcc cannot build 70")
                .hasMessageContaining("CUDACXX").hasMessageContaining("--no-toolchain-check");
    }

    @Test
    void clangDryRunsEachTarget() {
        RequiredTool.require("clang++");
        ToolchainCheck.Result r = check(Map.of("PATH", System.getenv("PATH"), "HIPCXX", "clang++"))
                .check(Platform.HIP, List.of("gfx90a", "gfx90a:xnack-", "gfx9999"));
        assertThat(r.compiler()).isEqualTo("clang++");
        assertThat(r.probes()).hasSize(3);
        assertThat(r.refused()).singleElement().asString().startsWith("gfx9999 (").contains("gfx9999");
        assertThat(r.probes().get(2).status()).isEqualTo("refused");
    }

    @Test
    void aMissingCompilerSkipsTheCheck(@TempDir Path empty) {
        ToolchainCheck.Result cuda = check(Map.of("PATH", empty.toString())).check(Platform.CUDA, List.of("70"));
        assertThat(cuda.refused()).isEmpty();
        assertThat(cuda.probes()).extracting(ProbeReport::status).containsOnly("skipped");
        ToolchainCheck.Result hip = check(Map.of("PATH", empty.toString())).check(Platform.HIP, List.of("gfx942", "gfx90a"));
        assertThat(hip.refused()).isEmpty();
        assertThat(hip.probes()).singleElement().extracting(ProbeReport::status).isEqualTo("skipped");
    }
}
