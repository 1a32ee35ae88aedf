package org.archpool.orchestrator.cache;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Where entries are kept, in the layout of Bazel's HTTP cache: action entries under {@code ac/<key>}, blobs under
 * {@code cas/<sha256>}. A folder on this machine ({@link DiskCache}) or a server ({@link HttpCache}). Nothing read
 * is trusted: the caller checks every blob against its digest and every entry against its key.
 */
public interface CacheBackend {

    /** @return the entry stored under {@code key}, or null when there is none */
    byte[] readAction(String key) throws IOException;

    /** Stores {@code entry} under {@code key}, replacing any; readers see the old or the new one, never a part. */
    void writeAction(String key, byte[] entry) throws IOException;

    /**
     * Copies the blob {@code sha256} into {@code into}, which must not exist.
     *
     * @return false when the backend has no such blob
     */
    boolean readBlob(String sha256, Path into) throws IOException;

    /** Whether the blob is there, so that it need not be sent again. */
    boolean hasBlob(String sha256) throws IOException;

    /** Stores the file {@code from}, whose digest is {@code sha256}. */
    void writeBlob(String sha256, Path from) throws IOException;

    /** Removes the entry under {@code key} (one that was rejected); absent is not an error. */
    void removeAction(String key) throws IOException;

    /** Where it is, for messages: a folder or a URL without credentials. */
    String describe();
}
