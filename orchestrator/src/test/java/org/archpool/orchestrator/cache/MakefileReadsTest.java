package org.archpool.orchestrator.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.archpool.orchestrator.tool.ToolOutput;
import org.archpool.orchestrator.tool.ToolRunner;
import org.archpool.protocol.CmakeJob;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a CMake build with the Unix Makefiles generator read outside its source and build folders, from the records
 * of a real build (CMake 3.25, nvcc 13, g++ 12; one {@code cmake --build}) of a project under
 * {@code /projects/reads/proj}, with a subdirectory's static library, whose {@code include_directories} names
 * {@code /projects/reads/outside} and that links {@code /projects/reads/outside/libext.a} by its path. The records
 * are laid out again under a temporary folder, their {@code /projects/reads} rewritten to it.
 */
class MakefileReadsTest {

    private static final List<String> RECORDS = List.of("CMakeFiles/Makefile.cmake",
            "CMakeFiles/TargetDirectories.txt", "CMakeFiles/reads.dir/DependInfo.cmake",
            "CMakeFiles/reads.dir/build.make", "CMakeFiles/reads.dir/compiler_depend.make",
            "CMakeFiles/reads.dir/depend.make", "CMakeFiles/reads.dir/kernels.cu.o.d",
            "CMakeFiles/reads.dir/host.cpp.o.d", "sub/CMakeFiles/sub.dir/DependInfo.cmake",
            "sub/CMakeFiles/sub.dir/build.make", "sub/CMakeFiles/sub.dir/compiler_depend.make",
            "sub/CMakeFiles/sub.dir/depend.make", "sub/CMakeFiles/sub.dir/s.cpp.o.d");
    private static final List<String> OBJECTS = List.of("CMakeFiles/reads.dir/kernels.cu.o",
            "CMakeFiles/reads.dir/host.cpp.o", "sub/CMakeFiles/sub.dir/s.cpp.o");

    @TempDir
    Path dir;
    Path root;
    Path build;
    Path source;
    Path outside;

    @BeforeEach
    void layOutTheBuild() throws Exception {
        root = dir.resolve("projects/reads");
        build = root.resolve("build");
        source = root.resolve("proj");
        Files.createDirectories(source.resolve("sub"));
        outside = Files.createDirectories(root.resolve("outside"));
        Files.writeString(outside.resolve("outside.h"), "#define OUTSIDE 1\n");
        Files.writeString(outside.resolve("libext.a"), "!<arch>\n");
        for (String record : RECORDS) {
            Path file = build.resolve(record);
            Files.createDirectories(file.getParent());
            Files.writeString(file, DepfileTest.sample(record).replace("/projects/reads", root.toString()));
        }
        for (String object : OBJECTS) {
            Files.writeString(build.resolve(object), "");
        }
        Files.writeString(build.resolve("Makefile"), "all:\n");
    }

    @Test
    void theDepfilesTheConfiguresInputsAndTheLibrariesLinkedByPathOutsideTheFolders() throws Exception {
        BuildReads.Found found = BuildReads.collect(job(), failingNinja());

        assertThat(found).isInstanceOf(BuildReads.Found.Files.class);
        var paths = ((BuildReads.Found.Files) found).paths();
        assertThat(paths).contains(outside.resolve("outside.h"), outside.resolve("libext.a"),
                Path.of("/usr/include/stdc-predef.h"), Path.of("/usr/include/c++/12/vector"),
                Path.of("/usr/local/cuda-13.0/targets/x86_64-linux/include/crt/device_functions.h"),
                Path.of("/usr/share/cmake-3.25/Modules/CMakeCUDAInformation.cmake"));
        assertThat(paths).noneMatch(p -> p.startsWith(source) || p.startsWith(build))
                .allMatch(Path::isAbsolute).allMatch(p -> p.equals(p.normalize()));
        assertThat(MakefileReads.named(build)).contains(source.resolve("CMakeLists.txt"),
                source.resolve("sub/CMakeLists.txt"), source.resolve("sub/s.cpp"), source.resolve("local.h"),
                build.resolve("CMakeCache.txt"));
    }

    @Test
    void aBuiltObjectThatNoDepfileListsLeavesItUnknownUntilMakeConsolidatedIt() throws Exception {
        Files.delete(build.resolve("CMakeFiles/reads.dir/host.cpp.o.d"));

        assertThat(new MakefileReads().collect(job())).isInstanceOfSatisfying(BuildReads.Found.Unknown.class,
                u -> assertThat(u.reason()).contains("no depfile lists the headers of")
                        .contains(build.resolve("CMakeFiles/reads.dir/host.cpp.o").toString()));

        Files.writeString(build.resolve("CMakeFiles/reads.dir/compiler_depend.make"),
                DepfileTest.sample("consolidated/compiler_depend.make").replace("/projects/reads", root.toString()));
        Files.delete(build.resolve("CMakeFiles/reads.dir/kernels.cu.o.d"));
        assertThat(new MakefileReads().collect(job())).isInstanceOfSatisfying(BuildReads.Found.Files.class,
                f -> assertThat(f.paths()).contains(outside.resolve("outside.h"),
                        Path.of("/usr/include/c++/12/vector")));
    }

    @Test
    void recordsThatAreMissingOrMalformedLeaveItUnknown() throws Exception {
        Files.writeString(build.resolve("sub/CMakeFiles/sub.dir/s.cpp.o.d"), "not a rule\n");
        assertThat(new MakefileReads().collect(job())).isInstanceOfSatisfying(BuildReads.Found.Unknown.class,
                u -> assertThat(u.reason()).contains("s.cpp.o.d").contains("no rule"));

        Files.delete(build.resolve("CMakeFiles/Makefile.cmake"));
        assertThat(new MakefileReads().collect(job())).isInstanceOfSatisfying(BuildReads.Found.Unknown.class,
                u -> assertThat(u.reason()).contains("could not be read").contains("Makefile.cmake"));
    }

    @Test
    void theBuildFolderChoosesTheCollector() throws Exception {
        assertThat(BuildReads.of(job(), failingNinja())).isInstanceOf(MakefileReads.class);
        Files.writeString(build.resolve("build.ninja"), "");
        assertThat(BuildReads.of(job(), failingNinja())).isInstanceOf(NinjaReads.class);

        Files.delete(build.resolve("build.ninja"));
        Files.delete(build.resolve("Makefile"));
        assertThat(BuildReads.of(job(), failingNinja())).isNull();
        assertThat(BuildReads.collect(job(), failingNinja())).isInstanceOfSatisfying(BuildReads.Found.Unknown.class,
                u -> assertThat(u.reason()).contains("has neither"));
    }

    private static ToolRunner failingNinja() {
        return (command, timeout) -> new ToolOutput(command, ToolOutput.Status.EXITED, 1, "", "no ninja here", 1,
                null);
    }

    private CmakeJob job() {
        return new CmakeJob("reads", source.toString(), build.toString(), null, null, null, null, null,
                null, null,
                null, null);
    }
}
