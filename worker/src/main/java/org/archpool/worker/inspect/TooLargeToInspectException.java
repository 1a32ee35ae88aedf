package org.archpool.worker.inspect;

import java.io.IOException;

/**
 * A file's headers claim more than the inspector reads within its memory budget ({@link InspectLimits}): more
 * sections, members, entries or metadata values than any real GPU build produces, or a table or frame larger
 * than what is read into memory. Distinct from a {@link MalformedBinaryException}: the file may be valid, but it
 * was not read, so what it holds is unknown.
 */
public final class TooLargeToInspectException extends IOException {

    private static final long serialVersionUID = 1L;

    /** @param message what is too large, how large, and the limit */
    public TooLargeToInspectException(String message) {
        super(message);
    }
}
