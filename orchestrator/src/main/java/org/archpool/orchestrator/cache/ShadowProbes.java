package org.archpool.orchestrator.cache;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Where a header that appears after a build would take the place of one the build read: a compiler takes the first
 * folder of its search path that holds the name an {@code #include} gives, so a new {@code outside/foo.h} in a folder
 * searched before the one that gave {@code foo.h} changes what is compiled, though no file the build read changed
 * (ccache's direct mode misses exactly this). For every header read and every include folder outside the source and
 * build folders, each of the header's last {@value #DEPTH} path suffixes ({@code foo.h}, {@code sys/foo.h}…) is a
 * name that must not appear in that folder; those already there when the entry was stored are listed apart, since
 * they did not shadow it then. A new file at such a place is a miss, even where it would not be the one included
 * (a rebuild, never a wrong hit).
 *
 * @param folders the include folders outside the source and build folders, in search order
 * @param names   the suffixes of the headers read, sorted
 * @param present {@code folder/name} pairs that existed when the entry was stored, sorted
 */
public record ShadowProbes(List<String> folders, List<String> names, List<String> present) {

    /** How many trailing path components of a header make the names probed: {@code <a/b/c.h>} at most. */
    static final int DEPTH = 3;

    /** No include folder to probe. */
    public static final ShadowProbes NONE = new ShadowProbes(List.of(), List.of(), List.of());

    public ShadowProbes {
        folders = folders == null ? List.of() : List.copyOf(folders);
        names = names == null ? List.of() : List.copyOf(names);
        present = present == null ? List.of() : List.copyOf(present);
    }

    /**
     * The probes of {@code headers}, read through {@code includeFolders}, of which those under {@code excluded}
     * (the source folder, whose files the key holds, and the build folder) are left out.
     */
    public static ShadowProbes of(List<Path> includeFolders, Collection<Path> headers, List<Path> excluded) {
        List<String> folders = new ArrayList<>();
        for (Path folder : includeFolders) {
            if (excluded.stream().noneMatch(e -> folder.startsWith(e.toAbsolutePath().normalize()))) {
                folders.add(folder.toString());
            }
        }
        if (folders.isEmpty()) {
            return NONE;
        }
        TreeSet<String> names = new TreeSet<>();
        for (Path header : headers) {
            for (int n = 1; n <= Math.min(DEPTH, header.getNameCount()); n++) {
                names.add(header.subpath(header.getNameCount() - n, header.getNameCount()).toString());
            }
        }
        TreeSet<String> present = new TreeSet<>();
        for (String folder : folders) {
            for (String name : names) {
                if (exists(Path.of(folder, name))) {
                    present.add(Path.of(folder, name).toString());
                }
            }
        }
        return new ShadowProbes(folders, List.copyOf(names), List.copyOf(present));
    }

    /** The first probed place where a file appeared since the entry was stored, as a miss's reason; else empty. */
    public Optional<String> firstAppeared() {
        TreeSet<String> before = new TreeSet<>(present);
        for (String folder : folders) {
            for (String name : names) {
                Path place = Path.of(folder, name);
                if (!before.contains(place.toString()) && exists(place)) {
                    return Optional.of("a new file " + place + " may take the place of the header " + name
                            + " the build read");
                }
            }
        }
        return Optional.empty();
    }

    private static boolean exists(Path path) {
        return Files.exists(path, LinkOption.NOFOLLOW_LINKS);
    }
}
