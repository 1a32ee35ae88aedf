package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.archpool.testing.RequiredTool;
import org.archpool.worker.inspect.GpuCodeInspector;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The README's promise: the bundled quickstart builds at -j2 in both modes with real CMake, Ninja and nvcc,
 * and what comes out holds sm_90 code — not nvcc's default sm_75.
 */
class QuickstartIT {

    @BeforeAll
    static void tools() {
        RequiredTool.require("cmake", "ninja", "nvcc");
    }

    @ParameterizedTest
    @ValueSource(strings = {"process", "thread"})
    void buildsEveryProjectForSm90(String mode, @TempDir Path dir) throws Exception {
        Path quickstart = Archpool.copyTree(Archpool.repo().resolve("examples/quickstart"), dir.resolve("quickstart"));
        Path report = dir.resolve("report.json");

        Archpool.Run run = new Archpool().in(dir).run("build", quickstart.resolve("archpool.json").toString(),
                "--platform", "cuda", "--arch", "90", "-j2", "--mode", mode, "--report", report.toString());

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.stdout()).contains("6 of 6 jobs succeeded").contains("target: cuda 90");
        JsonNode r = Archpool.json(report);
        assertThat(r.path("schemaVersion").asInt()).isEqualTo(2);
        assertThat(r.path("gpuTargets").path(0).path("source").asText()).isEqualTo("flag");
        assertThat(r.path("gpuTargets").path(0).path("archs").toString()).isEqualTo("[\"90\"]");
        assertThat(r.path("pool").path("mode").asText()).isEqualTo(mode);
        assertThat(r.path("pool").path("workers").asInt()).isEqualTo(2);
        JsonNode jobs = r.path("jobs");
        assertThat(jobs).hasSize(6);
        Set<String> workers = new HashSet<>();
        for (JsonNode job : jobs) {
            assertThat(job.path("outcome").asText()).as(job.toString()).isEqualTo("succeeded");
            assertThat(job.path("attempts").asInt()).isEqualTo(1);
            assertThat(job.path("configureMs").asLong()).isPositive();
            assertThat(job.path("buildMs").asLong()).isPositive();
            assertThat(Path.of(job.path("logPath").asText())).exists();
            workers.add(job.path("worker").asText());
            assertThat(job.path("artifacts").toString()).contains("sm_90").doesNotContain("sm_75");
        }
        assertThat(workers).containsExactlyInAnyOrder("w1", "w2");
        if (mode.equals("process")) {
            long coordinatorStarts = r.path("pool").path("workerEvents").findValues("event").stream()
                    .filter(e -> e.asText().equals("started")).count();
            assertThat(coordinatorStarts).isEqualTo(2);
        }

        List<Path> libraries;
        try (Stream<Path> files = Files.walk(quickstart.resolve("build"))) {
            libraries = files.filter(f -> f.getFileName().toString().matches("lib.*_kernels\\.so")).toList();
        }
        assertThat(libraries).hasSize(6);
        GpuCodeInspector inspector = new GpuCodeInspector();
        for (Path library : libraries) {
            List<String> archs = inspector.inspect(library).archs();
            assertThat(archs).as(library.toString()).contains("sm_90").doesNotContain("sm_75", "compute_75");
        }
    }
}
