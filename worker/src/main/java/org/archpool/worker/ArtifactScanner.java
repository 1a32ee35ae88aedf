package org.archpool.worker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.archpool.protocol.Artifact;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.JobSpec;
import org.archpool.worker.inspect.GpuCode;
import org.archpool.worker.inspect.GpuCodeInspector;

/**
 * Finds what a successful job produced and reads the GPU code in each file.
 *
 * <p>A job's {@code artifacts} globs are matched against paths relative to its output folder (the build folder of
 * a cmake job, the cwd of a command job), and every regular file they match is reported. Without globs, the files
 * that can hold GPU code (ELF objects, libraries, executables and code objects, offload bundles, fat binaries,
 * static libraries; see {@link GpuCodeInspector#container}) are taken: for a cmake job, all of them outside
 * {@code CMakeFiles/} (where CMake keeps its compiler checks and object files); for a command job, those written
 * since the job started. Hidden folders ({@code .git}) are not searched.
 */
public final class ArtifactScanner {

    private static final String CMAKE_FILES = "CMakeFiles";

    private final GpuCodeInspector inspector;

    public ArtifactScanner(GpuCodeInspector inspector) {
        this.inspector = inspector;
    }

    /**
     * @param job     the job that succeeded
     * @param started when it started; a command job's default artifacts are the files modified since
     * @return the artifacts, sorted by path
     */
    public List<Artifact> scan(JobSpec job, Instant started) {
        Path root = Path.of(job instanceof CmakeJob c ? c.buildDir() : ((CommandJob) job).cwd());
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        List<PathMatcher> globs = job.artifacts().stream()
                .map(g -> FileSystems.getDefault().getPathMatcher("glob:" + g))
                .toList();
        // file systems with whole-second times: a file written in the job's first second must count
        Instant since = started.truncatedTo(ChronoUnit.SECONDS);
        List<Path> files = new ArrayList<>();
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    if (dir.equals(root)) {
                        return FileVisitResult.CONTINUE;
                    }
                    String name = dir.getFileName().toString();
                    boolean skip = name.startsWith(".") || (globs.isEmpty() && name.equals(CMAKE_FILES));
                    return skip ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    if (attrs.isRegularFile() && wanted(file, attrs)) {
                        files.add(file);
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) {
                    return FileVisitResult.CONTINUE;
                }

                private boolean wanted(Path file, BasicFileAttributes attrs) throws IOException {
                    if (!globs.isEmpty()) {
                        Path relative = root.relativize(file);
                        return globs.stream().anyMatch(g -> g.matches(relative));
                    }
                    if (job instanceof CommandJob && attrs.lastModifiedTime().toInstant().isBefore(since)) {
                        return false;
                    }
                    return GpuCodeInspector.container(file) != GpuCodeInspector.Container.NONE;
                }
            });
        } catch (IOException | UncheckedIOException e) {
            return List.of(new Artifact(root.toString(), List.of(),
                    "cannot list the job's output folder: " + e.getMessage()));
        }
        files.sort(null);
        return files.stream().map(this::read).toList();
    }

    private Artifact read(Path file) {
        try {
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                return new Artifact(file.toString(), List.of(), "no longer a regular file");
            }
            GpuCode code = inspector.inspect(file);
            String problem = code.problems().isEmpty() ? null : String.join("; ", code.problems());
            return new Artifact(file.toString(), code.archs(), problem, code.hostcallKernels());
        } catch (IOException e) {
            return new Artifact(file.toString(), List.of(), e.getMessage());
        }
    }
}
