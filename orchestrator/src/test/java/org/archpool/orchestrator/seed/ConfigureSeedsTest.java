package org.archpool.orchestrator.seed;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.archpool.orchestrator.toolchain.ConcreteJob;
import org.archpool.orchestrator.toolchain.JobPlanner;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Step;
import org.archpool.protocol.Target;
import org.archpool.testing.RequiredTool;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Seeds taken from and planted into real CMake build trees (C and C++ projects: seconds, not minutes). */
@Tag("process")
class ConfigureSeedsTest {

    private static final Target SM90 = new Target(Platform.CUDA, List.of("90"));

    @TempDir
    Path dir;

    @BeforeAll
    static void tools() {
        RequiredTool.require("cmake", "ninja", "cc", "c++");
    }

    private Path project(String name, String option) throws IOException {
        Path src = Files.createDirectories(dir.resolve(name));
        Files.writeString(src.resolve("CMakeLists.txt"), "cmake_minimum_required(VERSION 3.18)\n"
                + "project(" + name + " LANGUAGES C CXX)\n"
                + "option(FOO \"a project option\" " + option + ")\n"
                + "set(BAR \"" + name + "\" CACHE STRING \"a project string\")\n"
                + "add_library(" + name + " STATIC a.c b.cpp)\n");
        Files.writeString(src.resolve("a.c"), "int a(void) { return 1; }\n");
        Files.writeString(src.resolve("b.cpp"), "int b() { return 2; }\n");
        return src;
    }

    private ConcreteJob job(Path src) {
        CmakeJob job = new CmakeJob(src.getFileName().toString(), src.toString(), src.resolve("build").toString(),
                "Ninja", "Release", Map.of("CMAKE_EXPORT_COMPILE_COMMANDS", "ON"), List.of(), List.of(), List.of(),
                Map.of(), null, List.of());
        return JobPlanner.standard().plan(job, SM90, 1);
    }

    /** Runs the job's configure as a worker would; its output. */
    private static String configure(ConcreteJob job) throws Exception {
        Step step = job.steps().get(0);
        Process p = new ProcessBuilder(step.argv()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }

    private static List<String> cache(Path buildDir) throws IOException {
        List<String> entries = new ArrayList<>();
        for (String line : Files.readAllLines(buildDir.resolve("CMakeCache.txt"))) {
            if (!line.isBlank() && !line.startsWith("#") && !line.startsWith("//")) {
                entries.add(line);
            }
        }
        return entries;
    }

    @Test
    void aSeededTreeSkipsDetectionAndGetsItsOwnProjectValuesAndTheSameCompileCommands() throws Exception {
        ConcreteJob first = job(project("one", "ON"));
        ConcreteJob second = job(project("two", "OFF"));
        ConcreteJob unseeded = job(project("three", "OFF"));
        Path firstBuild = Path.of(((CmakeJob) first.job()).buildDir());
        Path secondBuild = Path.of(((CmakeJob) second.job()).buildDir());
        try (ConfigureSeeds seeds = ConfigureSeeds.temporary(Map.of("PATH", System.getenv("PATH")))) {
            SeedKey key = seeds.keyOf(first).orElseThrow();
            assertThat(seeds.keyOf(second)).contains(key);
            assertThat(seeds.plant(key, firstBuild)).as("no seed yet").isFalse();
            assertThat(configure(first)).contains("compiler identification");
            seeds.harvest(key, firstBuild);

            Path seed = seeds.folder().resolve(key.sha256());
            String carried = Files.readString(seed.resolve(ConfigureSeeds.CACHE_FILE));
            assertThat(carried).contains("CMAKE_CXX_COMPILER:FILEPATH=").contains("CMAKE_PLATFORM_INFO_INITIALIZED")
                    .doesNotContain("FOO").doesNotContain("BAR").doesNotContain("one")
                    .doesNotContain("CMAKE_INSTALL_PREFIX").doesNotContain("CMAKE_CXX_FLAGS")
                    .doesNotContain("CMAKE_BUILD_TYPE").doesNotContain("CMAKE_CUDA_ARCHITECTURES")
                    .doesNotContain("CMAKE_CACHEFILE_DIR").doesNotContain("CMAKE_HOME_DIRECTORY");

            assertThat(seeds.plant(key, secondBuild)).isTrue();
            String out = configure(second);
            assertThat(out).doesNotContain("compiler identification").doesNotContain("Detecting");
            assertThat(cache(secondBuild)).contains("FOO:BOOL=OFF", "BAR:STRING=two")
                    .doesNotContain("FOO:BOOL=ON", "BAR:STRING=one");

            // the same tree configured without a seed: the same cache and the same compile commands
            configure(unseeded);
            Path plainBuild = Path.of(((CmakeJob) unseeded.job()).buildDir());
            assertThat(normalized(cache(secondBuild), "two")).containsExactlyInAnyOrderElementsOf(
                    normalized(cache(plainBuild), "three"));
            assertThat(Files.readString(secondBuild.resolve("compile_commands.json")).replace("two", "X"))
                    .isEqualTo(Files.readString(plainBuild.resolve("compile_commands.json")).replace("three", "X"));
        }
    }

    @Test
    void aSeedWithAnEmptyOrIdlessCompilerFileIsDroppedAndTheTreeConfiguresFromScratch() throws Exception {
        for (String damage : List.of("", "set(CMAKE_CXX_COMPILER \"/usr/bin/c++\")\n")) {
            ConcreteJob first = job(project("first" + damage.length(), "ON"));
            ConcreteJob second = job(project("second" + damage.length(), "ON"));
            Path secondBuild = Path.of(((CmakeJob) second.job()).buildDir());
            try (ConfigureSeeds seeds = ConfigureSeeds.temporary(Map.of("PATH", System.getenv("PATH")))) {
                SeedKey key = seeds.keyOf(first).orElseThrow();
                configure(first);
                seeds.harvest(key, Path.of(((CmakeJob) first.job()).buildDir()));
                Path seed = seeds.folder().resolve(key.sha256());
                try (var versions = Files.list(seed)) {
                    Path version = versions.filter(Files::isDirectory).findFirst().orElseThrow();
                    Files.writeString(version.resolve("CMakeCXXCompiler.cmake"), damage); // as a crash could leave it
                }

                assertThat(seeds.plant(key, secondBuild)).as("damage %s", damage.length()).isFalse();
                assertThat(seed).as("the damaged seed is removed").doesNotExist();
                assertThat(secondBuild.resolve(ConfigureSeeds.CACHE_FILE)).doesNotExist();
                assertThat(configure(second)).contains("The CXX compiler identification is");
            }
        }
    }

    @Test
    void aProjectThatPicksItsOwnCompilerBeforeProjectIsNeverSeeded() throws Exception {
        RequiredTool.require("clang++-19");
        ConcreteJob plain = job(project("plain", "ON"));
        Path own = project("own", "ON");
        Files.writeString(own.resolve("CMakeLists.txt"), Files.readString(own.resolve("CMakeLists.txt"))
                .replace("project(own", "set(CMAKE_CXX_COMPILER clang++-19)\nproject(own"));
        ConcreteJob chooser = job(own);
        Path ownBuild = Path.of(((CmakeJob) chooser.job()).buildDir());
        try (ConfigureSeeds seeds = ConfigureSeeds.temporary(Map.of("PATH", System.getenv("PATH")))) {
            SeedKey key = seeds.keyOf(plain).orElseThrow();
            configure(plain);
            seeds.harvest(key, Path.of(((CmakeJob) plain.job()).buildDir()));

            assertThat(seeds.keyOf(chooser)).as("no key, so neither planted nor harvested").isEmpty();

            // what the seed of the same command line would have done: the seed's compiler, not the project's
            assertThat(seeds.plant(key, ownBuild)).isTrue();
            configure(chooser);
            assertThat(Files.readString(ownBuild.resolve("compile_commands.json"))).doesNotContain("clang++-19");
            ConfigureSeeds.unplant(ownBuild);
            configure(chooser);
            assertThat(Files.readString(ownBuild.resolve("compile_commands.json"))).contains("clang++-19");
        }
    }

    private static List<String> normalized(List<String> entries, String name) {
        return entries.stream().map(e -> e.replace(name, "X")).toList();
    }

    @Test
    void aSeedWhoseToolChangedIsDroppedAndATreeWithACacheIsNeverSeeded() throws Exception {
        ConcreteJob first = job(project("one", "ON"));
        ConcreteJob second = job(project("two", "OFF"));
        Path firstBuild = Path.of(((CmakeJob) first.job()).buildDir());
        Path secondBuild = Path.of(((CmakeJob) second.job()).buildDir());
        try (ConfigureSeeds seeds = ConfigureSeeds.temporary(Map.of("PATH", System.getenv("PATH")))) {
            SeedKey key = seeds.keyOf(first).orElseThrow();
            configure(first);
            seeds.harvest(key, firstBuild);
            assertThat(seeds.plant(key, firstBuild)).as("it has its own CMakeCache.txt").isFalse();

            Path tools = seeds.folder().resolve(key.sha256()).resolve(ConfigureSeeds.TOOLS_FILE);
            List<String> lines = Files.readAllLines(tools);
            String compiler = firstCompiler(firstBuild);
            assertThat(lines).anyMatch(l -> l.endsWith(" " + compiler));
            List<String> changed = new ArrayList<>(lines);
            changed.set(0, "1 " + lines.get(0).substring(lines.get(0).indexOf(' ') + 1));
            Files.write(tools, changed);
            assertThat(seeds.plant(key, secondBuild)).isFalse();
            assertThat(seeds.folder().resolve(key.sha256())).doesNotExist();
            assertThat(secondBuild.resolve("CMakeCache.txt")).doesNotExist();
        }
    }

    private static String firstCompiler(Path buildDir) throws IOException {
        return cache(buildDir).stream().filter(l -> l.startsWith("CMAKE_C_COMPILER:FILEPATH=")).findFirst()
                .orElseThrow().substring("CMAKE_C_COMPILER:FILEPATH=".length());
    }

    @Test
    void unplantLeavesAFreshTreeAndATemporaryFolderGoesAtClose() throws Exception {
        ConcreteJob first = job(project("one", "ON"));
        Path firstBuild = Path.of(((CmakeJob) first.job()).buildDir());
        Path folder;
        try (ConfigureSeeds seeds = ConfigureSeeds.temporary(Map.of("PATH", System.getenv("PATH")))) {
            folder = seeds.folder();
            configure(first);
            seeds.harvest(seeds.keyOf(first).orElseThrow(), firstBuild);
            ConfigureSeeds.unplant(firstBuild);
            assertThat(firstBuild.resolve("CMakeCache.txt")).doesNotExist();
            assertThat(firstBuild.resolve("CMakeFiles")).doesNotExist();
            assertThat(firstBuild.resolve("build.ninja")).exists();
        }
        assertThat(folder).doesNotExist();
    }

    @Test
    void aTreeWithoutPlatformInformationGivesNoSeed() throws Exception {
        ConcreteJob first = job(project("one", "ON"));
        Path firstBuild = Files.createDirectories(Path.of(((CmakeJob) first.job()).buildDir()));
        Files.writeString(firstBuild.resolve("CMakeCache.txt"), "CMAKE_C_COMPILER:FILEPATH=/usr/bin/cc\n");
        try (ConfigureSeeds seeds = ConfigureSeeds.temporary(Map.of("PATH", System.getenv("PATH")))) {
            SeedKey key = seeds.keyOf(first).orElseThrow();
            seeds.harvest(key, firstBuild);
            assertThat(seeds.folder().resolve(key.sha256())).doesNotExist();
            try (var list = Files.list(seeds.folder())) {
                assertThat(list).as("no temporary folder left").isEmpty();
            }
        }
    }
}
