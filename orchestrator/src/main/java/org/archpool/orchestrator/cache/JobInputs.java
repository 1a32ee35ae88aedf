package org.archpool.orchestrator.cache;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemLoopException;
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
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.UntrustedText;

/**
 * What a job reads, as one digest of every file's path and contents: for a {@code cmake} job every file under its
 * {@code sourceDir}, except folders that are not sources ({@code .git}, archpool's {@code .archpool}, the job's own
 * build folder and any other build tree of the same project: a folder whose {@code CMakeCache.txt} names this
 * {@code sourceDir} as its {@code CMAKE_HOME_DIRECTORY}; any other folder is a source, {@code CMakeCache.txt} or
 * not); for a {@code command} job the files its {@code inputs} globs match (relative to its {@code cwd}, or
 * absolute). A link to a file is hashed as the path it holds and the contents it leads to, so that editing the
 * target is a change; in a {@code cmake} job's tree a link to a folder outside it is read as part of the tree (once,
 * whatever links lead there again); a link that leads nowhere is hashed as the path it holds. The {@code $ENV{NAME}}
 * that a {@code cmake} job's {@code CMakeLists.txt} and {@code .cmake} files name are gathered too, for the key to
 * hold their values. A command job without {@code inputs}, a glob that matches nothing and a tree of more than
 * {@link #MAX_FILES} files make the job uncacheable, with the reason.
 */
public final class JobInputs {

    /** Files one job may read for its key; past it the job is not cached (hashing would cost more than it saves). */
    static final int MAX_FILES = 100_000;

    private static final String GLOB_CHARS = "*?[{";

    /** {@code ENV{NAME}} as CMake reads a variable of the environment ({@code $ENV{NAME}}, {@code DEFINED ENV{NAME}}). */
    private static final Pattern ENV_REFERENCE = Pattern.compile("ENV\\{([A-Za-z_][A-Za-z0-9_]*)\\}");

    /** The line of a {@code CMakeCache.txt} that names the source folder of its build tree. */
    private static final String HOME_DIRECTORY = "CMAKE_HOME_DIRECTORY:INTERNAL=";

    /** The digest of a job's inputs, or why there is none. */
    public sealed interface Digest {
        /**
         * @param files           how many files entered it
         * @param environmentRead the variables the job's CMake files read ({@code $ENV{NAME}}), sorted
         */
        record Of(String sha256, int files, Set<String> environmentRead) implements Digest {
            public Of {
                environmentRead = Collections.unmodifiableSet(new TreeSet<>(environmentRead));
            }
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
        Set<String> environment = new TreeSet<>();
        new Tree(source, buildDir, files, environment).walk(source, "");
        return of(files, environment);
    }

    /** A {@code cmake} job's source tree as it is read: its own folders, and those its links lead to outside it. */
    private final class Tree {
        private final Path source;
        private final Path realSource;
        private final Path buildDir;
        private final TreeMap<String, String> files;
        private final Set<String> environment;
        private final Set<Path> linkedFolders = new HashSet<>();

        Tree(Path source, Path buildDir, TreeMap<String, String> files, Set<String> environment) throws IOException {
            this.source = source;
            this.realSource = source.toRealPath();
            this.buildDir = buildDir;
            this.files = files;
            this.environment = environment;
        }

        /** Reads the folder {@code top}, its files named {@code prefix} + their path under it. */
        void walk(Path top, String prefix) throws IOException {
            Files.walkFileTree(top, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                    if (dir.equals(top)) {
                        return FileVisitResult.CONTINUE;
                    }
                    String name = dir.getFileName().toString();
                    boolean notSource = name.equals(".git") || name.equals(".archpool") || dir.equals(buildDir)
                            || isBuildTreeOfSource(dir);
                    return notSource ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    String name = prefix + top.relativize(file);
                    if (attrs.isSymbolicLink()) {
                        link(name, file, attrs);
                    } else {
                        add(files, name, file, attrs);
                        readsEnvironment(file, file);
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                    return vanished(e);
                }
            });
        }

        /**
         * A link in the tree: a folder outside the tree is read, once, as part of it; anything else is an input as
         * {@link #add} takes a link (a file by the contents it leads to).
         */
        private void link(String name, Path link, BasicFileAttributes attrs) throws IOException {
            add(files, name, link, attrs);
            Path real;
            try {
                real = link.toRealPath();
            } catch (NoSuchFileException | FileSystemLoopException e) {
                return; // it leads nowhere: the path it holds is all there is
            }
            if (Files.isRegularFile(real)) {
                readsEnvironment(link, real);
            } else if (Files.isDirectory(real) && !real.startsWith(realSource) && linkedFolders.add(real)) {
                walk(real, name + "/");
            }
        }

        /** Adds the variables that {@code file}, a CMake file by {@code name}'s name, reads as {@code $ENV{NAME}}. */
        private void readsEnvironment(Path name, Path file) throws IOException {
            String fileName = name.getFileName().toString();
            if (!fileName.equals("CMakeLists.txt") && !fileName.endsWith(".cmake")) {
                return;
            }
            try {
                Matcher m = ENV_REFERENCE.matcher(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1));
                while (m.find()) {
                    environment.add(m.group(1));
                }
            } catch (NoSuchFileException e) {
                // removed while the tree was read
            }
        }

        /** Whether {@code dir} holds a build tree of this job's project: its cache names this source folder. */
        private boolean isBuildTreeOfSource(Path dir) throws IOException {
            Path cache = dir.resolve("CMakeCache.txt");
            if (!Files.isRegularFile(cache, LinkOption.NOFOLLOW_LINKS)) {
                return false;
            }
            try (BufferedReader in = Files.newBufferedReader(cache, StandardCharsets.ISO_8859_1)) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.startsWith(HOME_DIRECTORY)) {
                        Path home = Path.of(line.substring(HOME_DIRECTORY.length())).normalize();
                        return home.equals(source.normalize()) || home.equals(realSource);
                    }
                }
            } catch (NoSuchFileException e) {
                return false;
            }
            return false;
        }
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
        return of(files, Set.of());
    }

    /** A file removed while the tree is read (another job's temporary file) is not an input; any other error is. */
    private static FileVisitResult vanished(IOException e) throws IOException {
        if (e instanceof NoSuchFileException) {
            return FileVisitResult.CONTINUE;
        }
        throw e;
    }

    private static void checkCount(TreeMap<String, String> files) throws TooManyFiles {
        if (files.size() >= MAX_FILES) {
            throw new TooManyFiles("it reads more than " + MAX_FILES + " files, which the cache does not key");
        }
    }

    /** A file of the inputs; a link to a file as the path it holds and the contents it leads to. */
    private void add(TreeMap<String, String> files, String name, Path file, BasicFileAttributes attrs)
            throws IOException {
        checkCount(files);
        if (attrs.isSymbolicLink()) {
            try {
                Path target = Files.readSymbolicLink(file);
                Path real = file.toRealPath();
                files.put(name, "link:" + target + (Files.isRegularFile(real) ? "\0" + hashes.digest(real) : ""));
            } catch (NoSuchFileException | FileSystemLoopException e) {
                // removed while read, or leads nowhere: the path it holds, if it is still there
                if (Files.isSymbolicLink(file)) {
                    files.put(name, "link:" + Files.readSymbolicLink(file));
                }
            }
        } else if (attrs.isRegularFile()) {
            try {
                files.put(name, hashes.digest(file));
            } catch (NoSuchFileException e) {
                // removed while the tree was read: it is not an input of this build
            }
        }
    }

    private static Digest of(TreeMap<String, String> files, Set<String> environment) {
        MessageDigest md = Digests.sha256();
        files.forEach((name, digest) -> md.update((name + "\0" + digest + "\n").getBytes(StandardCharsets.UTF_8)));
        return new Digest.Of(Digests.hex(md.digest()), files.size(), environment);
    }
}
