package org.archpool.orchestrator.output;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Writes an output file so that no reader ever sees it half-written: into a temporary file in the same folder, then
 * renamed over the target. The file gets the usual {@code rw-r--r--} permissions (a temporary file's are
 * owner-only). Folders on the way are created. Only a regular file is ever replaced: the path is checked again right
 * before the rename.
 */
public final class AtomicFile {

    /** Writes the file's contents to the stream it is given. */
    @FunctionalInterface
    public interface Content {
        void writeTo(OutputStream out) throws IOException;
    }

    private AtomicFile() {
    }

    public static void write(Path file, Content content) throws IOException {
        write(file, content, temp -> { });
    }

    /** Hears of the temporary file before it is written; may refuse it, and the file is removed. */
    @FunctionalInterface
    public interface Started {
        void accept(Path temp) throws IOException;
    }

    /** As {@link #write(Path, Content)}, telling {@code started} the temporary file's path before writing it. */
    public static void write(Path file, Content content, Started started) throws IOException {
        Path target = file.toAbsolutePath();
        Files.createDirectories(target.getParent());
        Path temp = Files.createTempFile(target.getParent(), "." + target.getFileName(), ".tmp");
        try {
            started.accept(temp);
            try (OutputStream out = Files.newOutputStream(temp)) {
                content.writeTo(out);
            }
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rw-r--r--"));
            }
            requireReplaceable(target);
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /**
     * Checks again, right before the rename, what {@code OutputPaths} checked before the build: that nothing but a
     * regular file is at the path (a device node, a pipe, a folder or a link put there while the build ran is never
     * replaced). What remains is the moment between this check and the rename; {@code rename(2)} cannot be told to
     * replace only regular files.
     */
    private static void requireReplaceable(Path target) throws IOException {
        PathKind kind = PathKind.of(target);
        if (kind != PathKind.MISSING && kind != PathKind.REGULAR_FILE) {
            throw new FileSystemException(target.toString(), null, kind.words() + " appeared at the path during the"
                    + " build, and archpool replaces only regular files; it was left as it is");
        }
    }

    public static void write(Path file, byte[] bytes) throws IOException {
        write(file, out -> out.write(bytes));
    }
}
