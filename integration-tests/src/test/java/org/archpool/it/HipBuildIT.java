package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.archpool.testing.RequiredTool;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real HIP builds for gfx90a and gfx942 with no GPU, as docs/hip.md describes: a CMake project with
 * {@code project(... LANGUAGES HIP)} configured by CMake 4 (Debian's 3.25 cannot: it looks for hip-lang under
 * {@code /usr/lib/cmake}) and a command job running {@code clang++-19 -x hip {offload-arch-flags}}, both with
 * clang++-19 and the device-library folder of scripts/hip-device-libs.sh (Debian's ROCm 5.2 lacks gfx942's ISA
 * version file, and Debian's hipcc, clang 15, does not know gfx942). {@code HIPCXX=clang++-19} makes CMake build
 * with clang++-19 and the coordinator's toolchain check ask it rather than hipcc, which would refuse gfx942.
 * archpool reads the {@code .hip_fatbin} bundle of every artifact; the same project with its targets pinned to
 * gfx90a in its CMakeLists is caught.
 */
class HipBuildIT {

    /** A library with a kernel and a host function that launches it; a program that launches both. */
    private static final String CMAKE_LISTS = """
            cmake_minimum_required(VERSION 3.21)
            project(hipdemo LANGUAGES HIP)
            option(PIN_GFX90A "build for gfx90a whatever CMAKE_HIP_ARCHITECTURES says" OFF)
            add_library(kern SHARED kern.hip)
            add_executable(app main.hip)
            target_link_libraries(app PRIVATE kern)
            if(PIN_GFX90A)
              set_property(TARGET kern app PROPERTY HIP_ARCHITECTURES gfx90a)
            endif()
            """;
    private static final String KERN = """
            #include <hip/hip_runtime.h>
            __global__ void scale(float *x, float factor) { x[threadIdx.x] *= factor; }
            void launch_scale(float *x) { hipLaunchKernelGGL(scale, dim3(1), dim3(32), 0, 0, x, 2.0f); }
            """;
    private static final String MAIN = """
            #include <hip/hip_runtime.h>
            void launch_scale(float *x);
            __global__ void fill(float *x) { x[threadIdx.x] = 1.0f; }
            int main() {
                float *x = nullptr;
                if (hipMalloc(&x, 32 * sizeof(float)) != hipSuccess) return 1;
                hipLaunchKernelGGL(fill, dim3(1), dim3(32), 0, 0, x);
                launch_scale(x);
                return hipDeviceSynchronize() == hipSuccess ? 0 : 1;
            }
            """;
    private static final String HINT = "scripts/setup-debian.sh --hip installs Debian's ROCm and LLVM 19";
    private static final Path DEBIAN_BITCODE = Path.of("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode");
    private static final Path HIP_LANG = Path.of("/usr/lib/x86_64-linux-gnu/cmake/hip-lang/hip-lang-config.cmake");

    private static Path cmake4;
    private static Path clang;

    @BeforeAll
    static void tools() {
        Map<String, String> env = System.getenv();
        RequiredTool.require("ninja", "llvm-as-19", "llvm-dis-19");
        clang = RequiredTool.require(RequiredTool.findOnPath("clang++-19", env), "clang++-19", HINT, env);
        RequiredTool.require(Optional.of(DEBIAN_BITCODE).filter(Files::isDirectory), "ROCm device libraries ("
                + DEBIAN_BITCODE + ")", HINT, env);
        RequiredTool.require(Optional.of(HIP_LANG).filter(Files::isRegularFile), "CMake's hip-lang package ("
                + HIP_LANG + ")", HINT, env);
        cmake4 = RequiredTool.require(Optional.ofNullable(env.get(ConfigureSeedIT.CMAKE4)).map(Path::of)
                .filter(Files::isExecutable), "CMake 4 (" + ConfigureSeedIT.CMAKE4 + ")",
                "scripts/cmake4.sh installs the cmake wheel and prints the path to export", env);
    }

    /**
     * Runs scripts/hip-device-libs.sh, which makes the folder once per machine (in {@code ${TMPDIR:-/tmp}}, beside
     * what other tests and runs use; making it is idempotent and safe to race) and prints its path.
     */
    static Path deviceLibs() throws Exception {
        Path script = Archpool.repo().resolve("scripts/hip-device-libs.sh");
        Process p = new ProcessBuilder(script.toString()).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(2, TimeUnit.MINUTES)).as(script + " finished").isTrue();
        assertThat(p.exitValue()).as(said).isZero();
        Path folder = Path.of(said.strip());
        assertThat(folder.resolve("oclc_isa_version_942.bc")).isNotEmptyFile();
        assertThat(folder.resolve("oclc_isa_version_1100.bc")).isNotEmptyFile();
        assertThat(folder.resolve("oclc_isa_version_90a.bc")).isNotEmptyFile();
        return folder;
    }

    static String json(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    static String jsonList(List<String> items) {
        return "[" + String.join(", ", items.stream().map(HipBuildIT::json).toList()) + "]";
    }

    private static Map<String, JsonNode> byId(JsonNode report) {
        Map<String, JsonNode> jobs = new HashMap<>();
        report.path("jobs").forEach(j -> jobs.put(j.path("id").asText(), j));
        return jobs;
    }

    private static List<String> archs(JsonNode artifact) {
        List<String> archs = new ArrayList<>();
        artifact.path("archs").forEach(a -> archs.add(a.asText()));
        return archs;
    }

    @Test
    void cmakeAndCommandJobsBuildGfx90aAndGfx942AndAPinnedProjectIsCaught(@TempDir Path dir) throws Exception {
        Path libs = deviceLibs();
        Path src = Files.createDirectories(dir.resolve("proj"));
        Files.writeString(src.resolve("CMakeLists.txt"), CMAKE_LISTS);
        Files.writeString(src.resolve("kern.hip"), KERN);
        Files.writeString(src.resolve("main.hip"), MAIN);
        Path cmd = Files.createDirectories(dir.resolve("cmd"));
        Files.writeString(cmd.resolve("k.hip"), MAIN.replace("void launch_scale(float *x);\n", "")
                .replace("launch_scale(x);\n", ""));
        List<String> argv = List.of(clang.toString(), "-x", "hip", "{offload-arch-flags}", "--rocm-path=/usr",
                "--rocm-device-lib-path=" + libs, "-O2", "k.hip", "-o", "k", "-lamdhip64");
        // Release: clang 19 at -O0 gives every kernel a hostcall buffer (docs/verification.md)
        String cmakeJob = "\"kind\": \"cmake\", \"sourceDir\": \"proj\", \"buildType\": \"Release\","
                + " \"artifacts\": [\"app\", \"libkern.so\"]";
        Archpool.manifest(dir, "{\"version\": 1,\n"
                + " \"defaults\": {\"env\": {\"HIP_DEVICE_LIB_PATH\": " + json(libs.toString()) + "}},\n"
                + " \"jobs\": [\n"
                + "  {\"id\": \"hip-cmake\", " + cmakeJob + "},\n"
                + "  {\"id\": \"hip-command\", \"kind\": \"command\", \"cwd\": \"cmd\", \"argv\": " + jsonList(argv)
                + ", \"artifacts\": [\"k\"]},\n"
                + "  {\"id\": \"hip-cmake-pinned\", " + cmakeJob + ", \"defines\": {\"PIN_GFX90A\": \"ON\"}}\n"
                + " ]}\n");
        Path reportFile = dir.resolve("report.json");

        Archpool.Run run = new Archpool().in(dir)
                .env("PATH", cmake4.getParent() + ":" + System.getenv("PATH"))
                .env("HIPCXX", clang.toString())
                .run("build", "archpool.json", "--platform", "hip", "--arch", "gfx90a;gfx942", "-j3", "--no-cache",
                        "--report", reportFile.toString());

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
        assertThat(run.stdout()).as(run.toString()).contains("target: hip gfx90a;gfx942")
                .contains("2 of 3 jobs succeeded");
        JsonNode report = ReportSchema.assertValid(reportFile);
        // top level in schema 1, under targets[0] in schema 2
        JsonNode check = report.findValue("toolchainCheck");
        assertThat(check).as("toolchainCheck in " + report).isNotNull();
        assertThat(check.path("compiler").asText()).isEqualTo(clang.toString());
        assertThat(check.path("refused")).isEmpty();
        assertThat(check.path("probes").findValuesAsText("status")).containsExactly("ok", "ok");
        Map<String, JsonNode> jobs = byId(report);

        for (String id : List.of("hip-cmake", "hip-command")) {
            JsonNode job = jobs.get(id);
            assertThat(job.path("outcome").asText()).as(job.toString()).isEqualTo("succeeded");
            assertThat(job.path("warnings")).as(job.toString()).isEmpty();
            assertThat(job.path("artifacts")).as(job.toString()).hasSize(id.equals("hip-cmake") ? 2 : 1);
            for (JsonNode artifact : job.path("artifacts")) {
                assertThat(archs(artifact)).as(artifact.toString()).containsExactly("gfx90a", "gfx942");
                assertThat(artifact.has("problem")).as(artifact.toString()).isFalse();
                assertThat(artifact.has("hostcallKernels")).as(artifact.toString()).isFalse();
            }
        }
        assertThat(jobs.get("hip-cmake").path("artifacts").findValuesAsText("path"))
                .containsExactly(dir.resolve("build/hip-cmake/app").toString(),
                        dir.resolve("build/hip-cmake/libkern.so").toString());
        assertThat(jobs.get("hip-command").path("artifacts").get(0).path("path").asText())
                .isEqualTo(cmd.resolve("k").toString());
        assertThat(Files.readString(dir.resolve("build/hip-cmake/CMakeCache.txt")))
                .containsPattern("\nCMAKE_HIP_ARCHITECTURES:[A-Z]+=gfx90a;gfx942\n")
                .contains("CMAKE_HIP_COMPILER:FILEPATH=" + clang);

        JsonNode pinned = jobs.get("hip-cmake-pinned");
        assertThat(pinned.path("outcome").asText()).as(pinned.toString()).isEqualTo("failed");
        assertThat(pinned.path("exitCode").asInt()).isZero();
        assertThat(pinned.path("message").asText())
                .startsWith("requested gfx90a;gfx942, but app is built for gfx90a but lacks gfx942")
                .contains("libkern.so is built for gfx90a but lacks gfx942")
                .contains("does the project set CMAKE_HIP_ARCHITECTURES");
        for (JsonNode artifact : pinned.path("artifacts")) {
            assertThat(archs(artifact)).as(artifact.toString()).containsExactly("gfx90a");
        }
    }

    /**
     * clang's dependency file names only the host pass's headers, so a header only the device pass includes is in
     * no build record: a HIP job's include folders outside its source folder enter its read set whole, and a
     * device-only header there that changed is a miss (without that, the old binary was restored).
     */
    @Test
    void aDeviceOnlyHeaderOutsideTheSourceFolderThatChangedIsAMissAndTheJobIsBuiltAgain(@TempDir Path dir)
            throws Exception {
        Path libs = deviceLibs();
        Path outside = Files.createDirectories(dir.resolve("outside")).resolve("device_only.h");
        Files.writeString(outside, "#define DEVICE_ONLY 1\n");
        Path src = Files.createDirectories(dir.resolve("proj"));
        Files.writeString(src.resolve("CMakeLists.txt"), "cmake_minimum_required(VERSION 3.21)\n"
                + "project(devonly LANGUAGES HIP)\ninclude_directories(" + outside.getParent() + ")\n"
                + "add_library(kern SHARED kern.hip)\n");
        Files.writeString(src.resolve("kern.hip"), "#include <hip/hip_runtime.h>\n"
                + "#if defined(__HIP_DEVICE_COMPILE__)\n#include \"device_only.h\"\n"
                + "static_assert(DEVICE_ONLY == 1, \"device_only.h no longer says 1\");\n#endif\n" + KERN);
        Archpool.manifest(dir, "{\"version\": 1, \"defaults\": {\"env\": {\"HIP_DEVICE_LIB_PATH\": "
                + json(libs.toString()) + "}}, \"jobs\": [{\"id\": \"devonly\", \"kind\": \"cmake\","
                + " \"sourceDir\": \"proj\", \"buildType\": \"Release\", \"artifacts\": [\"libkern.so\"]}]}");
        Archpool archpool = new Archpool().in(dir).env("PATH", cmake4.getParent() + ":" + System.getenv("PATH"))
                .env("HIPCXX", clang.toString());
        String[] build = {"build", "archpool.json", "--platform", "hip", "--arch", "gfx90a", "--cache",
                dir.resolve("cache").toString()};

        Archpool.Run cold = archpool.run(build);
        assertThat(cold.exitCode()).as(cold.toString()).isZero();
        assertThat(byId(ReportSchema.assertValid(dir.resolve(".archpool/report.json"))).get("devonly")
                .path("cache").asText()).isEqualTo("stored");

        Files.writeString(outside, "#define DEVICE_ONLY 2\n");
        Archpool.deleteTree(dir.resolve("build"));
        Archpool.Run changed = archpool.run(build);

        assertThat(changed.exitCode()).as(changed.toString()).isNotZero();
        JsonNode job = byId(ReportSchema.assertValid(dir.resolve(".archpool/report.json"))).get("devonly");
        assertThat(job.path("outcome").asText()).as(job.toString()).isEqualTo("failed");
        assertThat(job.path("cache").asText()).as(job.toString()).isEqualTo("miss");
        assertThat(job.path("cacheNote").asText()).contains(outside + " changed");
    }
}
