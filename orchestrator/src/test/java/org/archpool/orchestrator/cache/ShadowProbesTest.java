package org.archpool.orchestrator.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a new header would take the place of one a build read, and the include folders that say so. */
class ShadowProbesTest {

    @TempDir
    Path dir;

    @Test
    void includeFlagsAsCmakeWritesThemGiveTheFoldersInSearchOrder() {
        Path build = Path.of("/projects/p/build");
        assertThat(IncludeFolders.fromFlags(List.of(
                "-I/a -isystem /b -I\"/with space\" -Irel --include-path=/c",
                "-iquote /d -idirafter/e -I/a -DX=1 -O2"), build))
                .containsExactly(Path.of("/a"), Path.of("/b"), Path.of("/with space"), build.resolve("rel"),
                        Path.of("/c"), Path.of("/d"), Path.of("/e"));
    }

    @Test
    void theIncludeFlagsOfACapturedBuildNinjaAreRead() throws Exception {
        String text;
        try (var in = getClass().getResourceAsStream("/ninja-reads/build.ninja")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(IncludeFolders.fromFlags(NinjaManifest.parse(text).includeFlags(), Path.of("/projects/reads/b")))
                .containsExactly(Path.of("/projects/reads/outside"));
    }

    @Test
    void aNewFileWhereAHeaderReadWouldBeFoundFirstIsNamedAndOneThereBeforeIsNot() throws Exception {
        Path first = Files.createDirectories(dir.resolve("first/sys"));
        Path second = Files.createDirectories(dir.resolve("second/sys"));
        Path header = Files.writeString(second.resolve("k.h"), "#define K 1\n");
        Files.writeString(first.resolve("there-before.h"), ""); // a name of a header read, there already
        Path source = Files.createDirectories(dir.resolve("src"));
        ShadowProbes probes = ShadowProbes.of(List.of(source, dir.resolve("first"), dir.resolve("second")),
                List.of(header, second.resolve("there-before.h")), List.of(source));

        assertThat(probes.folders()).as("the source folder is the key's").containsExactly(
                dir.resolve("first").toString(), dir.resolve("second").toString());
        assertThat(probes.names()).contains("k.h", "sys/k.h", "second/sys/k.h");
        assertThat(probes.firstAppeared()).isEmpty();

        Files.writeString(source.resolve("k.h"), "");
        assertThat(probes.firstAppeared()).as("a folder left out").isEmpty();
        Files.writeString(first.resolve("k.h"), "#define K 2\n");
        assertThat(probes.firstAppeared()).contains("a new file " + first.resolve("k.h")
                + " may take the place of the header sys/k.h the build read");
    }

    @Test
    void theMakefileGeneratorsIncludeFlagsAreReadFromEveryTargetsFlagsMake() throws Exception {
        Path build = Files.createDirectories(dir.resolve("build"));
        Path target = Files.createDirectories(build.resolve("sub/CMakeFiles/k.dir"));
        Files.writeString(Files.createDirectories(build.resolve("CMakeFiles")).resolve("TargetDirectories.txt"),
                target + "\n" + build.resolve("CMakeFiles/edit_cache.dir") + "\n");
        Files.writeString(target.resolve("flags.make"), "# CMAKE generated file: DO NOT EDIT!\n"
                + "CUDA_DEFINES = -Dk_EXPORTS\nCUDA_INCLUDES = -I/x -isystem /y\nCUDA_FLAGS = -O3\n"
                + "CXX_INCLUDES = -I/z\n");
        assertThat(MakefileReads.includeFolders(build)).containsExactly(Path.of("/x"), Path.of("/y"), Path.of("/z"));
    }

    @Test
    void aHipJobsIncludeFoldersAreTakenWholeExceptTheSourceFolder() throws Exception {
        Path outside = Files.createDirectories(dir.resolve("outside/sub"));
        Path header = Files.writeString(outside.resolve("device-only.h"), "");
        Path source = Files.createDirectories(dir.resolve("src"));
        Files.writeString(source.resolve("in-the-key.h"), "");
        assertThat(IncludeFolders.filesUnder(List.of(source, dir.resolve("outside"), dir.resolve("missing")),
                List.of(source))).containsExactly(header);
    }
}
