package org.archpool.orchestrator.output;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Whether a folder is on a read-only mount, from {@code /proc/self/mounts}: the mount whose point is the longest
 * prefix of the folder's real path. {@link java.nio.file.FileStore#isReadOnly()} misses a read-only bind mount (it
 * finds the mount by device number, and a bind mount shares its device with the file system it shows).
 */
final class Mounts {

    private static final Path MOUNTS = Path.of("/proc/self/mounts");

    private Mounts() {
    }

    static boolean readOnly(Path folder) throws IOException {
        Path real = folder.toRealPath();
        List<String> lines;
        try {
            lines = Files.readAllLines(MOUNTS);
        } catch (IOException e) {
            return Files.getFileStore(real).isReadOnly();
        }
        Path best = null;
        boolean readOnly = false;
        for (String line : lines) {
            String[] fields = line.split(" ");
            if (fields.length < 4) {
                continue;
            }
            Path point = Path.of(unescape(fields[1]));
            // a later line for the same point is mounted over the earlier one
            if (real.startsWith(point) && (best == null || point.getNameCount() >= best.getNameCount())) {
                best = point;
                readOnly = Arrays.asList(fields[3].split(",")).contains("ro");
            }
        }
        return readOnly;
    }

    /** The kernel writes a space, tab, newline and backslash in a mount point as octal escapes. */
    private static String unescape(String field) {
        StringBuilder out = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && i + 3 < field.length()
                    && field.substring(i + 1, i + 4).chars().allMatch(d -> d >= '0' && d <= '7')) {
                out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
