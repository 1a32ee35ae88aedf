package org.archpool.orchestrator.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.archpool.orchestrator.tool.ToolOutput;
import org.archpool.orchestrator.tool.ToolRunner;
import org.archpool.protocol.CmakeJob;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a CMake build with the Ninja generator read outside its source and build folders, from records captured from
 * a real build (CMake 3.25, Ninja 1.11, nvcc 13) of a project under {@code /projects/reads/proj} whose
 * {@code include_directories} names {@code /projects/reads/outside} and that links
 * {@code /projects/reads/outside/libextra.a} by its path: {@code ninja -t deps} and {@code build.ninja}.
 */
class NinjaReadsTest {

    private static final Path SOURCE = Path.of("/projects/reads/proj");
    private static final Path OUTSIDE_HEADER = Path.of("/projects/reads/outside/outside.h");
    private static final Path LIBRARY = Path.of("/projects/reads/outside/libextra.a");

    @TempDir
    Path dir;

    private static String sample(String name) throws IOException {
        try (InputStream in = NinjaReadsTest.class.getResourceAsStream("/ninja-reads/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void theDepsLogListsEachObjectsHeadersResolvedAgainstTheBuildFolder() throws Exception {
        Path build = Path.of("/projects/reads/build");
        var files = NinjaReads.depsLog(sample("deps.txt") + "obj.o: #deps 1, deps mtime 2 (STALE)\n    gen/g.h\n",
                build);

        assertThat(files).hasSize(187).contains(SOURCE.resolve("kernels.cu"), OUTSIDE_HEADER,
                Path.of("/usr/include/stdc-predef.h"), build.resolve("gen/g.h"));
        assertThatThrownBy(() -> NinjaReads.depsLog("something else\n", build))
                .isInstanceOf(NinjaManifest.Malformed.class).hasMessageContaining("something else");
    }

    @Test
    void theManifestGivesExplicitAndImplicitInputsNotOrderOnlyOnes() throws Exception {
        NinjaManifest manifest = NinjaManifest.parse(sample("build.ninja"));

        assertThat(manifest.inputs()).contains(SOURCE.resolve("kernels.cu").toString(),
                "CMakeFiles/reads_kernels.dir/kernels.cu.o", LIBRARY.toString(),
                SOURCE.resolve("CMakeLists.txt").toString(),
                "/usr/share/cmake-3.25/Modules/CMakeCUDAInformation.cmake", "CMakeCache.txt")
                .doesNotContain("cmake_object_order_depends_target_reads_kernels", "CMakeFiles/reads_kernels.dir",
                        "CUDA_COMPILER__reads_kernels_", "RERUN_CMAKE");
        assertThat(manifest.includes()).containsExactly("CMakeFiles/rules.ninja");
        assertThat(NinjaManifest.parse(sample("rules.ninja")).inputs()).isEmpty();
    }

    @Test
    void escapesContinuationsAndTopLevelVariablesAreUndone() throws Exception {
        NinjaManifest manifest = NinjaManifest.parse("""
                root = /r/
                build a$ b.o | a.d: CC /src/x$:y.c $
                    ${root}with$ space.h $root$$.h | /imp.h || /order.h |@ /check
                  FLAGS = $in -o $out
                subninja sub/more.ninja
                """);

        assertThat(manifest.inputs()).containsExactly("/src/x:y.c", "/r/with space.h", "/r/$.h", "/imp.h");
        assertThat(manifest.includes()).containsExactly("sub/more.ninja");
        assertThatThrownBy(() -> NinjaManifest.parse("build o: CC $unknown/x.c\n"))
                .isInstanceOf(NinjaManifest.Malformed.class).hasMessageContaining("$unknown");
    }

    @Test
    void aBuildFolderGivesEveryFileOutsideTheSourceAndBuildFoldersItsRecordsName() throws Exception {
        Path build = Files.createDirectories(dir.resolve("build/CMakeFiles"));
        Files.writeString(build.resolveSibling("build.ninja"), sample("build.ninja"));
        Files.writeString(build.resolve("rules.ninja"), sample("rules.ninja"));
        List<List<String>> ran = new ArrayList<>();
        String deps = sample("deps.txt") + "gen.o: #deps 1, deps mtime 2 (VALID)\n    gen/g.h\n";
        ToolRunner ninja = (command, timeout) -> {
            ran.add(command);
            return new ToolOutput(command, ToolOutput.Status.EXITED, 0, deps, "", 1, null);
        };

        BuildReads.Found found = new NinjaReads(ninja).collect(job(build.getParent()));

        assertThat(ran).containsExactly(List.of("ninja", "-C", build.getParent().toString(), "-t", "deps"));
        assertThat(found).isInstanceOf(BuildReads.Found.Files.class);
        var paths = ((BuildReads.Found.Files) found).paths();
        assertThat(paths).contains(OUTSIDE_HEADER, LIBRARY, Path.of("/usr/include/stdc-predef.h"),
                Path.of("/usr/share/cmake-3.25/Modules/CMakeCUDAInformation.cmake"));
        assertThat(paths).noneMatch(p -> p.startsWith(SOURCE) || p.startsWith(build.getParent()));
    }

    @Test
    void whatTheBuildReadIsUnknownWithoutNinjasRecords() throws Exception {
        Path make = Files.createDirectories(dir.resolve("make"));
        Files.writeString(make.resolve("Makefile"), "all:\n");
        ToolRunner failing = (command, timeout) -> new ToolOutput(command, ToolOutput.Status.EXITED, 1, "",
                "ninja: error: loading 'build.ninja'", 1, null);
        assertThat(new NinjaReads(failing).collect(job(make))).isInstanceOfSatisfying(BuildReads.Found.Unknown.class,
                u -> assertThat(u.reason()).contains("no build.ninja"));

        Path build = Files.createDirectories(dir.resolve("build"));
        Files.writeString(build.resolve("build.ninja"), "build x.o: CC /src/x.c\n");
        ToolRunner missing = (command, timeout) -> new ToolOutput(command, ToolOutput.Status.MISSING, null, "", "", 0,
                "ninja is not on the PATH");
        assertThat(new NinjaReads(missing).collect(job(build))).isInstanceOfSatisfying(
                BuildReads.Found.Unknown.class, u -> assertThat(u.reason()).contains("ninja is not on the PATH"));
        Files.writeString(build.resolve("build.ninja"), "build x.o: CC $nowhere/x.c\n");
        assertThat(new NinjaReads(failing).collect(job(build))).isInstanceOfSatisfying(
                BuildReads.Found.Unknown.class, u -> assertThat(u.reason()).contains("could not be parsed"));
    }

    private static CmakeJob job(Path buildDir) {
        return new CmakeJob("reads", SOURCE.toString(), buildDir.toString(), null, null, null, null, null, null, null,
                null, null);
    }
}
