package org.archpool.worker.inspect;

/**
 * The bytes given to {@link ArArchive} are not a Unix {@code ar} archive it can read: a bad magic string, a thin
 * archive (whose members are not inside it), a member header that is truncated or has a bad size or terminator, or
 * a member name that refers to a missing or too short long-name table.
 */
public class ArArchiveFormatException extends MalformedBinaryException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong, including the offset where it helps
     */
    public ArArchiveFormatException(String message) {
        super(message);
    }
}
