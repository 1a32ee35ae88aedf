package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.archpool.testing.RequiredTool;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Passing the right flag is not enough: a project that hard-codes CMAKE_CUDA_ARCHITECTURES builds for what
 * it says. archpool reads the GPU code actually built and says so before anyone runs it.
 */
class VerifyIT {

    @BeforeAll
    static void tools() {
        RequiredTool.require("cmake", "ninja", "nvcc");
    }

    private static Path project(Path dir, String hardcoded) throws Exception {
        Archpool.copyTree(Path.of(VerifyIT.class.getResource("/projects/hardcoded_arch").toURI()), dir.resolve("p"));
        return Archpool.manifest(dir, "{\"version\":1,\"jobs\":[{\"id\":\"p\",\"kind\":\"cmake\",\"sourceDir\":\"p\","
                + "\"defines\":{\"HARDCODED_ARCHS\":\"" + hardcoded + "\"}}]}");
    }

    private static JsonNode run(Path dir, int expectedExit, String... extra) throws Exception {
        Path report = dir.resolve("r.json");
        String[] args = new String[6 + extra.length];
        System.arraycopy(new String[] {"build", "archpool.json", "--arch", "90", "--report", report.toString()}, 0,
                args, 0, 6);
        System.arraycopy(extra, 0, args, 6, extra.length);
        Archpool.Run run = new Archpool().in(dir).run(args);
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(expectedExit);
        return Archpool.json(report).path("jobs").get(0);
    }

    @Test
    void aProjectThatHardCodes75IsCaught(@TempDir Path dir) throws Exception {
        project(dir, "75");
        JsonNode job = run(dir, 1);
        assertThat(job.path("outcome").asText()).isEqualTo("failed");
        assertThat(job.path("message").asText()).contains("requested 90")
                .contains("libhardcoded_kernels.so is built for").contains("sm_75").contains("lacks sm_90")
                .contains("does the project set CMAKE_CUDA_ARCHITECTURES");
    }

    @Test
    void withVerifyWarnItOnlyWarns(@TempDir Path dir) throws Exception {
        project(dir, "75");
        JsonNode job = run(dir, 0, "--verify", "warn");
        assertThat(job.path("outcome").asText()).isEqualTo("succeeded");
        assertThat(job.path("warnings").toString()).contains("lacks sm_90");
    }

    @Test
    void extraArchitecturesWarnUnderStrictAndFailUnderExact(@TempDir Path dir) throws Exception {
        project(dir, "75;90");
        JsonNode strict = run(dir, 0);
        assertThat(strict.path("outcome").asText()).isEqualTo("succeeded");
        assertThat(strict.path("warnings").toString()).contains("also holds sm_75");
        JsonNode exact = run(dir, 1, "--verify", "exact");
        assertThat(exact.path("message").asText()).startsWith("requested exactly 90").contains("sm_75");
    }

    @Test
    void inspectPrintsWhatALibraryHolds(@TempDir Path dir) throws Exception {
        project(dir, "80;90");
        run(dir, 0);
        Archpool.Run run = new Archpool().in(dir).run("inspect", "--json",
                dir.resolve("build/p/libhardcoded_kernels.so").toString());
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode file = new ObjectMapper().readTree(run.stdout()).get(0);
        assertThat(file.path("archs").toString()).contains("sm_80").contains("sm_90").contains("compute_80");
        assertThat(file.path("cuda").findValuesAsText("kind")).contains("cubin", "ptx");
        Archpool.Run missing = new Archpool().in(dir).run("inspect", "nope.so");
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.stderr()).contains("nope.so: no such file").doesNotContain("Exception");
    }
}
