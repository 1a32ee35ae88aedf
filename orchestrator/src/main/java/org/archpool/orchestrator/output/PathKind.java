package org.archpool.orchestrator.output;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/** What is at a path, seen without following a symbolic link: {@code lstat}'s file type. */
public enum PathKind {
    MISSING("nothing"),
    REGULAR_FILE("a regular file"),
    FOLDER("a folder"),
    SYMBOLIC_LINK("a symbolic link"),
    CHARACTER_DEVICE("a character device"),
    BLOCK_DEVICE("a block device"),
    FIFO("a named pipe (FIFO)"),
    SOCKET("a socket"),
    OTHER("a special file");

    private static final int S_IFMT = 0170000;
    /** {@code ENOTDIR}'s text, as the JDK gives it in a {@link FileSystemException}'s reason. */
    private static final String NOT_A_DIRECTORY = "Not a directory";

    private final String words;

    PathKind(String words) {
        this.words = words;
    }

    /** "a character device", "a folder", …: for messages. */
    public String words() {
        return words;
    }

    /** What is at {@code path} itself (a link is not followed). */
    public static PathKind of(Path path) throws IOException {
        return classify(path, LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * What {@code path} leads to, links followed; {@link #MISSING} for a link that leads nowhere. Works where a
     * link does not lead to a path (a pipe in {@code /dev/fd}).
     */
    public static PathKind followed(Path path) throws IOException {
        return classify(path);
    }

    private static PathKind classify(Path path, LinkOption... options) throws IOException {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(path, BasicFileAttributes.class, options);
        } catch (NoSuchFileException e) {
            return MISSING;
        } catch (FileSystemException e) {
            if (NOT_A_DIRECTORY.equals(e.getReason())) {
                return MISSING; // a name under a file: nothing is there (what is in the way is the file)
            }
            throw e;
        }
        if (a.isRegularFile()) {
            return REGULAR_FILE;
        }
        if (a.isDirectory()) {
            return FOLDER;
        }
        if (a.isSymbolicLink()) {
            return SYMBOLIC_LINK;
        }
        return special(path, options);
    }

    private static PathKind special(Path path, LinkOption... options) throws IOException {
        Object mode;
        try {
            mode = Files.getAttribute(path, "unix:mode", options);
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            return OTHER;
        }
        return ofMode((Integer) mode);
    }

    /** The kind that {@code st_mode}'s file type bits name. */
    static PathKind ofMode(int mode) {
        return switch (mode & S_IFMT) {
            case 0100000 -> REGULAR_FILE;
            case 0040000 -> FOLDER;
            case 0120000 -> SYMBOLIC_LINK;
            case 0020000 -> CHARACTER_DEVICE;
            case 0060000 -> BLOCK_DEVICE;
            case 0010000 -> FIFO;
            case 0140000 -> SOCKET;
            default -> OTHER;
        };
    }
}
