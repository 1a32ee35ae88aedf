package org.archpool.worker.exec;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Reads {@code /proc/PID/stat}: which live processes belong to a session. */
final class ProcStat {

    private static final Path PROC = Path.of("/proc");

    private ProcStat() {
    }

    /** The live (not zombie) processes whose session id is {@code sid}, this process never among them. */
    static List<ProcessHandle> inSession(long sid) {
        List<ProcessHandle> found = new ArrayList<>();
        long self = ProcessHandle.current().pid();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(PROC, ProcStat::isPid)) {
            for (Path entry : entries) {
                long pid = Long.parseLong(entry.getFileName().toString());
                if (pid != self && session(entry.resolve("stat")).filter(s -> s == sid).isPresent()) {
                    ProcessHandle.of(pid).ifPresent(found::add);
                }
            }
        } catch (IOException e) {
            return found;
        }
        return found;
    }

    /**
     * The session id in a {@code stat} line, or empty for a zombie or a process that is gone. The command name
     * is in parentheses and may hold anything, so fields are counted after the last {@code ')'}: state,
     * ppid, pgrp, session.
     */
    static Optional<Long> session(Path stat) {
        String line;
        try {
            line = Files.readString(stat);
        } catch (IOException e) {
            return Optional.empty();
        }
        return parseSession(line);
    }

    static Optional<Long> parseSession(String line) {
        int close = line.lastIndexOf(')');
        if (close < 0) {
            return Optional.empty();
        }
        String[] fields = line.substring(close + 1).strip().split(" ");
        if (fields.length < 4 || fields[0].equals("Z") || fields[0].equals("X")) {
            return Optional.empty();
        }
        try {
            return Optional.of(Long.parseLong(fields[3]));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static boolean isPid(Path entry) {
        String name = entry.getFileName().toString();
        return !name.isEmpty() && name.chars().allMatch(Character::isDigit);
    }
}
