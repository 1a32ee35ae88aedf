package org.archpool.orchestrator.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.archpool.testing.RequiredTool;

/** Real CUDA fat binaries of one small kernel, made by nvcc, for the cache's tests. */
final class NvccFatbin {

    private NvccFatbin() {
    }

    /** The fat binary of a one-line kernel for sm_{@code arch}, built in {@code dir}. */
    static byte[] of(Path dir, String arch) throws Exception {
        RequiredTool.require("nvcc");
        Path source = dir.resolve("k.cu");
        if (!Files.exists(source)) {
            Files.writeString(source, "__global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }\n");
        }
        Path fatbin = dir.resolve("k" + arch + ".fatbin");
        Process p = new ProcessBuilder("nvcc", "-fatbin", "-gencode", "arch=compute_" + arch + ",code=sm_" + arch,
                "-o", fatbin.toString(), "k.cu").directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(output).isZero();
        return Files.readAllBytes(fatbin);
    }
}
