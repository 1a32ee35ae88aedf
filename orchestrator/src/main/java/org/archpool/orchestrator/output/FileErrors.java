package org.archpool.orchestrator.output;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.util.Locale;

/** What a file-system error means, in words for a message: no exception class names. */
public final class FileErrors {

    private FileErrors() {
    }

    public static String describe(IOException e) {
        if (e instanceof AccessDeniedException denied) {
            return "permission denied on " + denied.getFile();
        }
        if (e instanceof FileAlreadyExistsException exists) {
            return exists.getFile() + " is in the way: something is already there";
        }
        if (e instanceof NoSuchFileException missing) {
            return "no such file or folder: " + missing.getFile();
        }
        if (e instanceof FileSystemException fs && fs.getReason() != null) {
            return fs.getReason().toLowerCase(Locale.ROOT) + (fs.getFile() == null ? "" : " (" + fs.getFile()
                    + ")");
        }
        return e.getMessage() != null ? e.getMessage() : "an input/output error";
    }
}
