package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.archpool.testing.RequiredTool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Invariants 1 and 2: spy rocminfo, amdgpu-arch and nvidia-smi on the PATH of the coordinator and of every worker run at
 * most once, by the coordinator, never by a worker or anything a worker starts.
 */
class ProbeSpyIT {

    /**
     * A spy: logs who ran it, then prints a real capture (or fails like rocminfo). It runs in a PID namespace
     * of its own and cannot see its parent; what tells the coordinator from a worker is the environment: the
     * coordinator runs tools without the device-visibility variables, and everything a worker starts has them
     * set, empty.
     */
    private static void spy(Path bin, String name, String body) throws Exception {
        Path script = bin.resolve(name);
        Files.writeString(script, "#!/bin/sh\n"
                + "if [ -z \"${CUDA_VISIBLE_DEVICES+set}${HIP_VISIBLE_DEVICES+set}${ROCR_VISIBLE_DEVICES+set}\" ];"
                + " then who=coordinator; else who=worker; fi\n"
                + "echo \"" + name + " | $who\" >> \"$SPY_LOG\"\n"
                + body);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @Test
    void probesRunOnceInTheCoordinatorAndNeverInWorkers(@TempDir Path dir) throws Exception {
        RequiredTool.require("cmake", "ninja", "nvcc");
        Path bin = Files.createDirectories(dir.resolve("spy-bin"));
        Path log = dir.resolve("spy.log");
        // What nvidia-smi printed on a real H200 (fixtures/nvidia-smi/query-…-h200.txt).
        spy(bin, "nvidia-smi", "echo '0, GPU-65af7ae3-370d-13bc-7a10-a93e8ff6d1e8, 9.0, NVIDIA H200'\n");
        // What rocminfo does on a machine without an AMD GPU (TOOLCHAINS.md: exits 1).
        spy(bin, "rocminfo", "echo 'ROCk module is NOT loaded, possibly no GPU devices'; exit 1\n");
        spy(bin, "amdgpu-arch", "echo 'Failed to get device count' >&2; exit 1\n");

        Path project = Archpool.copyTree(Archpool.repo().resolve("examples/quickstart/vector_add"),
                dir.resolve("vector_add"));
        StringBuilder jobs = new StringBuilder("{\"id\":\"vector_add\",\"kind\":\"cmake\",\"sourceDir\":\"vector_add\"}");
        for (int i = 1; i <= 4; i++) {
            jobs.append(",{\"id\":\"cmd").append(i).append("\",\"kind\":\"command\",\"argv\":[\"sh\",\"-c\",\"echo built for {archs}\"]}");
        }
        Path manifest = Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + jobs + "]}");
        assertThat(project).isDirectory();
        Path report = dir.resolve("report.json");

        Archpool.Run run = new Archpool().in(dir)
                .env("PATH", bin + ":" + System.getenv("PATH"))
                .env("SPY_LOG", log.toString())
                .env("CUDAARCHS", "").env("HIPARCHS", "")
                .run("build", manifest.toString(), "-j2", "--report", report.toString());

        assertThat(run.exitCode()).as(run.toString()).isZero();
        List<String> calls = Files.readAllLines(log);
        assertThat(calls).as("each probe runs exactly once").hasSize(3);
        assertThat(calls).anyMatch(l -> l.startsWith("rocminfo |")).anyMatch(l -> l.startsWith("amdgpu-arch |"))
                .anyMatch(l -> l.startsWith("nvidia-smi |"));
        assertThat(calls).allMatch(l -> l.endsWith("| coordinator"));

        JsonNode r = Archpool.json(report);
        assertThat(r.path("gpuTargets").path(0).path("platform").asText()).isEqualTo("cuda");
        assertThat(r.path("gpuTargets").path(0).path("archs").toString()).isEqualTo("[\"90\"]");
        assertThat(r.path("gpuTargets").path(0).path("source").asText()).isEqualTo("detected:nvidia-smi");
        assertThat(r.path("gpuTargets").path(0).path("devices").get(0).path("name").asText()).isEqualTo("NVIDIA H200");
        assertThat(r.path("gpuTargets").path(0).path("probes").findValuesAsText("status"))
                .containsExactly("failed", "failed", "detected");
        assertThat(r.path("jobs").findValuesAsText("outcome")).containsOnly("succeeded").hasSize(5);
        assertThat(r.path("jobs").get(0).path("artifacts").toString()).contains("sm_90");
    }
}
