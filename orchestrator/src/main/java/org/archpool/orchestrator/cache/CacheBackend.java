package org.archpool.orchestrator.cache;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Where entries are kept, in the layout of Bazel's HTTP cache: action entries under {@code ac/<key>}, blobs under
 * {@code cas/<sha256>}. A folder on this machine ({@link DiskCache}) or a server ({@link HttpCache}). Nothing read
 * is trusted: the caller checks every blob against its digest and every entry against its key, and a blob is read no
 * further than one byte past the size its entry records.
 */
public interface CacheBackend {

    /** @return the entry stored under {@code key}, or null when there is none */
    byte[] readAction(String key) throws IOException;

    /** Stores {@code entry} under {@code key}, replacing any; readers see the old or the new one, never a part. */
    void writeAction(String key, byte[] entry) throws IOException;

    /**
     * Copies the blob {@code sha256}, which its entry records as {@code size} bytes long, into {@code into}, which
     * must not exist. At most {@code size + 1} bytes are read: a blob of another size is {@link WrongSize}, and
     * {@code into} is removed.
     *
     * @return false when the backend has no such blob
     * @throws WrongSize when the blob is longer or shorter than {@code size}
     */
    boolean readBlob(String sha256, long size, Path into) throws IOException;

    /** Whether the blob is there, so that it need not be sent again. */
    boolean hasBlob(String sha256) throws IOException;

    /** Stores the file {@code from}, whose digest is {@code sha256}. */
    void writeBlob(String sha256, Path from) throws IOException;

    /** Removes the entry under {@code key} (one that was rejected); absent is not an error. */
    void removeAction(String key) throws IOException;

    /** Where it is, for messages: a folder or a URL without credentials. */
    String describe();

    /**
     * What was read is not the size it must be: an answer from {@code ac/} longer than {@link ActionEntry#MAX_BYTES},
     * or a blob longer or shorter than its entry records. Reading stopped at the first byte too many, and nothing
     * read is kept. A blob of the wrong size is a damaged blob, like one whose bytes do not match its digest.
     */
    final class WrongSize extends IOException {
        WrongSize(String message) {
            super(message);
        }

        WrongSize(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
