package org.archpool.worker.exec;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * Finds the program that a command's first word names, the way {@code execvp} does, before it is started: so
 * that a missing program is told apart from one that fails, with a message saying which.
 * <ul>
 *   <li>A name with a {@code /} is a path (relative ones start at this JVM's working folder) and is not looked up.
 *       </li>
 *   <li>Any other name is looked for in each folder of {@code PATH}, in order, and the first match wins.</li>
 *   <li>A match is a regular file (after following links) that this process may execute: a folder of that name
 *       and a file without execute permission are passed over, and the search goes on.</li>
 *   <li>An empty entry of {@code PATH} (a leading, trailing or doubled {@code :}) is skipped. POSIX reads it as the
 *       current folder, but no look-up in archpool ever did: a build should not run whatever program the folder it
 *       was started from holds.</li>
 * </ul>
 */
public final class Executables {

    private Executables() {
    }

    /**
     * The file that running {@code name} would execute.
     *
     * @param name a program's name ({@code cmake}) or path ({@code ./configure}, {@code /usr/bin/cmake})
     * @param path a {@code PATH} value; {@code null} counts as empty
     * @return the path as found (the folder of {@code PATH} joined with {@code name}, or {@code name} itself), or
     *         empty when there is none
     */
    public static Optional<Path> find(String name, String path) {
        return candidates(name, path).filter(Executables::isExecutableFile).findFirst();
    }

    /**
     * Where {@link #find} finds nothing: the first regular file of that name it passed over because it may not be
     * executed, so that a message can say so rather than "not found".
     */
    public static Optional<Path> findNotExecutable(String name, String path) {
        return candidates(name, path).filter(Files::isRegularFile).filter(Predicate.not(Files::isExecutable))
                .findFirst();
    }

    private static Stream<Path> candidates(String name, String path) {
        if (name.contains("/")) {
            return Stream.of(Path.of(name));
        }
        return Arrays.stream((path == null ? "" : path).split(File.pathSeparator))
                .filter(dir -> !dir.isEmpty())
                .map(dir -> Path.of(dir, name));
    }

    private static boolean isExecutableFile(Path file) {
        return Files.isRegularFile(file) && Files.isExecutable(file);
    }
}
