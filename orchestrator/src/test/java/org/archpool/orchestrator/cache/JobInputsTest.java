package org.archpool.orchestrator.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.JobSpec;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JobInputsTest {

    @TempDir
    Path dir;

    private final JobInputs inputs = new JobInputs(new FileHashes(null, Clock.systemUTC()));
    private Path src;

    @BeforeEach
    void project() throws Exception {
        src = Files.createDirectories(dir.resolve("proj"));
        Files.writeString(src.resolve("CMakeLists.txt"), "project(k LANGUAGES CUDA)\n");
        Files.createDirectories(src.resolve("include"));
        Files.writeString(src.resolve("include/k.h"), "#define N 1\n");
        Files.writeString(src.resolve("k.cu"), "__global__ void k() {}\n");
    }

    private CmakeJob cmake(Path buildDir) {
        return new CmakeJob("k", src.toString(), buildDir.toString(), null, null, null, null, null, null, null, null,
                null);
    }

    private String digest(JobSpec job) {
        JobInputs.Digest d = inputs.digest(job);
        assertThat(d).as("%s", d).isInstanceOf(JobInputs.Digest.Of.class);
        return ((JobInputs.Digest.Of) d).sha256();
    }

    @Test
    void aCmakeJobReadsEveryFileOfItsSourceTreeButNotBuildTrees() throws Exception {
        CmakeJob job = cmake(src.resolve("build"));
        String before = digest(job);
        assertThat(((JobInputs.Digest.Of) inputs.digest(job)).files()).isEqualTo(3);

        // its own build folder, another build tree of the same project, .git and .archpool are not sources
        Files.createDirectories(src.resolve("build"));
        Files.writeString(src.resolve("build/lib.a"), "x");
        Files.createDirectories(src.resolve("other-build"));
        Files.writeString(src.resolve("other-build/CMakeCache.txt"), "# This is the CMakeCache file.\n"
                + "CMAKE_HOME_DIRECTORY:INTERNAL=" + src + "\n");
        Files.writeString(src.resolve("other-build/made.o"), "x");
        Files.createDirectories(src.resolve(".git"));
        Files.writeString(src.resolve(".git/index"), "x");
        Files.createDirectories(src.resolve(".archpool/logs"));
        Files.writeString(src.resolve(".archpool/logs/k.log"), "x");
        assertThat(digest(job)).isEqualTo(before);

        Files.writeString(src.resolve("include/k.h"), "#define N 2\n");
        assertThat(digest(job)).isNotEqualTo(before);
    }

    @Test
    void aRenamedFileChangesTheDigest() throws Exception {
        CmakeJob job = cmake(dir.resolve("build"));
        String before = digest(job);
        Files.move(src.resolve("k.cu"), src.resolve("k2.cu"));
        assertThat(digest(job)).isNotEqualTo(before);
    }

    @Test
    void aLinkIsHashedAsWhereItPoints() throws Exception {
        CmakeJob job = cmake(dir.resolve("build"));
        Files.writeString(dir.resolve("a.h"), "a");
        Files.writeString(dir.resolve("b.h"), "a");
        Files.createSymbolicLink(src.resolve("dep.h"), dir.resolve("a.h"));
        String toA = digest(job);
        Files.delete(src.resolve("dep.h"));
        Files.createSymbolicLink(src.resolve("dep.h"), dir.resolve("b.h"));
        assertThat(digest(job)).isNotEqualTo(toA);
    }

    /** Editing {@code file} to {@code text} changes {@code job}'s digest. */
    private void assertEditSeen(JobSpec job, Path file, String text, String what) throws Exception {
        String before = digest(job);
        Files.writeString(file, text);
        assertThat(digest(job)).as(what).isNotEqualTo(before);
    }

    @Test
    void aFolderWithACMakeCacheOfAnotherProjectOrNoneIsASource() throws Exception {
        CmakeJob job = cmake(dir.resolve("build"));
        Path sub = Files.createDirectories(src.resolve("sub"));
        Files.writeString(sub.resolve("CMakeCache.txt"), "");
        assertEditSeen(job, sub.resolve("x.h"), "#define X 2\n", "an empty CMakeCache.txt makes no build tree");
        Files.writeString(sub.resolve("CMakeCache.txt"), "CMAKE_HOME_DIRECTORY:INTERNAL=" + dir.resolve("other") + "\n");
        assertEditSeen(job, sub.resolve("x.h"), "#define X 3\n", "nor does another project's");
    }

    @Test
    void aLinkedFileIsHashedByWhatItLeadsTo() throws Exception {
        Path outside = Files.createDirectories(dir.resolve("ext"));
        Files.writeString(outside.resolve("w.h"), "#define W 1\n");
        Files.createSymbolicLink(src.resolve("w.h"), outside.resolve("w.h"));
        assertEditSeen(cmake(dir.resolve("build")), outside.resolve("w.h"), "#define W 2\n", "a cmake job's file");
        CommandJob command = new CommandJob("c", List.of("nvcc", "k.cu"), src.toString(), Map.of(), null, List.of(),
                List.of("k.cu", "w.h"));
        assertEditSeen(command, outside.resolve("w.h"), "#define W 3\n", "a command job's input");
    }

    @Test
    void aLinkedFolderOutsideTheTreeIsReadOnceAndALoopEnds() throws Exception {
        CmakeJob job = cmake(dir.resolve("build"));
        Path outside = Files.createDirectories(dir.resolve("third_party/inc"));
        Files.writeString(outside.resolve("t.h"), "#define T 1\n");
        Files.createSymbolicLink(src.resolve("third_party"), dir.resolve("third_party"));
        Files.createSymbolicLink(src.resolve("again"), dir.resolve("third_party"));
        Files.createSymbolicLink(outside.resolve("loop"), dir.resolve("third_party"));
        Files.createSymbolicLink(src.resolve("inner"), src.resolve("include"));
        String before = digest(job);
        assertThat(((JobInputs.Digest.Of) inputs.digest(job)).files())
                .as("3 files and 3 links in the tree; through the linked folder, t.h and the loop back").isEqualTo(8);
        Files.writeString(outside.resolve("t.h"), "#define T 2\n");
        assertThat(digest(job)).isNotEqualTo(before);
    }

    @Test
    void theVariablesTheCMakeFilesReadAreGathered() throws Exception {
        Files.writeString(src.resolve("CMakeLists.txt"), "project(k LANGUAGES CUDA)\n"
                + "target_compile_definitions(k PRIVATE \"E=$ENV{KV}0\")\ninclude(cmake/opts.cmake)\n");
        Files.createDirectories(src.resolve("cmake"));
        Files.writeString(src.resolve("cmake/opts.cmake"), "if(DEFINED ENV{CUDA_HOME})\nendif()\n");
        Files.writeString(src.resolve("k.cu"), "// $ENV{NOT_CMAKE} in a source is not CMake's\n");
        JobInputs.Digest d = inputs.digest(cmake(dir.resolve("build")));
        assertThat(((JobInputs.Digest.Of) d).environmentRead()).containsExactly("CUDA_HOME", "KV");
    }

    @Test
    void aCommandJobWithoutInputsHasNoDigest() {
        CommandJob job = new CommandJob("c", List.of("nvcc", "k.cu"), src.toString(), Map.of(), null, List.of());
        JobInputs.Digest d = inputs.digest(job);
        assertThat(d).isInstanceOf(JobInputs.Digest.Unavailable.class);
        assertThat(((JobInputs.Digest.Unavailable) d).reason()).contains("declares no \"inputs\"");
    }

    @Test
    void aCommandJobReadsWhatItsGlobsMatch() throws Exception {
        CommandJob job = new CommandJob("c", List.of("nvcc", "k.cu"), src.toString(), Map.of(), null, List.of(),
                List.of("*.cu", "include/**.h"));
        String before = digest(job);
        assertThat(((JobInputs.Digest.Of) inputs.digest(job)).files()).isEqualTo(2);
        Files.writeString(src.resolve("CMakeLists.txt"), "not an input of this job");
        assertThat(digest(job)).isEqualTo(before);
        Files.writeString(src.resolve("include/k.h"), "#define N 3\n");
        assertThat(digest(job)).isNotEqualTo(before);
    }

    @Test
    void anAbsoluteGlobIsReadWhereItPoints() throws Exception {
        Path shared = Files.createDirectories(dir.resolve("shared/include"));
        Files.writeString(shared.resolve("common.h"), "1");
        CommandJob job = new CommandJob("c", List.of("nvcc", "k.cu"), src.toString(), Map.of(), null, List.of(),
                List.of("k.cu", shared + "/*.h"));
        String before = digest(job);
        Files.writeString(shared.resolve("common.h"), "2");
        assertThat(digest(job)).isNotEqualTo(before);
    }

    @Test
    void aGlobThatMatchesNothingMakesTheJobUncacheable() {
        CommandJob job = new CommandJob("c", List.of("nvcc", "k.cu"), src.toString(), Map.of(), null, List.of(),
                List.of("k.cu", "src/*.cuh"));
        JobInputs.Digest d = inputs.digest(job);
        assertThat(d).isInstanceOf(JobInputs.Digest.Unavailable.class);
        assertThat(((JobInputs.Digest.Unavailable) d).reason()).contains("\"src/*.cuh\" matches no file");
    }

    @Test
    void aGlobReadsOnlyAsDeepAsItReaches() throws Exception {
        // a folder below that cannot be listed would fail a walk that went into it
        Path deep = Files.createDirectories(src.resolve("deep/er"));
        Files.writeString(deep.resolve("k.cu"), "deeper");
        CommandJob job = new CommandJob("c", List.of("nvcc", "k.cu"), src.toString(), Map.of(), null, List.of(),
                List.of("*.cu"));
        String before = digest(job);
        Files.writeString(deep.resolve("k.cu"), "deeper, edited");
        assertThat(digest(job)).isEqualTo(before);
        CommandJob everywhere = new CommandJob("c", job.argv(), src.toString(), Map.of(), null, List.of(),
                List.of("**.cu"));
        assertThat(((JobInputs.Digest.Of) inputs.digest(everywhere)).files()).isEqualTo(2);
    }

    @Test
    void aPlainPathIsReadWithoutSearchingAndMustExist() throws Exception {
        CommandJob job = new CommandJob("c", List.of("nvcc", "k.cu"), src.toString(), Map.of(), null, List.of(),
                List.of("k.cu", "include/k.h"));
        String before = digest(job);
        Files.writeString(src.resolve("include/k.h"), "#define N 4\n");
        assertThat(digest(job)).isNotEqualTo(before);
        CommandJob missing = new CommandJob("c", job.argv(), src.toString(), Map.of(), null, List.of(),
                List.of("k.cu", "kernel.cu"));
        assertThat(((JobInputs.Digest.Unavailable) inputs.digest(missing)).reason())
                .contains("\"kernel.cu\" does not exist");
        CommandJob folder = new CommandJob("c", job.argv(), src.toString(), Map.of(), null, List.of(),
                List.of("include"));
        assertThat(((JobInputs.Digest.Unavailable) inputs.digest(folder)).reason()).contains("is a folder");
    }

    @Test
    void noInputsIsADigestToo() {
        CommandJob job = new CommandJob("c", List.of("true"), src.toString(), Map.of(), null, List.of(), List.of());
        assertThat(((JobInputs.Digest.Of) inputs.digest(job)).files()).isZero();
    }
}
