package org.archpool.worker.inspect;

/**
 * The bytes given to {@link OffloadBundle} do not follow the clang offload bundle layout it documents: a bad magic
 * number, an unsupported compressed bundle version or compression method, a table entry that points outside the
 * bundle or overlaps another one, compressed data that is corrupt, truncated, or decompresses to a size other than
 * the one its header declares, or a zstd frame this pure-Java reader cannot decompress.
 */
public class OffloadBundleFormatException extends MalformedBinaryException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong, including the offset where it helps
     */
    public OffloadBundleFormatException(String message) {
        super(message);
    }

    /**
     * @param message what is wrong
     * @param cause   the exception this one adds context to, such as the decompressor's
     */
    public OffloadBundleFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
