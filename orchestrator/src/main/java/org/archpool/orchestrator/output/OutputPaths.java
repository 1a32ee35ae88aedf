package org.archpool.orchestrator.output;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Every path a build will write, checked before anything runs, so that a build owns only what it creates. Refused,
 * each with one paragraph naming the flag, the path and the fix:
 * <ul>
 *   <li>a file output whose path holds anything but a regular file: a folder, a device node, a named pipe, a
 *       socket, or a symbolic link (an output is written by renaming a new file over its path, which replaces
 *       whatever is there: {@code --report /dev/null} would replace the machine's {@code /dev/null});</li>
 *   <li>a file output that is the manifest itself, however spelled ({@code ./m.json}, a hard link: compared by
 *       file key);</li>
 *   <li>two outputs on one path, or one inside another (compared by real path), and a file output in the log
 *       folder where the build writes one of its logs or inside its workers' folder;</li>
 *   <li>a log folder that is not a folder, and, in an existing one, anything but a regular file (or, for
 *       {@code workers}, a real folder) where the build writes a log or its lock ({@link LogLayout});</li>
 *   <li>a folder that does not exist and cannot be created, or one that cannot be written (a read-only file
 *       system; for a user who is not root, permissions);</li>
 *   <li>a default output (beside the manifest) when the manifest is not a regular file: {@code archpool build
 *       <(…)} reads a pipe in {@code /dev/fd}, where nothing can be written, so {@code --report} and
 *       {@code --log-dir} must be given.</li>
 * </ul>
 * What this cannot rule out is a path that changes after the check, while the build runs; {@code AtomicFile}
 * checks again right before its rename, and the log files are created without following links.
 *
 * @param manifest  the manifest, as given; null for {@code archpool serve}, which has none
 * @param files     the file outputs: the report, then {@code --metrics}, {@code --trace}, {@code --junit},
 *                  {@code --html} where asked for
 * @param logFolder the log folder
 */
public record OutputPaths(Path manifest, List<Output> files, Output logFolder) {

    /**
     * One path the build writes.
     *
     * @param flag      the option that sets it: {@code --report}, {@code --log-dir}, …
     * @param what      what it is, for messages about a default: "report", "log folder"
     * @param given     the path as given (a default is absolute)
     * @param byDefault whether it is the default beside the manifest rather than given
     */
    public record Output(String flag, String what, Path given, boolean byDefault) {

        public Output {
            Objects.requireNonNull(flag, "flag");
            Objects.requireNonNull(what, "what");
            Objects.requireNonNull(given, "given");
        }

        public static Output given(String flag, String what, Path path) {
            return new Output(flag, what, path, false);
        }

        public static Output byDefault(String flag, String what, Path path) {
            return new Output(flag, what, path.toAbsolutePath(), true);
        }

        Path path() {
            return given.toAbsolutePath().normalize();
        }

        /** "--report x.json", or "the default report /m/.archpool/report.json (beside the manifest)". */
        String named() {
            return byDefault ? "the default " + what + " " + given + " (beside the manifest)" : flag + " " + given;
        }

        /** How to point it elsewhere: "give --report another path". */
        String elsewhere(String placeholder) {
            return byDefault ? "give " + flag + " " + placeholder + " to put the " + what + " elsewhere"
                    : "give " + flag + " another path";
        }
    }

    public OutputPaths {
        files = List.copyOf(files);
        Objects.requireNonNull(logFolder, "logFolder");
    }

    /**
     * @param jobIds   the build's job ids, for the names of their logs
     * @param attempts the most attempts a job may have (retries + 1)
     * @throws OutputPathException for the first path that may not or cannot be written
     */
    public void check(Set<String> jobIds, int attempts) throws OutputPathException {
        try {
            checkDefaultsHaveAFolder();
            List<Claim> claims = new ArrayList<>();
            for (Output file : files) {
                checkFile(file);
                claims.add(new Claim(file, canonical(file.path()), false));
            }
            checkLogFolder();
            Claim folder = new Claim(logFolder, canonical(logFolder.path()), true);
            claims.add(folder);
            checkNoOverlap(claims);
            for (Claim c : claims) {
                if (!c.folder()) {
                    checkNotAmongTheLogs(c, folder, jobIds, attempts);
                }
            }
            checkLogFolderContents(jobIds, attempts);
        } catch (IOException e) {
            throw new OutputPathException("cannot check the build's output paths: " + FileErrors.describe(e)
                    + "; fix the path or its permissions, or give the outputs other paths");
        }
    }

    /** One path an output takes: the output, its real path, whether it is a folder. */
    private record Claim(Output output, Path key, boolean folder) {
    }

    private void checkDefaultsHaveAFolder() throws IOException, OutputPathException {
        if (manifest == null) {
            return;
        }
        PathKind kind = PathKind.followed(manifest);
        if (kind == PathKind.REGULAR_FILE) {
            return;
        }
        List<Output> defaults = new ArrayList<>();
        files.stream().filter(Output::byDefault).forEach(defaults::add);
        if (logFolder.byDefault()) {
            defaults.add(logFolder);
        }
        if (defaults.isEmpty()) {
            return;
        }
        String flags = defaults.stream().map(o -> o.flag() + (o == logFolder ? " DIR" : " FILE"))
                .collect(Collectors.joining(" and "));
        String whats = defaults.stream().map(Output::what).collect(Collectors.joining(" and "));
        throw new OutputPathException("the manifest " + manifest + " is " + kind.words() + ", not a file in a folder"
                + " (as when it is given as <(…), which the shell turns into a pipe in /dev/fd); by default the "
                + whats + " go beside the manifest, and nothing can be written there: give " + flags
                + " (the manifest itself is still read)");
    }

    private void checkFile(Output o) throws IOException, OutputPathException {
        Path path = o.path();
        PathKind kind = PathKind.of(path);
        switch (kind) {
            case MISSING -> checkCanCreate(o, path.getParent());
            case REGULAR_FILE -> {
                if (manifest != null && sameFile(path, manifest)) {
                    boolean samePath = path.toRealPath().equals(manifest.toRealPath());
                    throw new OutputPathException(o.named() + " is the manifest itself (" + manifest
                            + (samePath ? "" : ", under another name: a hard link") + "); writing the " + o.what() + " there would replace the"
                            + " manifest: " + o.elsewhere("FILE") + ", e.g. " + o.flag() + " " + example(o.flag()));
                }
                checkCanCreate(o, path.getParent());
            }
            case FOLDER -> throw new OutputPathException(o.named() + " is a folder; give the path of the file to"
                    + " write, e.g. " + o.flag() + " " + o.given().resolve(example(o.flag())));
            case SYMBOLIC_LINK -> {
                Path target = Files.readSymbolicLink(path);
                PathKind leads = PathKind.followed(path);
                throw new OutputPathException(o.named() + " is a symbolic link to " + target + " ("
                        + (leads == PathKind.MISSING ? "which does not exist" : leads.words())
                        + "); an output is written by renaming a new file over its path, which would replace the"
                        + " link and not what it points to, so archpool does not write over links: give the path of"
                        + " the file itself, or remove the link, or " + o.elsewhere("FILE"));
            }
            default -> throw new OutputPathException(o.named() + " is " + kind.words() + ", not a regular file; an"
                    + " output is written by renaming a new file over its path, which would replace the " + kind.words()
                    .substring(2) + " for everyone who uses it: give the path of a regular file or of one that does"
                    + " not exist yet, e.g. " + o.flag() + " " + example(o.flag()));
        }
    }

    private void checkLogFolder() throws IOException, OutputPathException {
        Output o = logFolder;
        Path path = o.path();
        PathKind kind = PathKind.followed(path);
        if (kind == PathKind.FOLDER) {
            checkWritable(o, path.toRealPath());
            return;
        }
        if (kind == PathKind.MISSING && PathKind.of(path) == PathKind.MISSING) {
            checkCanCreate(o, path);
            return;
        }
        String is = kind == PathKind.MISSING ? "a symbolic link to " + Files.readSymbolicLink(path)
                + ", which does not exist" : kind == PathKind.REGULAR_FILE ? "a file" : kind.words();
        throw new OutputPathException(o.named() + " is " + is + ", not a folder; "
                + (o.byDefault() ? "move it away or " + o.elsewhere("DIR") : "give " + o.flag()
                + " a folder for the job and worker logs (it is created if missing)"));
    }

    /** {@code folder}, or its nearest ancestor that exists, must be a folder this process can write in. */
    private static void checkCanCreate(Output o, Path folder) throws IOException, OutputPathException {
        Path existing = folder;
        while (existing != null && PathKind.of(existing) == PathKind.MISSING) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return;
        }
        PathKind kind = PathKind.followed(existing);
        if (kind != PathKind.FOLDER) {
            throw new OutputPathException("cannot write " + o.named() + ": " + existing + " is in the way: it is "
                    + (kind == PathKind.MISSING ? "a symbolic link that leads nowhere" : kind.words())
                    + " where a folder is needed; " + o.elsewhere(o.flag().equals("--log-dir") ? "DIR" : "FILE"));
        }
        checkWritable(o, existing);
    }

    private static void checkWritable(Output o, Path folder) throws IOException, OutputPathException {
        if (Files.isWritable(folder)) {
            return;
        }
        boolean readOnly = Mounts.readOnly(folder);
        String fix = o.byDefault()
                ? "the manifest's folder cannot hold the build's outputs: give --report FILE and --log-dir DIR in a"
                + " folder you can write"
                : "give " + o.flag() + " a path in a folder you can write";
        throw new OutputPathException("cannot write " + o.named() + ": the folder " + folder + " is "
                + (readOnly ? "on a read-only file system" : "not writable for this user") + "; " + fix);
    }

    private static void checkNoOverlap(List<Claim> claims) throws OutputPathException {
        for (int i = 0; i < claims.size(); i++) {
            for (int j = 0; j < claims.size(); j++) {
                Claim a = claims.get(i);
                Claim b = claims.get(j);
                if (i < j && a.key().equals(b.key())) {
                    throw new OutputPathException(a.output().named() + " and " + b.output().named() + " are one path ("
                            + a.key() + "); each output needs a path of its own, or one would overwrite the other:"
                            + " give " + b.output().flag() + " another path");
                }
                if (i != j && !a.folder() && b.key().startsWith(a.key()) && !b.key().equals(a.key())) {
                    throw new OutputPathException(b.output().named() + " is inside " + a.output().named()
                            + ", which is a file the build writes; give " + b.output().flag() + " a path outside it");
                }
            }
        }
    }

    private static void checkNotAmongTheLogs(Claim file, Claim folder, Set<String> jobIds, int attempts)
            throws OutputPathException {
        Path key = file.key();
        Path logs = folder.key();
        Output o = file.output();
        if (key.startsWith(logs.resolve(LogLayout.WORKERS))) {
            throw new OutputPathException(o.named() + " is in the log folder's " + LogLayout.WORKERS + "/ folder ("
                    + logs.resolve(LogLayout.WORKERS) + "), where the workers' stderr files go; "
                    + o.elsewhere("FILE") + " outside it");
        }
        if (logs.equals(key.getParent())) {
            String owner = LogLayout.owner(key.getFileName().toString(), jobIds, attempts);
            if (owner != null) {
                throw new OutputPathException(o.named() + " is where the build writes " + owner + " (" + key
                        + " in the log folder " + logs + "); " + o.elsewhere("FILE")
                        + " that no log of the build takes");
            }
        }
    }

    /** In an existing log folder, only a regular file (a real folder for workers/) where the build writes. */
    private void checkLogFolderContents(Set<String> jobIds, int attempts) throws IOException, OutputPathException {
        Path folder = logFolder.path();
        if (PathKind.followed(folder) != PathKind.FOLDER) {
            return;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                String owner = LogLayout.owner(name, jobIds, attempts);
                if (owner != null) {
                    checkOwnedEntry(entry, owner, name.equals(LogLayout.WORKERS));
                }
            }
        }
        Path workers = folder.resolve(LogLayout.WORKERS);
        if (PathKind.of(workers) == PathKind.FOLDER) {
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(workers, "*.log")) {
                for (Path entry : entries) {
                    checkOwnedEntry(entry, "a worker's stderr file", false);
                }
            }
        }
    }

    private void checkOwnedEntry(Path entry, String owner, boolean folder) throws IOException, OutputPathException {
        // one lstat for both (a log folder may hold a hundred thousand logs)
        PathKind kind;
        int links;
        try {
            Map<String, Object> unix = Files.readAttributes(entry, "unix:mode,nlink", LinkOption.NOFOLLOW_LINKS);
            kind = PathKind.ofMode((Integer) unix.get("mode"));
            links = (Integer) unix.get("nlink");
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            kind = PathKind.of(entry);
            links = 1;
        }
        String fix = "; archpool never writes through a link or into a special file in its log folder: remove it, or"
                + " give the build a log folder of its own with --log-dir DIR";
        if (kind != (folder ? PathKind.FOLDER : PathKind.REGULAR_FILE)) {
            String is = kind == PathKind.SYMBOLIC_LINK ? "a symbolic link to " + Files.readSymbolicLink(entry)
                    : kind.words();
            throw new OutputPathException(entry + " is " + is + " where the build writes " + owner + fix);
        }
        if (!folder && links > 1) {
            throw new OutputPathException(entry + " has " + links + " names (hard links), and the build"
                    + " writes " + owner + " there; writing it would change the file under its other names too" + fix);
        }
    }

    private static boolean sameFile(Path a, Path b) throws IOException {
        Object ka = fileKey(a);
        Object kb = fileKey(b);
        return ka != null && ka.equals(kb);
    }

    private static Object fileKey(Path path) throws IOException {
        if (!Files.exists(path)) {
            return null;
        }
        return Files.readAttributes(path, BasicFileAttributes.class).fileKey();
    }

    /** The real path: that of its nearest existing ancestor, links followed, with the rest of the names. */
    private static Path canonical(Path path) throws IOException {
        Path existing = path;
        while (existing != null && PathKind.of(existing) == PathKind.MISSING) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return path;
        }
        Path real;
        try {
            real = existing.toRealPath();
        } catch (IOException e) {
            real = existing; // a link that leads nowhere, or to no path (a pipe): it is its own key
        }
        return real.resolve(existing.relativize(path)).normalize();
    }

    private static String example(String flag) {
        return switch (flag) {
            case "--metrics" -> "archpool.prom";
            case "--junit" -> "archpool.xml";
            case "--html" -> "archpool.html";
            case "--trace" -> "trace.json";
            default -> "report.json";
        };
    }
}
