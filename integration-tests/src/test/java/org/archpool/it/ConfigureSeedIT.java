package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.archpool.testing.RequiredTool;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Configure seeding against real CMake (Debian's 3.25, and 4.x from the {@code cmake} wheel), nvcc and the
 * distribution: CUDA projects whose options differ, built seeded and unseeded, give each project its own values and
 * the same compile commands and GPU code; a seed that breaks a configure is dropped and the job configured again
 * without it; {@code --no-configure-seed} seeds nothing.
 */
class ConfigureSeedIT {

    /** Where scripts/test.sh puts CMake 4 (scripts/cmake4.sh). */
    static final String CMAKE4 = "ARCHPOOL_TEST_CMAKE4";

    @TempDir
    Path dir;

    @BeforeAll
    static void tools() {
        RequiredTool.require("cmake", "ninja", "nvcc", "objcopy");
    }

    /** {@code n} CUDA+C++ projects in one folder; project i sets its option FOO to ON when i is even. */
    private static Path projects(Path folder, int n) throws Exception {
        StringBuilder jobs = new StringBuilder();
        for (int i = 0; i < n; i++) {
            Path src = Files.createDirectories(folder.resolve("p" + i));
            Files.writeString(src.resolve("CMakeLists.txt"), "cmake_minimum_required(VERSION 3.18)\n"
                    + "project(p" + i + " LANGUAGES CXX CUDA)\n"
                    + "option(FOO \"a project option\" " + (i % 2 == 0 ? "ON" : "OFF") + ")\n"
                    + "set(NAME \"p" + i + "\" CACHE STRING \"a project string\")\n"
                    + "add_library(k" + i + " SHARED k.cu)\n");
            Files.writeString(src.resolve("k.cu"), "__global__ void k" + i + "(float *x) { x[threadIdx.x] *= "
                    + (i + 2) + ".0f; }\nvoid launch" + i + "(float *x) { k" + i + "<<<1, 32>>>(x); }\n");
            jobs.append(i == 0 ? "" : ",").append("{\"id\": \"p").append(i).append("\", \"kind\": \"cmake\",")
                    .append(" \"sourceDir\": \"p").append(i).append("\", \"defines\": {\"CMAKE_EXPORT_COMPILE_COMMANDS\":")
                    .append(" \"ON\"}, \"artifacts\": [\"*.so\"]}");
        }
        return Archpool.manifest(folder, "{\"version\": 1, \"jobs\": [" + jobs + "]}");
    }

    private static Archpool.Run build(Archpool archpool, Path manifest, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("build", manifest.toString(), "--platform", "cuda", "--arch",
                "90", "-j1", "--no-cache"));
        args.addAll(List.of(more));
        return archpool.in(manifest.getParent()).run(args.toArray(String[]::new));
    }

    private static JsonNode report(Path manifest) throws Exception {
        return ReportSchema.assertValid(manifest.getParent().resolve(".archpool/report.json"));
    }

    private static List<String> field(JsonNode report, String name) {
        List<String> values = new ArrayList<>();
        report.path("jobs").forEach(j -> values.add(j.path(name).asText("-")));
        return values;
    }

    /** The fat binary inside a built library, which holds its GPU code. */
    private static byte[] gpuCode(Path library) throws Exception {
        Path out = Files.createTempFile("fatbin", ".bin");
        try {
            Process p = new ProcessBuilder("objcopy", "--dump-section", ".nv_fatbin=" + out, library.toString(),
                    out + ".discard").redirectErrorStream(true).start();
            String said = new String(p.getInputStream().readAllBytes());
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as(said).isZero();
            return Files.readAllBytes(out);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(Path.of(out + ".discard"));
        }
    }

    private static String cacheEntry(Path buildDir, String name) throws Exception {
        try (Stream<String> lines = Files.lines(buildDir.resolve("CMakeCache.txt"))) {
            return lines.filter(l -> l.startsWith(name + ":")).findFirst().orElse(null);
        }
    }

    /** A seeded build and an unseeded one of the same projects agree on everything they build. */
    private void seededAndUnseededAgree(Archpool archpool) throws Exception {
        int n = 3;
        Path seeded = projects(dir.resolve("seeded"), n);
        Path plain = projects(dir.resolve("plain"), n);

        Archpool.Run a = build(archpool, seeded);
        assertThat(a.exitCode()).as(a.toString()).isZero();
        JsonNode r = report(seeded);
        assertThat(field(r, "configureSeeded")).containsExactly("false", "true", "true");
        assertThat(a.stdout()).contains("schedule: longest-first, 1 slot; parallelism");
        Archpool.Run b = build(archpool, plain, "--no-configure-seed");
        assertThat(b.exitCode()).as(b.toString()).isZero();
        assertThat(field(report(plain), "configureSeeded")).containsExactly("-", "-", "-");

        for (int i = 0; i < n; i++) {
            Path s = seeded.getParent().resolve("build/p" + i);
            Path p = plain.getParent().resolve("build/p" + i);
            String where = "project p" + i;
            assertThat(Files.readString(s.resolve("compile_commands.json")).replace(seeded.getParent().toString(), "X"))
                    .as(where).isEqualTo(Files.readString(p.resolve("compile_commands.json"))
                            .replace(plain.getParent().toString(), "X"));
            assertThat(gpuCode(s.resolve("libk" + i + ".so"))).as(where).isEqualTo(gpuCode(p.resolve("libk" + i + ".so")));
            assertThat(cacheEntry(s, "FOO")).as(where).isEqualTo("FOO:BOOL=" + (i % 2 == 0 ? "ON" : "OFF"));
            assertThat(cacheEntry(s, "NAME")).as(where).isEqualTo("NAME:STRING=p" + i);
            assertThat(cacheEntry(s, "CMAKE_CUDA_ARCHITECTURES")).as(where).endsWith("=90");
            if (i > 0) {
                // nothing of the tree the seed came from
                assertThat(Files.readString(s.resolve("CMakeCache.txt"))).as(where)
                        .doesNotContain(seeded.getParent().resolve("build/p0").toString());
            }
        }
        // the seeded configures ran no compiler identification
        for (int i = 1; i < n; i++) {
            String log = Files.readString(seeded.getParent().resolve(".archpool/logs/p" + i + ".log"));
            assertThat(log).doesNotContain("compiler identification").doesNotContain("Detecting CUDA");
        }
        assertThat(Files.readString(seeded.getParent().resolve(".archpool/logs/p0.log")))
                .contains("The CUDA compiler identification");
    }

    @Test
    void debiansCmakeSeededAndUnseededBuildTheSame() throws Exception {
        seededAndUnseededAgree(new Archpool());
    }

    @Test
    void cmake4SeededAndUnseededBuildTheSame() throws Exception {
        Path cmake4 = RequiredTool.require(Optional.ofNullable(System.getenv(CMAKE4)).map(Path::of)
                .filter(Files::isExecutable), "CMake 4 (" + CMAKE4 + ")", "scripts/cmake4.sh installs the cmake wheel"
                + " into a virtual environment and prints its path; scripts/test.sh exports it", System.getenv());
        Archpool archpool = new Archpool().env("PATH", cmake4.getParent() + ":" + System.getenv("PATH"));
        seededAndUnseededAgree(archpool);
        for (String tree : List.of("seeded/build/p0", "seeded/build/p2", "plain/build/p1")) {
            assertThat(cacheEntry(dir.resolve(tree), "CMAKE_CACHE_MAJOR_VERSION")).as(tree).endsWith("=4");
        }
    }

    @Test
    void aSeedThatBreaksAConfigureIsDroppedAndTheJobConfiguredAgainWithoutIt() throws Exception {
        Path cache = dir.resolve("cache");
        Path first = projects(dir.resolve("first"), 1);
        Archpool.Run a = new Archpool().in(first.getParent()).run("build", first.toString(), "--platform", "cuda",
                "--arch", "90", "--cache", cache.toString());
        assertThat(a.exitCode()).as(a.toString()).isZero();
        Path seeds = cache.resolve("configure-seeds");
        List<Path> compilerFiles;
        try (Stream<Path> files = Files.walk(seeds)) {
            compilerFiles = files.filter(f -> f.getFileName().toString().equals("CMakeCUDACompiler.cmake")).toList();
        }
        assertThat(compilerFiles).hasSize(1);
        // whole as a seed, damaged as no seed should be (an empty or id-less one is dropped before it is planted)
        Files.writeString(compilerFiles.get(0), Files.readString(compilerFiles.get(0))
                + "message(FATAL_ERROR \"a broken seed\")\n");

        Path second = projects(dir.resolve("second"), 2);
        Archpool.Run b = new Archpool().in(second.getParent()).run("build", second.toString(), "--platform", "cuda",
                "--arch", "90", "-j1", "--cache", cache.toString());
        assertThat(b.exitCode()).as(b.toString()).isZero();
        JsonNode r = report(second);
        // p0 was seeded with the broken seed, failed, and was configured again without it; its fresh configure then
        // became the seed that p1 used
        assertThat(field(r, "configureSeeded")).containsExactly("false", "true");
        assertThat(r.path("jobs").get(0).path("warnings").toString()).contains("configure failed when seeded");
        assertThat(field(r, "outcome")).containsExactly("succeeded", "succeeded");
        try (Stream<Path> files = Files.walk(seeds)) {
            assertThat(files.filter(f -> f.getFileName().toString().equals("CMakeCUDACompiler.cmake")).toList())
                    .singleElement().satisfies(f -> assertThat(Files.readString(f)).doesNotContain("broken"));
        }
    }

    /** A project that enables CUDA and builds one library of {@code sources} (k.cu, host.cpp). */
    private static String project(Path src, String... sources) throws Exception {
        Files.createDirectories(src);
        Files.writeString(src.resolve("CMakeLists.txt"), "cmake_minimum_required(VERSION 3.18)\n"
                + "project(" + src.getFileName() + " LANGUAGES CXX CUDA)\n"
                + "add_library(k SHARED " + String.join(" ", sources) + ")\n");
        Files.writeString(src.resolve("k.cu"), "__global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }\n"
                + "void launch(float *x) { k<<<1, 32>>>(x); }\n");
        Files.writeString(src.resolve("host.cpp"), "int host() { return 1; }\n");
        return "{\"id\": \"" + src.getFileName() + "\", \"kind\": \"cmake\", \"sourceDir\": \"" + src.getFileName()
                + "\", \"artifacts\": [\"*.so\"]}";
    }

    @Test
    void aSeedThatMakesCmakeSkipTheCudaSourcesIsReplacedAndTheJobBuiltAgainWithoutIt() throws Exception {
        Path cache = dir.resolve("cache");
        Path first = Archpool.manifest(dir.resolve("first"), "{\"version\": 1, \"jobs\": ["
                + project(dir.resolve("first/a"), "k.cu", "host.cpp") + "]}");
        Archpool.Run a = new Archpool().in(first.getParent()).run("build", first.toString(), "--platform", "cuda",
                "--arch", "90", "--cache", cache.toString());
        assertThat(a.exitCode()).as(a.toString()).isZero();
        Path compilerFile;
        try (Stream<Path> files = Files.walk(cache.resolve("configure-seeds"))) {
            compilerFile = files.filter(f -> f.getFileName().toString().equals("CMakeCUDACompiler.cmake")).findFirst()
                    .orElseThrow();
        }
        // a seed that passes every check of its files, yet makes CMake take no .cu file for CUDA: the library is
        // built from host.cpp alone, without a word
        String whole = Files.readString(compilerFile);
        assertThat(whole).contains("CMAKE_CUDA_SOURCE_FILE_EXTENSIONS cu)");
        Files.writeString(compilerFile, whole.replace("CMAKE_CUDA_SOURCE_FILE_EXTENSIONS cu)",
                "CMAKE_CUDA_SOURCE_FILE_EXTENSIONS cux)"));

        // b is the same project; c builds host code only, though it enables CUDA
        Path second = Archpool.manifest(dir.resolve("second"), "{\"version\": 1, \"jobs\": ["
                + project(dir.resolve("second/b"), "k.cu", "host.cpp") + ", "
                + project(dir.resolve("second/c"), "host.cpp") + "]}");
        Archpool.Run b = new Archpool().in(second.getParent()).run("build", second.toString(), "--platform", "cuda",
                "--arch", "90", "-j1", "--order", "fifo", "--cache", cache.toString());
        assertThat(b.exitCode()).as(b.toString()).isZero();
        JsonNode r = report(second);
        assertThat(field(r, "outcome")).containsExactly("succeeded", "succeeded");
        assertThat(field(r, "configureSeeded")).containsExactly("false", "false");
        assertThat(r.path("jobs").get(0).path("warnings").toString())
                .contains("its seeded build held no GPU code although the project enables CUDA, and built again"
                        + " without the seed it does: the seed was damaged, and was replaced");
        assertThat(gpuCode(dir.resolve("second/build/b/libk.so"))).isNotEmpty();
        assertThat(r.path("jobs").get(1).path("warnings").toString())
                .contains("built again without the seed, which held none either (the seed was kept)");
        try (Stream<Path> files = Files.walk(cache.resolve("configure-seeds"))) {
            assertThat(files.filter(f -> f.getFileName().toString().equals("CMakeCUDACompiler.cmake")).toList())
                    .singleElement().satisfies(f -> assertThat(Files.readString(f))
                            .contains("CMAKE_CUDA_SOURCE_FILE_EXTENSIONS cu)"));
        }
    }
}
