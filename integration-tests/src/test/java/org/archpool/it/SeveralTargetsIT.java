package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.archpool.testing.RequiredTool;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One build for two targets, {@code --target cuda:80,90 --target hip:gfx90a,gfx942}, with real compilers and no
 * GPU: a CMake project that builds its kernels with CUDA or HIP, whichever architecture define it is given (as
 * FlashInfer and vLLM build for both), configured once per platform in {@code build/<platform>/<id>}; CUDA command
 * jobs that say which architectures they support, as vLLM's kernels do (one for {@code 90a} only, skipped; one for
 * {@code >=80}, built for both); a HIP command job with clang++-19; and a CMake job limited to {@code 90}, built
 * for sm_90 alone and skipped for HIP. The inspector checks each (job, target) against its own intersection; a
 * second build restores every one from the cache, each under its own key. HIP needs CMake 4 and the device-library
 * folder of scripts/hip-device-libs.sh (docs/hip.md).
 */
class SeveralTargetsIT {

    /** Its kernels in CUDA or HIP: the language is the one whose architectures archpool passes. */
    private static final String CMAKE_LISTS = """
            cmake_minimum_required(VERSION 3.24)
            project(kernels LANGUAGES CXX)
            if(DEFINED CMAKE_HIP_ARCHITECTURES)
              enable_language(HIP)
              add_library(kern SHARED kern.hip)
            else()
              enable_language(CUDA)
              add_library(kern SHARED kern.cu)
            endif()
            """;
    private static final String CUDA_KERNEL = """
            __global__ void scale(float *x, float factor) { x[threadIdx.x] *= factor; }
            void launch_scale(float *x) { scale<<<1, 32>>>(x, 2.0f); }
            """;
    private static final String HIP_KERNEL = """
            #include <hip/hip_runtime.h>
            __global__ void scale(float *x, float factor) { x[threadIdx.x] *= factor; }
            void launch_scale(float *x) { hipLaunchKernelGGL(scale, dim3(1), dim3(32), 0, 0, x, 2.0f); }
            """;
    private static final String HINT = "scripts/setup-debian.sh --hip installs Debian's ROCm and LLVM 19";

    private static Path cmake4;
    private static Path clang;

    @BeforeAll
    static void tools() {
        Map<String, String> env = System.getenv();
        RequiredTool.require("nvcc", "ninja", "llvm-as-19", "llvm-dis-19");
        clang = RequiredTool.require(RequiredTool.findOnPath("clang++-19", env), "clang++-19", HINT, env);
        cmake4 = RequiredTool.require(Optional.ofNullable(env.get(ConfigureSeedIT.CMAKE4)).map(Path::of)
                .filter(Files::isExecutable), "CMake 4 (" + ConfigureSeedIT.CMAKE4 + ")",
                "scripts/cmake4.sh installs the cmake wheel and prints the path to export", env);
    }

    /** The report's entries by {@code id[platform]}. */
    private static Map<String, JsonNode> byName(JsonNode report) {
        Map<String, JsonNode> jobs = new LinkedHashMap<>();
        report.path("jobs").forEach(j -> jobs.put(j.path("id").asText() + "["
                + j.path("target").path("platform").asText() + "]", j));
        return jobs;
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(a -> out.add(a.asText()));
        return out;
    }

    /** Every architecture found in the entry's artifacts. */
    private static List<String> found(JsonNode job) {
        List<String> out = new ArrayList<>();
        job.path("artifacts").forEach(a -> a.path("archs").forEach(x -> {
            if (!out.contains(x.asText())) {
                out.add(x.asText());
            }
        }));
        return out;
    }

    @Test
    void eachJobIsBuiltOncePerTargetForWhatItSupportsAndSkippedWhereItSupportsNothing(@TempDir Path dir)
            throws Exception {
        Path libs = HipBuildIT.deviceLibs();
        Path src = Files.createDirectories(dir.resolve("proj"));
        Files.writeString(src.resolve("CMakeLists.txt"), CMAKE_LISTS);
        Files.writeString(src.resolve("kern.cu"), CUDA_KERNEL);
        Files.writeString(src.resolve("kern.hip"), HIP_KERNEL);
        for (String name : List.of("fp8", "ampere", "hipcmd")) {
            Path cwd = Files.createDirectories(dir.resolve(name));
            Files.writeString(cwd.resolve("k.cu"), CUDA_KERNEL);
            Files.writeString(cwd.resolve("k.hip"), HIP_KERNEL);
        }
        List<String> hipArgv = List.of(clang.toString(), "-x", "hip", "{offload-arch-flags}", "--rocm-path=/usr",
                "--rocm-device-lib-path=" + libs, "-O2", "-fPIC", "-shared", "k.hip", "-o", "libk.so");
        String cmake = "\"kind\": \"cmake\", \"sourceDir\": \"proj\", \"buildType\": \"Release\","
                + " \"artifacts\": [\"libkern.so\"]";
        String nvcc = "\"kind\": \"command\", \"platforms\": [\"cuda\"], \"argv\": [\"nvcc\", \"-fatbin\","
                + " \"{offload-arch-flags}\", \"-o\", \"k.fatbin\", \"k.cu\"], \"artifacts\": [\"k.fatbin\"],"
                + " \"inputs\": [\"k.cu\"]";
        Archpool.manifest(dir, "{\"version\": 1,\n"
                + " \"defaults\": {\"env\": {\"HIP_DEVICE_LIB_PATH\": " + HipBuildIT.json(libs.toString()) + "}},\n"
                + " \"jobs\": [\n"
                + "  {\"id\": \"kernels\", " + cmake + "},\n"
                + "  {\"id\": \"fp8\", \"cwd\": \"fp8\", " + nvcc + ", \"archs\": [\"90a\"]},\n"
                + "  {\"id\": \"ampere\", \"cwd\": \"ampere\", " + nvcc + ", \"archs\": [\">=80\"]},\n"
                + "  {\"id\": \"hipcmd\", \"kind\": \"command\", \"platforms\": [\"hip\"], \"cwd\": \"hipcmd\","
                + " \"argv\": " + HipBuildIT.jsonList(hipArgv) + ", \"artifacts\": [\"libk.so\"], \"inputs\": [\"k.hip\"]},\n"
                + "  {\"id\": \"hopper\", " + cmake + ", \"buildDir\": \"out/hopper\", \"archs\": [\"90\"]}\n"
                + " ]}\n");
        Path cache = dir.resolve("cache");
        Archpool archpool = new Archpool().in(dir)
                .env("PATH", cmake4.getParent() + ":" + System.getenv("PATH"))
                .env("HIPCXX", clang.toString());
        String[] build = {"build", "archpool.json", "--target", "cuda:80,90", "--target", "hip:gfx90a,gfx942",
            "-j3", "--cache", cache.toString(), "--report", "report.json", "--junit", "junit.xml"};

        Archpool.Run run = archpool.run(build);

        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode report = Archpool.json(dir.resolve("report.json"));
        assertThat(ReportSchema.problems(report)).as(report.toPrettyString()).isEmpty();
        assertThat(report.path("schemaVersion").asInt()).isEqualTo(2);
        assertThat(report.path("gpuTargets").findValuesAsText("platform")).containsExactly("cuda", "hip");
        assertThat(report.path("gpuTargets").path(1).path("toolchainCheck").path("compiler").asText())
                .isEqualTo(clang.toString());
        Map<String, JsonNode> jobs = byName(report);
        assertThat(jobs.keySet()).containsExactly("kernels[cuda]", "kernels[hip]", "fp8[cuda]", "ampere[cuda]",
                "hipcmd[hip]", "hopper[cuda]", "hopper[hip]");
        assertThat(report.path("outcomes").toString()).isEqualTo("{\"succeeded\":5,\"skipped\":2}");

        JsonNode cudaKernels = jobs.get("kernels[cuda]");
        assertThat(cudaKernels.path("outcome").asText()).isEqualTo("succeeded");
        assertThat(texts(cudaKernels.path("target").path("archs"))).containsExactly("80", "90");
        assertThat(found(cudaKernels)).contains("sm_80", "sm_90");
        assertThat(cudaKernels.path("artifacts").path(0).path("path").asText())
                .isEqualTo(dir.resolve("build/cuda/kernels/libkern.so").toRealPath().toString());
        assertThat(cudaKernels.path("logPath").asText()).endsWith("/logs/cuda/kernels.log");
        JsonNode hipKernels = jobs.get("kernels[hip]");
        assertThat(hipKernels.path("outcome").asText()).as(hipKernels.toString()).isEqualTo("succeeded");
        assertThat(found(hipKernels)).containsExactly("gfx90a", "gfx942");
        assertThat(dir.resolve("build/hip/kernels/libkern.so")).isNotEmptyFile();

        JsonNode fp8 = jobs.get("fp8[cuda]");
        assertThat(fp8.path("outcome").asText()).isEqualTo("skipped");
        assertThat(fp8.path("message").asText()).startsWith("skipped: ").contains("90a").contains("80;90");
        assertThat(fp8.has("worker")).isFalse();
        assertThat(dir.resolve("fp8/k.fatbin")).doesNotExist();

        JsonNode ampere = jobs.get("ampere[cuda]");
        assertThat(texts(ampere.path("target").path("archs"))).containsExactly("80", "90");
        assertThat(found(ampere)).contains("sm_80", "sm_90");

        assertThat(found(jobs.get("hipcmd[hip]"))).containsExactly("gfx90a", "gfx942");

        JsonNode hopper = jobs.get("hopper[cuda]");
        assertThat(texts(hopper.path("target").path("archs"))).containsExactly("90");
        assertThat(found(hopper)).contains("sm_90").doesNotContain("sm_80");
        assertThat(dir.resolve("out/hopper/cuda/libkern.so")).as("an explicit buildDir gets /<platform>")
                .isNotEmptyFile();
        assertThat(jobs.get("hopper[hip]").path("outcome").asText()).isEqualTo("skipped");
        assertThat(jobs.get("hopper[hip]").path("message").asText()).contains("no hip architecture");

        assertThat(run.stdout()).contains("kernels[hip]").contains("5 of 7 jobs succeeded, 2 skipped");
        String junit = Files.readString(dir.resolve("junit.xml"));
        assertThat(junit).contains("name=\"kernels[cuda]\"").contains("name=\"kernels[hip]\"")
                .contains("skipped=\"2\"");

        // again: every (job, target) is a hit of its own key, the narrowed ones included
        Archpool.Run again = archpool.run(build);
        assertThat(again.exitCode()).as(again.toString()).isZero();
        Map<String, JsonNode> second = byName(Archpool.json(dir.resolve("report.json")));
        List<String> keys = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : second.entrySet()) {
            if (e.getValue().path("outcome").asText().equals("skipped")) {
                continue;
            }
            assertThat(e.getValue().path("cache").asText()).as(e.getKey()).isEqualTo("hit");
            assertThat(e.getValue().path("cacheKey").asText()).isEqualTo(jobs.get(e.getKey()).path("cacheKey")
                    .asText());
            keys.add(e.getValue().path("cacheKey").asText());
        }
        assertThat(keys).hasSize(5).doesNotHaveDuplicates();
    }
}
