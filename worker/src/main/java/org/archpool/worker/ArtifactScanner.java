package org.archpool.worker;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.archpool.protocol.Artifact;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Target;

/**
 * Finds what a successful job produced and reads which GPU architectures each file holds. A job's
 * {@code artifacts} globs are matched against paths relative to its output folder (the build folder of a
 * cmake job, the cwd of a command job); without globs, a cmake job's shared libraries and ELF executables
 * outside {@code CMakeFiles/} are taken, and a command job reports none.
 */
public final class ArtifactScanner {

    private static final byte[] ELF_MAGIC = {0x7f, 'E', 'L', 'F'};

    private final GpuCodeReader reader;

    public ArtifactScanner(GpuCodeReader reader) {
        this.reader = reader;
    }

    public List<Artifact> scan(JobSpec job, Target target) {
        Path root = Path.of(job instanceof CmakeJob c ? c.buildDir() : ((org.archpool.protocol.CommandJob) job).cwd());
        if (!Files.isDirectory(root) || (job.artifacts().isEmpty() && !(job instanceof CmakeJob))) {
            return List.of();
        }
        List<PathMatcher> globs = job.artifacts().stream()
                .map(g -> FileSystems.getDefault().getPathMatcher("glob:" + g))
                .toList();
        List<Artifact> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(Files::isRegularFile)
                    .filter(f -> globs.isEmpty() ? isDefaultArtifact(root, f) : matchesAny(globs, root.relativize(f)))
                    .sorted()
                    .forEach(f -> found.add(read(f, target)));
        } catch (IOException | UncheckedIOException e) {
            found.add(new Artifact(root.toString(), List.of(), "cannot list the job's output folder: " + e.getMessage()));
        }
        return found;
    }

    private Artifact read(Path file, Target target) {
        try {
            return new Artifact(file.toString(), reader.archs(file, target.platform()));
        } catch (IOException e) {
            return new Artifact(file.toString(), List.of(), e.getMessage());
        }
    }

    private static boolean matchesAny(List<PathMatcher> globs, Path relative) {
        return globs.stream().anyMatch(g -> g.matches(relative));
    }

    private static boolean isDefaultArtifact(Path root, Path file) {
        Path relative = root.relativize(file);
        if (relative.getNameCount() > 0 && relative.getName(0).toString().equals("CMakeFiles")) {
            return false;
        }
        String name = file.getFileName().toString();
        boolean sharedLibrary = name.endsWith(".so") || name.contains(".so.");
        return (sharedLibrary || Files.isExecutable(file)) && isElf(file);
    }

    private static boolean isElf(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return Arrays.equals(in.readNBytes(4), ELF_MAGIC);
        } catch (IOException e) {
            return false;
        }
    }
}
