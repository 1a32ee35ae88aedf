package org.archpool.worker.exec;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A job attempt's own temporary folder, given to each of its steps as {@code TMPDIR} and removed, with whatever
 * the steps left in it, when the job ends.
 *
 * <p>Every step runs in a PID namespace of its own ({@link PidNamespaceContainment}), so concurrent steps have the
 * same small PIDs; tools that name temporary files after their PID then collide in a shared {@code /tmp}: nvcc's
 * {@code /tmp/tmpxft_00000002_00000000-5_k.cpp4.ii} is the same file for every job that compiles at once, and a
 * job read another's intermediate ("Couldn't find CUDA library root", C++ errors in a header). A folder per
 * attempt makes those names unique again, in any containment, and what a killed compiler leaves behind goes
 * with it.
 *
 * <p>The folder is made (mode 0700, a fresh name) where the job's {@code TMPDIR} points, else the worker's, else
 * {@code /tmp}; a job's own {@code TMPDIR} thus still says which file system its temporary files use.
 */
public final class JobTempDir {

    public static final String VARIABLE = "TMPDIR";
    private static final int MAX_ID_CHARS = 40;
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

    private final Path path;

    private JobTempDir(Path path) {
        this.path = path;
    }

    /**
     * @param processEnv the environment of the JVM that runs the job
     * @param jobEnv     the job's own variables ({@code TMPDIR} among them, if it sets one)
     * @param cwd        the folder a relative {@code TMPDIR} is taken from (the job's first step's)
     * @throws IOException the folder cannot be made there (a missing or read-only {@code TMPDIR})
     */
    public static JobTempDir create(Map<String, String> processEnv, Map<String, String> jobEnv, Path cwd,
                                    String jobId) throws IOException {
        String base = nonEmpty(jobEnv.get(VARIABLE))
                .or(() -> nonEmpty(processEnv.get(VARIABLE)))
                .orElse("/tmp");
        Path parent = cwd.resolve(base);
        Path made = Files.createTempDirectory(parent, "archpool-" + safe(jobId) + "-",
                PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        return new JobTempDir(made);
    }

    public Path path() {
        return path;
    }

    /** {@code stepEnv} with {@code TMPDIR} set to this folder. */
    public Map<String, String> into(Map<String, String> stepEnv) {
        Map<String, String> env = new LinkedHashMap<>(stepEnv);
        env.put(VARIABLE, path.toString());
        return env;
    }

    /**
     * Removes the folder and everything in it, never following a link (a link a step left is removed, not what
     * it points to).
     *
     * @return why something could not be removed, if anything could not
     */
    public Optional<String> remove() {
        try {
            Files.walkFileTree(path, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                    // a step may have left a folder it cannot be listed or emptied by its owner
                    Files.setPosixFilePermissions(dir, OWNER_ONLY);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException failure) throws IOException {
                    if (failure != null) {
                        throw failure;
                    }
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
            return Optional.empty();
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of(e.getMessage() != null ? e.getMessage() : e.toString());
        }
    }

    private static Optional<String> nonEmpty(String value) {
        return value == null || value.isEmpty() ? Optional.empty() : Optional.of(value);
    }

    /** The job id as part of a file name: the characters that are safe anywhere, at most 40. */
    private static String safe(String jobId) {
        String safe = jobId.replaceAll("[^A-Za-z0-9._-]", "_");
        return safe.length() > MAX_ID_CHARS ? safe.substring(0, MAX_ID_CHARS) : safe;
    }
}
