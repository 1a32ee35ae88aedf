package org.archpool.orchestrator.report;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Writes an output file so that no reader ever sees it half-written: into a temporary file in the same folder, then
 * renamed over the target. The file gets the usual {@code rw-r--r--} permissions (a temporary file's are
 * owner-only). Folders on the way are created.
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
    interface Started {
        void accept(Path temp) throws IOException;
    }

    /** As {@link #write(Path, Content)}, telling {@code started} the temporary file's path before writing it. */
    static void write(Path file, Content content, Started started) throws IOException {
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
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    public static void write(Path file, byte[] bytes) throws IOException {
        write(file, out -> out.write(bytes));
    }
}
