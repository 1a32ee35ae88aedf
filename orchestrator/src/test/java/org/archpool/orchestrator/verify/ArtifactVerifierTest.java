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
        assertThat(strict.check(CMAKE, cuda("90"), built("compute_90", "sm_90")).passed()).isTrue();
        assertThat(strict.check(CMAKE, cuda("80", "90a"), built("sm_80", "compute_80", "sm_90a", "compute_90a"))
                .warnings()).isEmpty();
        assertThat(strict.check(CMAKE, cuda("90-virtual"), built("compute_90")).passed()).isTrue();
        assertThat(strict.check(CMAKE, cuda("all-major"), built("sm_75")).passed()).isTrue();
    }

    @Test
    void aMissingArchitectureFailsAndSaysWhy() {
        Verdict v = new ArtifactVerifier(VerifyPolicy.STRICT).check(CMAKE, cuda("90"), built("compute_75", "sm_75"));
        assertThat(v.passed()).isFalse();
        assertThat(v.failure()).isEqualTo("requested 90, but libk.so is built for compute_75 sm_75 but lacks sm_90"
                + " — does the project set CMAKE_CUDA_ARCHITECTURES (or -arch/-gencode flags) itself?");
        assertThat(new ArtifactVerifier(VerifyPolicy.STRICT).check(COMMAND, cuda("90"), built("sm_75")).failure())
                .contains("{offload-arch-flags}");
    }

    @Test
    void ptxAloneIsNotRealCode() {
        assertThat(new ArtifactVerifier(VerifyPolicy.STRICT).check(CMAKE, cuda("90-real"), built("compute_90"))
                .failure()).contains("lacks sm_90");
    }

    @Test
    void extraArchitecturesWarnUnlessExact() {
        Verdict strict = new ArtifactVerifier(VerifyPolicy.STRICT).check(CMAKE, cuda("90"),
                built("sm_75", "compute_75", "sm_90", "compute_90"));
        assertThat(strict.passed()).isTrue();
        assertThat(strict.warnings()).singleElement().asString().contains("also holds sm_75");
        Verdict exact = new ArtifactVerifier(VerifyPolicy.EXACT).check(CMAKE, cuda("90"),
                built("sm_75", "sm_90", "compute_90"));
        assertThat(exact.failure()).startsWith("requested exactly 90").contains("sm_75");
    }

    @Test
    void warnAndOffNeverFail() {
        Verdict warn = new ArtifactVerifier(VerifyPolicy.WARN).check(CMAKE, cuda("90"), built("sm_75"));
        assertThat(warn.passed()).isTrue();
        assertThat(warn.warnings()).hasSize(2).anyMatch(w -> w.contains("lacks sm_90"))
                .anyMatch(w -> w.contains("also holds sm_75"));
        Verdict off = new ArtifactVerifier(VerifyPolicy.OFF).check(CMAKE, cuda("90"), built("sm_75"));
        assertThat(off.passed()).isTrue();
        assertThat(off.warnings()).isEmpty();
    }
}
