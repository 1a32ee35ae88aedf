package org.archpool.worker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.archpool.protocol.Artifact;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.JobSpec;
import org.archpool.worker.inspect.GpuCode;
import org.archpool.worker.inspect.GpuCodeInspector;
import org.archpool.worker.inspect.MalformedBinaryException;
import org.archpool.worker.inspect.TooLargeToInspectException;

/**
 * Finds what a successful job produced and reads the GPU code in each file.
 *
 * <p>A job's {@code artifacts} globs are matched against paths relative to its output folder (the build folder of
 * a cmake job, the cwd of a command job), and every regular file they match is reported. Without globs, the files
 * that can hold GPU code (ELF objects, libraries, executables and code objects, offload bundles, fat binaries,
 * static libraries; see {@link GpuCodeInspector#container}) are taken: for a cmake job, all of them outside
 * {@code CMakeFiles/} (where CMake keeps its compiler checks and object files); for a command job, the outputs its
 * argv names ({@code -o FILE}, {@code --output-file FILE}, {@code --output=FILE}, as hipcc, nvcc and clang take
 * them), or, when it names none, those written under its cwd since the job started (which, in a cwd that jobs
 * share, can include another job's files: give such jobs {@code -o} or {@code artifacts}). Hidden folders
 * ({@code .git}) are not searched.
 */
public final class ArtifactScanner {

    private final GpuCodeInspector inspector;

    public ArtifactScanner(GpuCodeInspector inspector) {
        this.inspector = inspector;
    }

    /**
     * @param job     the job that succeeded
     * @param started when it started; a command job's default artifacts are the files modified since
     * @return the artifacts, sorted by path
     */
    public List<Artifact> scan(JobSpec job, Instant started) throws UnreadableArtifactException {
        return scan(job, started, () -> { });
    }

    /**
     * @param job     the job that succeeded
     * @param started when it started; a command job's default artifacts are the files modified since
     * @param beat    run for each file visited and each artifact read: the job's thread is still at work
     * @return the artifacts, sorted by path; a file whose container is malformed is listed with its problem
     * @throws UnreadableArtifactException if an artifact cannot be read, or is too large to inspect within the
     *                                     inspector's memory budget
     */
    public List<Artifact> scan(JobSpec job, Instant started, Runnable beat) throws UnreadableArtifactException {
        ArtifactRules rules = ArtifactRules.of(job);
        Path root = rules.root();
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        List<Path> named = rules.namedOutputs().stream().filter(Files::isRegularFile).toList();
        if (!named.isEmpty()) {
            return readAll(named, beat);
        }
        // file systems with whole-second times: a file written in the job's first second must count
        Instant since = started.truncatedTo(ChronoUnit.SECONDS);
        List<Path> files = new ArrayList<>();
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    return dir.equals(root) || !rules.skipsFolder(dir) ? FileVisitResult.CONTINUE
                            : FileVisitResult.SKIP_SUBTREE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    beat.run(); // a large tree on a slow file system takes long to walk
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
                    if (rules.hasGlobs()) {
                        return rules.matchesGlob(file);
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
        return readAll(files, beat);
    }

    private List<Artifact> readAll(List<Path> files, Runnable beat) throws UnreadableArtifactException {
        List<Artifact> read = new ArrayList<>(files.size());
        for (Path file : files) {
            read.add(read(file));
            beat.run();
        }
        return read;
    }

    /**
     * A malformed file is a fact about the artifact, listed with its problem for {@code --verify} to judge; a file
     * that cannot be read, or is too large to read within the budget, was not inspected at all.
     */
    private Artifact read(Path file) throws UnreadableArtifactException {
        try {
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                return new Artifact(file.toString(), List.of(), "no longer a regular file");
            }
            GpuCode code = inspector.inspect(file);
            String problem = code.problems().isEmpty() ? null : String.join("; ", code.problems());
            return new Artifact(file.toString(), code.archs(), problem, code.hostcallKernels());
        } catch (TooLargeToInspectException e) {
            throw UnreadableArtifactException.of(file, "too large to inspect: " + e.getMessage(), e);
        } catch (MalformedBinaryException e) {
            return new Artifact(file.toString(), List.of(), e.getMessage());
        } catch (NoSuchFileException e) {
            return new Artifact(file.toString(), List.of(), "no longer there");
        } catch (IOException e) {
            throw UnreadableArtifactException.of(file, "it cannot be read: " + e, e);
        } catch (OutOfMemoryError e) {
            // the allocation that failed is gone with the stack unwound; the worker's heap is intact
            throw UnreadableArtifactException.of(file, "reading it ran out of memory (the worker's heap is "
                    + (Runtime.getRuntime().maxMemory() >> 20) + " MiB)", e);
        }
    }
}
