package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.archpool.testing.RequiredTool;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seed failure, reproduced with Debian's ROCm: hipcc given no --offload-arch prints a traceback from
 * rocm_agent_enumerator (no GPU, and the worker hides every device anyway), then silently builds gfx803 and exits
 * 0. archpool reads the code objects it built and refuses the job; with {offload-arch-flags} it passes.
 */
class HipVerifyIT {

    private static final String KERNEL = """
            #include <hip/hip_runtime.h>
            __global__ void scale(float *x) { x[threadIdx.x] *= 2.0f; }
            int main() { hipLaunchKernelGGL(scale, dim3(1), dim3(32), 0, 0, nullptr); return 0; }
            """;

    private static final String PRINTF_KERNEL = """
            #include <hip/hip_runtime.h>
            #include <cstdio>
            __global__ void hello(int x) { printf("hello %d\\n", x); }
            int main() { hipLaunchKernelGGL(hello, dim3(1), dim3(1), 0, 0, 1); return 0; }
            """;

    @BeforeAll
    static void tools() {
        RequiredTool.require("hipcc");
    }

    private static JsonNode build(Path dir, String source, String argv, int expectedExit, String... extra)
            throws Exception {
        Files.writeString(dir.resolve("k.hip"), source);
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[{\"id\":\"k\",\"kind\":\"command\",\"cwd\":\".\","
                + "\"env\":{\"HIP_PLATFORM\":\"amd\"},\"argv\":" + argv + "}]}");
        Path report = dir.resolve("r.json");
        String[] args = new String[8 + extra.length];
        System.arraycopy(new String[] {"build", "archpool.json", "--platform", "hip", "--arch", "gfx90a",
            "--report", report.toString()}, 0, args, 0, 8);
        System.arraycopy(extra, 0, args, 8, extra.length);
        Archpool.Run run = new Archpool().in(dir).run(args);
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(expectedExit);
        return Archpool.json(report).path("jobs").get(0);
    }

    @Test
    void hipccWithNoOffloadArchBuildsGfx803AndIsCaught(@TempDir Path dir) throws Exception {
        JsonNode job = build(dir, KERNEL, "[\"hipcc\",\"k.hip\",\"-o\",\"k\"]", 1);
        assertThat(job.path("outcome").asText()).isEqualTo("failed");
        assertThat(job.path("message").asText())
                .startsWith("requested gfx90a, but k is built for gfx803 but lacks gfx90a")
                .contains("gfx803 is what hipcc builds when it is given no --offload-arch")
                .contains("{offload-arch-flags}");
        assertThat(job.path("artifacts").get(0).path("archs").toString()).isEqualTo("[\"gfx803\"]");
    }

    @Test
    void withOffloadArchFlagsTheJobPassesAndItsCodeIsListed(@TempDir Path dir) throws Exception {
        JsonNode job = build(dir, KERNEL, "[\"hipcc\",\"{offload-arch-flags}\",\"k.hip\",\"-o\",\"k\"]", 0);
        assertThat(job.path("outcome").asText()).isEqualTo("succeeded");
        assertThat(job.path("warnings")).isEmpty();
        JsonNode artifact = job.path("artifacts").get(0);
        assertThat(artifact.path("path").asText()).endsWith("/k");
        assertThat(artifact.path("archs").toString()).isEqualTo("[\"gfx90a\"]");
        assertThat(artifact.has("hostcallKernels")).isFalse();
    }

    @Test
    void forbidHostcallRefusesDevicePrintf(@TempDir Path dir) throws Exception {
        String argv = "[\"hipcc\",\"{offload-arch-flags}\",\"k.hip\",\"-o\",\"k\"]";
        JsonNode allowed = build(dir, PRINTF_KERNEL, argv, 0);
        assertThat(allowed.path("artifacts").get(0).path("hostcallKernels").toString())
                .isEqualTo("[\"gfx90a:_Z5helloi\"]");
        JsonNode refused = build(dir, PRINTF_KERNEL, argv, 1, "--forbid-hostcall");
        assertThat(refused.path("outcome").asText()).isEqualTo("failed");
        assertThat(refused.path("message").asText())
                .startsWith("kernels that need a hostcall buffer, because they call device printf or assert:"
                        + " k (gfx90a:_Z5helloi)");
    }

    @Test
    void inspectShowsTheCodeObjectsAndTheirKernels(@TempDir Path dir) throws Exception {
        build(dir, PRINTF_KERNEL, "[\"hipcc\",\"{offload-arch-flags}\",\"k.hip\",\"-o\",\"k\"]", 0);
        Archpool.Run human = new Archpool().in(dir).run("inspect", "k");
        assertThat(human.exitCode()).as(human.toString()).isZero();
        assertThat(human.stdout()).contains("k: gfx90a")
                .contains(".hip_fatbin  amdgcn gfx90a, code object v")
                .contains("needing a hostcall buffer: _Z5helloi");
        Archpool.Run json = new Archpool().in(dir).run("inspect", "--json", "k");
        JsonNode file = new ObjectMapper().readTree(json.stdout()).get(0);
        assertThat(file.path("hip").get(0).path("bundleId").asText()).isEqualTo("hipv4-amdgcn-amd-amdhsa--gfx90a");
        assertThat(file.path("hip").get(0).path("kernels").get(0).path("needsHostcall").asBoolean()).isTrue();
    }
}
