package org.archpool.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Finds processes by a marker in their command line, read from {@code /proc}, so that a test sees the
 * processes a job started whatever PID namespace they run in, and never finds or kills another's. A marker is
 * unique per test ({@link #newMarker}); a job carries it in an argument or in the name of a program link
 * ({@link #markedSleep}).
 */
public final class MarkedProcesses {

    private MarkedProcesses() {
    }

    /** A marker no other process has: {@code archpool-mark-} and a random UUID. */
    public static String newMarker() {
        return "archpool-mark-" + UUID.randomUUID();
    }

    /** A link to {@code sleep} in {@code dir} whose name is {@code marker}: every process it runs carries it. */
    public static Path markedSleep(Path dir, String marker) throws IOException {
        Path sleep = Files.isExecutable(Path.of("/usr/bin/sleep")) ? Path.of("/usr/bin/sleep") : Path.of("/bin/sleep");
        return Files.createSymbolicLink(dir.resolve(marker), sleep);
    }

    /** The live processes whose command line contains {@code marker} (zombies left out); never this one. */
    public static List<ProcessHandle> alive(String marker) {
        List<ProcessHandle> found = new ArrayList<>();
        long self = ProcessHandle.current().pid();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(Path.of("/proc"),
                p -> p.getFileName().toString().chars().allMatch(Character::isDigit))) {
            for (Path entry : entries) {
                long pid = Long.parseLong(entry.getFileName().toString());
                if (pid != self && commandLine(entry).contains(marker) && !zombie(entry)) {
                    ProcessHandle.of(pid).ifPresent(found::add);
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc", e);
        }
        return found;
    }

    /** Kills what a failed test left (only processes that carry the marker). */
    public static void killAll(String marker) {
        alive(marker).forEach(ProcessHandle::destroyForcibly);
    }

    private static String commandLine(Path proc) {
        try {
            return new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8).replace('\0', ' ');
        } catch (IOException e) {
            return "";
        }
    }

    private static boolean zombie(Path proc) {
        try {
            String stat = Files.readString(proc.resolve("stat"));
            String rest = stat.substring(stat.lastIndexOf(')') + 1).strip();
            return rest.startsWith("Z") || rest.startsWith("X");
        } catch (IOException | StringIndexOutOfBoundsException e) {
            return true;
        }
    }
}
