package org.archpool.worker;

import java.nio.file.Path;

/**
 * An artifact of a successful job could not be inspected at all: it cannot be read, or reading it would take more
 * memory than the inspector's budget. The job fails with this message, which names the file: a job whose output
 * was not checked must not be reported as if it had been.
 */
public final class UnreadableArtifactException extends Exception {

    private static final long serialVersionUID = 1L;

    private UnreadableArtifactException(String message, Throwable cause) {
        super(message, cause);
    }

    /** @param why what went wrong, in a few words */
    static UnreadableArtifactException of(Path file, String why, Throwable cause) {
        return new UnreadableArtifactException("cannot inspect the artifact " + file + ": " + why, cause);
    }
}
