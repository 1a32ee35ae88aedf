package org.archpool.orchestrator.output;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

/** What a file-system error means, in words for a message (the system's own reason, as it says it): no exception class names. */
public final class FileErrors {

    private FileErrors() {
    }

    public static String describe(IOException e) {
        if (e instanceof AccessDeniedException denied) {
            return "permission denied on " + denied.getFile();
        }
        if (e instanceof FileAlreadyExistsException exists) {
            return exists.getFile() + " is in the way: something is already there where a folder or a new file"
                    + " is needed";
        }
        if (e instanceof NoSuchFileException missing) {
            return "no such file or folder: " + missing.getFile();
        }
        if (e instanceof FileSystemException fs && fs.getReason() != null) {
            return fs.getReason() + (fs.getFile() == null ? "" : " (" + fs.getFile() + ")");
        }
        return e.getMessage() != null ? e.getMessage() : "an input/output error";
    }
}
