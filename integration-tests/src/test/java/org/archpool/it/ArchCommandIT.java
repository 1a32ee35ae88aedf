package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.archpool.testing.RequiredTool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code archpool arch} as a user runs it: a refusal that explains itself, or an answer with its provenance. */
class ArchCommandIT {

    private static Path spyBin(Path dir, String tool, String body) throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path script = bin.resolve(tool);
        Files.writeString(script, "#!/bin/sh\necho \"$0 $*\" >> \"$SPY_LOG\"\n" + body);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return bin;
    }

    private static Archpool withoutHints() {
        return new Archpool().env("CUDAARCHS", "").env("HIPARCHS", "");
    }

    @Test
    void withNoGpuAndNoHintsItExitsThreeAndSaysWhatItTried(@TempDir Path dir) throws Exception {
        Path emptyBin = Files.createDirectories(dir.resolve("empty"));
        Archpool.Run run = withoutHints().in(dir).env("PATH", emptyBin + ":/usr/bin:/bin").run("arch");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(3);
        assertThat(run.stderr()).contains("no GPU architecture could be resolved")
                .contains("rocminfo").contains("amdgpu-arch").contains("nvidia-smi")
                .contains("--arch").contains("--fallback-arch").doesNotContain("Exception").doesNotContain("\tat ");
    }

    @Test
    void aSpyRocminfoPrintingTheMi300xAnswersGfx942ProbingOnce(@TempDir Path dir) throws Exception {
        Path fixture = Archpool.repo().resolve("orchestrator/src/test/resources/fixtures/rocminfo/mi300x-x4-gfx942.txt");
        Path bin = spyBin(dir, "rocminfo", "cat '" + fixture + "'\n");
        Path log = dir.resolve("spy.log");
        Archpool.Run run = withoutHints().in(dir).env("PATH", bin + ":/usr/bin:/bin").env("SPY_LOG", log.toString())
                .run("arch", "--json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode r = new ObjectMapper().readTree(run.stdout());
        assertThat(r.path("platform").asText()).isEqualTo("hip");
        assertThat(r.path("archs").toString()).isEqualTo("[\"gfx942\"]");
        assertThat(r.path("source").asText()).isEqualTo("detected:rocminfo");
        assertThat(r.path("devices")).hasSize(4);
        assertThat(r.path("devices").get(0).path("uuid").asText()).isEqualTo("GPU-8d1457e2c20f59d2");
        assertThat(r.path("visibility").path("visibleIndices")).hasSize(4);
        assertThat(r.path("probes").findValuesAsText("status")).contains("detected");
        assertThat(Files.readAllLines(log)).hasSize(1);
    }

    @Test
    void anArchitectureTheCompilerCannotBuildStopsTheBuildBeforeAnyJob(@TempDir Path dir) throws Exception {
        RequiredTool.require("nvcc");
        Path manifest = Archpool.manifest(dir, "{\"version\":1,\"jobs\":[{\"id\":\"never\",\"kind\":\"command\","
                + "\"argv\":[\"sh\",\"-c\",\"touch ran\"]}]}");
        Archpool.Run run = new Archpool().in(dir).run("build", manifest.toString(), "--arch", "90,70");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(3);
        assertThat(run.stderr()).contains("nvcc cannot build 70").contains("sm_75");
        assertThat(dir.resolve("ran")).doesNotExist();
    }

    @Test
    void hostileValuesAreRejectedBeforeTheyReachAnything(@TempDir Path dir) throws Exception {
        for (List<String> args : List.of(List.of("--arch", "gfx942;rm -rf /"), List.of("--arch", "../x"),
                List.of("--platform", "cuda", "--arch", "９０"), List.of("--arch", "x".repeat(10_000)))) {
            String[] argv = new String[args.size() + 1];
            argv[0] = "arch";
            for (int i = 0; i < args.size(); i++) {
                argv[i + 1] = args.get(i);
            }
            Archpool.Run run = withoutHints().in(dir).run(argv);
            assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
            assertThat(run.stderr()).doesNotContain("Exception").hasSizeLessThan(2000);
        }
    }
}
