package org.archpool.worker.exec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * This process's effective user and group ids, as {@code /proc/self/status} gives them: what a user namespace
 * maps its processes back to, so that they run as the user and files they create are the user's.
 */
public record ProcessIds(long uid, long gid) {

    /** This process's ids; {@code 0, 0} is root. Unreadable {@code /proc}: the ids of {@code nobody}, not root. */
    public static ProcessIds current() {
        try {
            List<String> status = Files.readAllLines(Path.of("/proc/self/status"));
            return new ProcessIds(effective(status, "Uid:"), effective(status, "Gid:"));
        } catch (IOException | RuntimeException e) {
            return new ProcessIds(65534, 65534);
        }
    }

    public boolean isRoot() {
        return uid == 0;
    }

    private static long effective(List<String> status, String field) {
        return status.stream().filter(l -> l.startsWith(field))
                .map(l -> l.substring(field.length()).strip().split("\\s+")[1])
                .mapToLong(Long::parseLong)
                .findFirst().orElseThrow();
    }
}
