package org.archpool.orchestrator.cache;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.TreeMap;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.UntrustedText;

/**
 * What a job reads, as one digest of every file's path and contents: for a {@code cmake} job every file under its
 * {@code sourceDir}, except folders that are not sources ({@code .git}, archpool's {@code .archpool}, the job's own
 * build folder and any other CMake build tree, known by its {@code CMakeCache.txt}); for a {@code command} job the
 * files its {@code inputs} globs match (relative to its {@code cwd}, or absolute). A link is hashed as the path it
 * holds, not followed. A command job without {@code inputs}, a glob that matches nothing and a tree of more than
 * {@link #MAX_FILES} files make the job uncacheable, with the reason.
 */
public final class JobInputs {

    /** Files one job may read for its key; past it the job is not cached (hashing would cost more than it saves). */
    static final int MAX_FILES = 100_000;

    private static final String GLOB_CHARS = "*?[{";

    /** The digest of a job's inputs, or why there is none. */
    public sealed interface Digest {
        /** @param files how many files entered it */
        record Of(String sha256, int files) implements Digest {
        }

        record Unavailable(String reason) implements Digest {
        }
    }

    private final FileHashes hashes;

    public JobInputs(FileHashes hashes) {
        this.hashes = hashes;
    }

    public Digest digest(JobSpec job) {
        try {
            if (job instanceof CmakeJob c) {
                return tree(Path.of(c.sourceDir()), Path.of(c.buildDir()));
            }
            CommandJob command = (CommandJob) job;
            if (command.inputs() == null) {
                return new Digest.Unavailable("the command job declares no \"inputs\" (the files it reads), so no key"
                        + " can cover what it compiles; list them, e.g. \"inputs\": [\"src/*.cu\", \"include/**\"]");
            }
            return globs(Path.of(command.cwd()), command.inputs());
        } catch (TooManyFiles e) {
            return new Digest.Unavailable(e.getMessage());
        } catch (IOException | UncheckedIOException e) {
            return new Digest.Unavailable("its inputs could not be read: " + e.getMessage());
        }
    }

    private static final class TooManyFiles extends IOException {
        TooManyFiles(String message) {
            super(message);
        }
    }

    private Digest tree(Path source, Path buildDir) throws IOException {
        TreeMap<String, String> files = new TreeMap<>();
        Files.walkFileTree(source, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                if (dir.equals(source)) {
                    return FileVisitResult.CONTINUE;
                }
                String name = dir.getFileName().toString();
                boolean notSource = name.equals(".git") || name.equals(".archpool") || dir.equals(buildDir)
                        || Files.exists(dir.resolve("CMakeCache.txt"), LinkOption.NOFOLLOW_LINKS);
                return notSource ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                add(files, source.relativize(file).toString(), file, attrs);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                return vanished(e);
            }
        });
        return of(files);
    }

    private Digest globs(Path cwd, List<String> globs) throws IOException {
        TreeMap<String, String> files = new TreeMap<>();
        for (String glob : globs) {
            int[] matched = {0};
            boolean absolute = glob.startsWith("/");
            Path base = absolute ? Path.of("/") : cwd;
            List<String> parts = new ArrayList<>(List.of(glob.split("/")));
            while (parts.size() > 1 && !parts.get(0).chars().anyMatch(ch -> GLOB_CHARS.indexOf(ch) >= 0)) {
                String part = parts.remove(0);
                if (!part.isEmpty()) {
                    base = base.resolve(part);
                }
            }
            String rest = String.join("/", parts);
            if (rest.chars().noneMatch(ch -> GLOB_CHARS.indexOf(ch) >= 0)) {
                // a plain path: looked at, not searched for (500 jobs each naming their source in one folder of
                // 1,000 files would otherwise list that folder 500 times)
                Path file = base.resolve(rest);
                BasicFileAttributes attrs;
                try {
                    attrs = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                } catch (NoSuchFileException e) {
                    return new Digest.Unavailable("its input " + UntrustedText.quote(glob) + " does not exist"
                            + " (relative paths start at the job's cwd " + UntrustedText.quote(cwd.toString())
                            + "); fix the path, or remove it");
                }
                if (attrs.isDirectory()) {
                    return new Digest.Unavailable("its input " + UntrustedText.quote(glob) + " is a folder; give"
                            + " the files in it as a glob, e.g. " + UntrustedText.quote(glob + "/**"));
                }
                add(files, file.startsWith(cwd) ? cwd.relativize(file).toString() : file.toString(), file, attrs);
                continue;
            }
            PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + rest);
            // only as deep as the glob reaches: "k.cu" reads one folder, "**" every one below
            int depth = rest.contains("**") ? Integer.MAX_VALUE : parts.size();
            Path root = base;
            if (Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
                Files.walkFileTree(root, EnumSet.noneOf(FileVisitOption.class), depth, new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                        return dir.equals(root) || !dir.getFileName().toString().equals(".git")
                                ? FileVisitResult.CONTINUE : FileVisitResult.SKIP_SUBTREE;
                    }

                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                        if (matcher.matches(root.relativize(file))) {
                            matched[0]++;
                            String name = file.startsWith(cwd) ? cwd.relativize(file).toString() : file.toString();
                            add(files, name, file, attrs);
                        }
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                        return vanished(e);
                    }
                });
            }
            if (matched[0] == 0) {
                return new Digest.Unavailable("its input glob " + UntrustedText.quote(glob) + " matches no file"
                        + " (relative globs start at the job's cwd " + UntrustedText.quote(cwd.toString())
                        + "); fix the glob, or remove it");
            }
        }
        return of(files);
    }

    /** A file removed while the tree is read (another job's temporary file) is not an input; any other error is. */
    private static FileVisitResult vanished(IOException e) throws IOException {
        if (e instanceof NoSuchFileException) {
            return FileVisitResult.CONTINUE;
        }
        throw e;
    }

    private void add(TreeMap<String, String> files, String name, Path file, BasicFileAttributes attrs)
            throws IOException {
        if (files.size() >= MAX_FILES) {
            throw new TooManyFiles("it reads more than " + MAX_FILES + " files, which the cache does not key");
        }
        if (attrs.isSymbolicLink()) {
            try {
                files.put(name, "link:" + Files.readSymbolicLink(file));
            } catch (NoSuchFileException e) {
                // removed while the tree was read
            }
        } else if (attrs.isRegularFile()) {
            try {
                files.put(name, hashes.digest(file));
            } catch (NoSuchFileException e) {
                // removed while the tree was read: it is not an input of this build
            }
        }
    }

    private static Digest of(TreeMap<String, String> files) {
        MessageDigest md = Digests.sha256();
        files.forEach((name, digest) -> md.update((name + "\0" + digest + "\n").getBytes(StandardCharsets.UTF_8)));
        return new Digest.Of(Digests.hex(md.digest()), files.size());
    }
}
