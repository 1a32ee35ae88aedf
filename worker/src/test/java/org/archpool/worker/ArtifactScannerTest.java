package org.archpool.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.archpool.protocol.Artifact;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.JobSpec;
import org.archpool.worker.inspect.GpuCodeInspector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which files a job's artifacts are; reading their GPU code is tested with the readers. */
class ArtifactScannerTest {

    private final ArtifactScanner scanner = new ArtifactScanner(new GpuCodeInspector());

    /** The smallest valid ELF file: a 64-bit little-endian header and no sections. */
    private static byte[] elf() {
        ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {0x7f, 'E', 'L', 'F', 2, 1, 1});
        b.putShort(16, (short) 3).putShort(18, (short) 62).putInt(20, 1).putShort(52, (short) 64);
        return b.array();
    }

    private static Path write(Path root, String relative, byte[] content) throws Exception {
        Path file = root.resolve(relative);
        Files.createDirectories(file.getParent());
        return Files.write(file, content);
    }

    private static List<String> names(Path root, List<Artifact> artifacts) {
        return artifacts.stream().map(a -> root.relativize(Path.of(a.path())).toString()).toList();
    }

    private static JobSpec cmake(Path build, List<String> globs) {
        return new CmakeJob("k", "/src", build.toString(), null, null, null, null, null, null, null, null, globs);
    }

    @Test
    void aCmakeJobReportsEveryFileThatCanHoldGpuCodeOutsideCMakeFiles(@TempDir Path build) throws Exception {
        write(build, "libk.so", elf());
        write(build, "bin/app", elf());
        write(build, "k.hsaco", elf());
        write(build, "libk.a", "!<arch>\n".getBytes());
        write(build, "k.bundle", "__CLANG_OFFLOAD_BUNDLE__\0\0\0\0\0\0\0\0".getBytes());
        write(build, "CMakeFiles/k.dir/k.cu.o", elf());
        write(build, "CMakeFiles/3.25.1/CompilerIdCUDA/a.out", elf());
        write(build, ".hidden/x.so", elf());
        write(build, "build.ninja", "rule cc\n".getBytes());
        write(build, "CMakeCache.txt", "X:BOOL=ON\n".getBytes());
        List<Artifact> found = scanner.scan(cmake(build, List.of()), Instant.now());
        assertThat(names(build, found)).containsExactly("bin/app", "k.bundle", "k.hsaco", "libk.a", "libk.so");
        Artifact lib = found.get(4);
        assertThat(lib.archs()).isEmpty();
        assertThat(lib.problem()).isNull();
    }

    @Test
    void globsChooseTheFilesWhateverTheyHold(@TempDir Path build) throws Exception {
        write(build, "libk.so", elf());
        write(build, "notes.txt", "x".getBytes());
        write(build, "CMakeFiles/k.dir/k.o", elf());
        List<Artifact> found = scanner.scan(cmake(build, List.of("*.txt", "CMakeFiles/**/*.o")), Instant.now());
        assertThat(names(build, found)).containsExactly("CMakeFiles/k.dir/k.o", "notes.txt");
    }

    @Test
    void aCommandJobReportsWhatItWroteSinceItStarted(@TempDir Path cwd) throws Exception {
        Instant started = Instant.now();
        Path old = write(cwd, "old.so", elf());
        Files.setLastModifiedTime(old, FileTime.from(started.minusSeconds(60)));
        write(cwd, "k", elf());
        write(cwd, "out/k.o", elf());
        write(cwd, "k.hip", "__global__ void k() {}".getBytes());
        JobSpec job = new CommandJob("c", List.of("hipcc"), cwd.toString(), Map.of(), null, null);
        assertThat(names(cwd, scanner.scan(job, started))).containsExactly("k", "out/k.o");
    }

    @Test
    void aCommandJobThatNamesItsOutputsReportsOnlyThose(@TempDir Path cwd) throws Exception {
        Instant started = Instant.now();
        write(cwd, "k", elf());
        write(cwd, "other_jobs_output.so", elf());
        write(cwd, "out/k.o", elf());
        JobSpec job = new CommandJob("c", List.of("hipcc", "--offload-arch=gfx90a", "-c", "k.hip", "-o", "out/k.o",
                "--output-file", "k", "-o", "missing.o"), cwd.toString(), Map.of(), null, null);
        assertThat(names(cwd, scanner.scan(job, started))).containsExactly("out/k.o", "k");
        JobSpec equals = new CommandJob("c", List.of("nvcc", "--output=k"), cwd.toString(), Map.of(), null, null);
        assertThat(names(cwd, scanner.scan(equals, started))).containsExactly("k");
        JobSpec globs = new CommandJob("c", List.of("hipcc", "-o", "k"), cwd.toString(), Map.of(), null,
                List.of("*.so"));
        assertThat(names(cwd, scanner.scan(globs, started))).as("globs win").containsExactly("other_jobs_output.so");
    }

    @Test
    void anUnreadableFileIsReportedWithItsProblem(@TempDir Path build) throws Exception {
        byte[] truncated = new byte[20];
        System.arraycopy(elf(), 0, truncated, 0, 20);
        write(build, "libbroken.so", truncated);
        Artifact a = scanner.scan(cmake(build, List.of()), Instant.now()).get(0);
        assertThat(a.archs()).isEmpty();
        assertThat(a.problem()).isNotBlank();
    }

    @Test
    void aMissingOutputFolderMeansNoArtifacts(@TempDir Path dir) throws Exception {
        assertThat(scanner.scan(cmake(dir.resolve("nope"), List.of()), Instant.now())).isEmpty();
    }
}
