package org.archpool.orchestrator.cache;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The folders a build's compiles search for headers, from CMake's include flags ({@code -I}, {@code -isystem},
 * {@code -iquote}, {@code -idirafter}, nvcc's {@code --include-path}/{@code -I} and their joined forms), in the
 * order of first appearance; relative ones resolved against the build folder. The generator's reader finds the
 * flags ({@link NinjaReads}: each edge's {@code INCLUDES}; {@link MakefileReads}: each target's
 * {@code flags.make}). The compiler's own folders ({@code /usr/include}, the CUDA toolkit's) are not among them: no
 * flag names them.
 */
public final class IncludeFolders {

    private static final List<String> SEPARATE = List.of("-I", "-isystem", "-iquote", "-idirafter", "--include-path");
    private static final List<String> JOINED = List.of("-isystem", "-iquote", "-idirafter", "--include-path=", "-I");

    private IncludeFolders() {
    }

    /** How many files the include folders of one HIP job may hold ({@link #filesUnder}). */
    static final int MAX_FILES = 20_000;

    /**
     * Every file under {@code folders} that are not under {@code excluded}, links not followed: for a HIP job, whose
     * dependency files list only the host pass's headers (clang's depfile leaves out what only the device pass
     * includes), the headers of the compiles' include folders are taken whole instead.
     *
     * @throws IOException when a folder cannot be walked, or they hold more than {@link #MAX_FILES} files
     */
    public static Set<Path> filesUnder(List<Path> folders, List<Path> excluded) throws IOException {
        Set<Path> files = new TreeSet<>();
        for (Path folder : folders) {
            if (excluded.stream().anyMatch(e -> folder.startsWith(e.toAbsolutePath().normalize()))
                    || !Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            try (Stream<Path> walk = Files.walk(folder)) {
                walk.filter(f -> Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)).limit(MAX_FILES + 1L)
                        .forEach(files::add);
            }
            if (files.size() > MAX_FILES) {
                throw new IOException("the include folders " + folders + " hold more than " + MAX_FILES
                        + " files, more than a read set takes");
            }
        }
        return files;
    }

    /** The folders {@code flags} (each a string of flags as CMake writes them) name, in order, each once. */
    static List<Path> fromFlags(List<String> flags, Path buildDir) {
        Set<Path> folders = new LinkedHashSet<>();
        for (String value : flags) {
            List<String> words = words(value);
            for (int i = 0; i < words.size(); i++) {
                String word = words.get(i);
                String folder = null;
                if (SEPARATE.contains(word) && i + 1 < words.size()) {
                    folder = words.get(++i);
                } else {
                    for (String flag : JOINED) {
                        if (word.startsWith(flag) && word.length() > flag.length()) {
                            folder = word.substring(flag.length());
                            break;
                        }
                    }
                }
                if (folder != null) {
                    folders.add(buildDir.resolve(folder).normalize());
                }
            }
        }
        return List.copyOf(folders);
    }

    /** The words of a command line's flags, split at spaces outside double quotes, the quotes removed. */
    private static List<String> words(String value) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean quoted = false;
        boolean any = false;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"') {
                quoted = !quoted;
                any = true;
            } else if (c == '\\' && i + 1 < value.length() && value.charAt(i + 1) == '"') {
                word.append('"');
                i++;
            } else if (Character.isWhitespace(c) && !quoted) {
                if (any || word.length() > 0) {
                    words.add(word.toString());
                }
                word.setLength(0);
                any = false;
            } else {
                word.append(c);
            }
        }
        if (any || word.length() > 0) {
            words.add(word.toString());
        }
        return words;
    }
}
