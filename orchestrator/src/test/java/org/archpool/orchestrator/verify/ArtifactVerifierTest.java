package org.archpool.orchestrator.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.archpool.protocol.Artifact;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ArtifactVerifierTest {

    private static final JobSpec CMAKE = new CmakeJob("k", "/s", "/b", null, null, null, null, null, null, null, null,
            null);
    private static final JobSpec COMMAND = new CommandJob("c", List.of("nvcc"), "/", null, null, null);

    private static Target cuda(String... archs) {
        return new Target(Platform.CUDA, List.of(archs));
    }

    private static List<Artifact> built(String... archs) {
        return List.of(new Artifact("/b/libk.so", List.of(archs)), new Artifact("/b/k_check", List.of()));
    }

    @Test
    void whatWasRequestedPasses() {
        ArtifactVerifier strict = new ArtifactVerifier(VerifyPolicy.STRICT);
        assertThat(strict.judge(CMAKE, cuda("90"), built("compute_90", "sm_90")).passed()).isTrue();
        assertThat(strict.judge(CMAKE, cuda("80", "90a"), built("sm_80", "compute_80", "sm_90a", "compute_90a"))
                .warnings()).isEmpty();
        assertThat(strict.judge(CMAKE, cuda("90-virtual"), built("compute_90")).passed()).isTrue();
        assertThat(strict.judge(CMAKE, cuda("all-major"), built("sm_75")).passed()).isTrue();
    }

    @Test
    void aMissingArchitectureFailsAndSaysWhy() {
        Verdict v = new ArtifactVerifier(VerifyPolicy.STRICT).judge(CMAKE, cuda("90"), built("compute_75", "sm_75"));
        assertThat(v.passed()).isFalse();
        assertThat(v.failure()).isEqualTo("requested 90, but libk.so is built for compute_75 sm_75 but lacks sm_90"
                + " — does the project set CMAKE_CUDA_ARCHITECTURES (or -arch/-gencode flags) itself?");
        assertThat(new ArtifactVerifier(VerifyPolicy.STRICT).judge(COMMAND, cuda("90"), built("sm_75")).failure())
                .contains("{offload-arch-flags}");
    }

    @Test
    void ptxAloneIsNotRealCode() {
        assertThat(new ArtifactVerifier(VerifyPolicy.STRICT).judge(CMAKE, cuda("90-real"), built("compute_90"))
                .failure()).contains("lacks sm_90");
    }

    @Test
    void extraArchitecturesWarnUnlessExact() {
        Verdict strict = new ArtifactVerifier(VerifyPolicy.STRICT).judge(CMAKE, cuda("90"),
                built("sm_75", "compute_75", "sm_90", "compute_90"));
        assertThat(strict.passed()).isTrue();
        assertThat(strict.warnings()).singleElement().asString().contains("also holds sm_75");
        Verdict exact = new ArtifactVerifier(VerifyPolicy.EXACT).judge(CMAKE, cuda("90"),
                built("sm_75", "sm_90", "compute_90"));
        assertThat(exact.failure()).startsWith("requested exactly 90").contains("sm_75");
    }

    @Test
    void warnAndOffNeverFail() {
        Verdict warn = new ArtifactVerifier(VerifyPolicy.WARN).judge(CMAKE, cuda("90"), built("sm_75"));
        assertThat(warn.passed()).isTrue();
        assertThat(warn.warnings()).hasSize(2).anyMatch(w -> w.contains("lacks sm_90"))
                .anyMatch(w -> w.contains("also holds sm_75"));
        Verdict off = new ArtifactVerifier(VerifyPolicy.OFF).judge(CMAKE, cuda("90"), built("sm_75"));
        assertThat(off.passed()).isTrue();
        assertThat(off.warnings()).isEmpty();
    }

    private static Target hip(String... archs) {
        return new Target(Platform.HIP, List.of(archs));
    }

    @Test
    void ptxAloneIsExplained() {
        assertThat(new ArtifactVerifier(VerifyPolicy.STRICT).judge(CMAKE, cuda("90"), built("compute_90"))
                .failure()).contains("lacks sm_90 (only PTX for 90, which the driver would JIT-compile");
    }

    @Test
    void hipTargetIdsMatchByProcessorAndTheFeaturesTheRequestNames() {
        ArtifactVerifier strict = new ArtifactVerifier(VerifyPolicy.STRICT);
        assertThat(strict.judge(CMAKE, hip("gfx90a"), built("gfx90a")).warnings()).isEmpty();
        assertThat(strict.judge(CMAKE, hip("gfx90a"), built("gfx90a:xnack+")).passed()).isTrue();
        assertThat(strict.judge(CMAKE, hip("gfx90a:xnack+"), built("gfx90a")).passed()).isTrue();
        assertThat(strict.judge(CMAKE, hip("gfx90a:xnack-"), built("gfx90a:sramecc+:xnack-")).passed()).isTrue();
        assertThat(strict.judge(CMAKE, hip("gfx90a:xnack-"), built("gfx90a:xnack+")).failure())
                .contains("libk.so is built for gfx90a:xnack+ but lacks gfx90a:xnack-");
        assertThat(strict.judge(CMAKE, hip("gfx90a", "gfx942"), built("gfx90a")).failure())
                .startsWith("requested gfx90a;gfx942, but libk.so is built for gfx90a but lacks gfx942")
                .endsWith("does the project set CMAKE_HIP_ARCHITECTURES (or --offload-arch flags) itself?");
        // a processor whose name starts like another is not it
        assertThat(strict.judge(CMAKE, hip("gfx90"), built("gfx90a")).passed()).isFalse();
    }

    @Test
    void hipccsSilentDefaultIsNamed() {
        Verdict v = new ArtifactVerifier(VerifyPolicy.STRICT).judge(COMMAND, hip("gfx90a"), built("gfx803"));
        assertThat(v.failure()).isEqualTo("requested gfx90a, but libk.so is built for gfx803 but lacks gfx90a"
                + " (gfx803 is what hipcc builds when it is given no --offload-arch)"
                + " — does the command pass {offload-arch-flags} (or its own --offload-arch flags)?");
        assertThat(v.warnings()).singleElement().asString().contains("also holds gfx803");
    }

    @Test
    void nvidiaCodeInAHipBuildMeansHipccChoseTheNvidiaPlatform() {
        assertThat(new ArtifactVerifier(VerifyPolicy.STRICT).judge(COMMAND, hip("gfx942"), built("sm_75"))
                .failure()).contains("lacks gfx942 (it holds NVIDIA code only: hipcc chose the NVIDIA platform;"
                + " set HIP_PLATFORM=amd)");
    }

    @Test
    void extraHipProcessorsFailOnlyUnderExact() {
        List<Artifact> both = built("gfx90a", "gfx942");
        assertThat(new ArtifactVerifier(VerifyPolicy.STRICT).judge(CMAKE, hip("gfx942"), both).warnings())
                .singleElement().asString().contains("also holds gfx90a");
        assertThat(new ArtifactVerifier(VerifyPolicy.EXACT).judge(CMAKE, hip("gfx942"), both).failure())
                .startsWith("requested exactly gfx942, but libk.so also holds gfx90a");
    }

    private static final List<Artifact> PRINTF = List.of(new Artifact("/b/libk.so", List.of("gfx942"), null,
            List.of("gfx942:_Z5helloi")));

    @ParameterizedTest(name = "--verify {0}")
    @EnumSource(VerifyPolicy.class)
    void forbidHostcallFailsKernelsThatNeedAHostcallBufferWhateverThePolicy(VerifyPolicy policy) {
        Verdict v = new ArtifactVerifier(new Verification(policy, true)).judge(CMAKE, hip("gfx942"), PRINTF);
        assertThat(v.failure())
                .startsWith("kernels that need a hostcall buffer, because they call device printf or assert:"
                        + " libk.so (gfx942:_Z5helloi) — --forbid-hostcall refuses them");
    }

    @Test
    void withoutTheFlagOrWithoutAHostcallKernelTheBuildPasses() {
        assertThat(new ArtifactVerifier(VerifyPolicy.STRICT).judge(CMAKE, hip("gfx942"), PRINTF).passed()).isTrue();
        assertThat(new ArtifactVerifier(new Verification(VerifyPolicy.STRICT, true))
                .judge(CMAKE, hip("gfx942"), built("gfx942")).passed()).isTrue();
    }

    @Test
    void whatCouldNotBeVerifiedIsAWarning() {
        ArtifactVerifier strict = new ArtifactVerifier(VerifyPolicy.STRICT);
        Verdict unreadable = strict.judge(CMAKE, hip("gfx942"),
                List.of(new Artifact("/b/libk.so", List.of(), "section .hip_fatbin: truncated bundle")));
        assertThat(unreadable.passed()).isTrue();
        assertThat(unreadable.warnings()).containsExactly("libk.so: section .hip_fatbin: truncated bundle");
        JobSpec withGlobs = new CommandJob("c", List.of("hipcc"), "/", null, null, List.of("out/*.so"));
        assertThat(strict.judge(withGlobs, hip("gfx942"), List.of()).warnings())
                .containsExactly("the job's artifacts [out/*.so] matched no file, so nothing was verified");
        assertThat(strict.judge(CMAKE, hip("gfx942"), built()).warnings())
                .containsExactly("none of the job's 2 output file(s) holds GPU code, so nothing was verified");
    }
}
