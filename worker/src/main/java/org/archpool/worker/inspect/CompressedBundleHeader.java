package org.archpool.worker.inspect;

import static org.archpool.worker.inspect.Bytes.hex;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

import org.archpool.worker.inspect.OffloadBundle.Compression;

/**
 * The header of a compressed clang offload bundle ({@value OffloadBundle#COMPRESSED_MAGIC}), which the compressed
 * bytes of an uncompressed bundle follow: its version's layout is in {@link OffloadBundle}'s class comment. Parsing
 * checks every field against the bytes that are there.
 *
 * @param compression      how the bundle is compressed: {@link Compression#ZLIB} or {@link Compression#ZSTD}
 * @param headerSize       the header's size in bytes: 20, 24 or 32 by version
 * @param totalSize        the compressed bundle's size in bytes, header included
 * @param uncompressedSize the uncompressed bundle's size in bytes
 * @param hash             the first 8 bytes of the MD5 digest of the uncompressed bundle, read little-endian
 */
record CompressedBundleHeader(Compression compression, int headerSize, long totalSize, long uncompressedSize,
                              long hash) {

    private static final int METHOD_ZLIB = 0;
    private static final int METHOD_ZSTD = 1;

    /**
     * @param d     the data, little-endian
     * @param start the absolute index in it where the header, and its magic string, starts
     * @param where the bundle, to start each message with
     * @return the header
     * @throws OffloadBundleFormatException if the header is truncated, of an unknown version or method, or declares
     *                                      sizes that do not fit
     */
    static CompressedBundleHeader parse(ByteBuffer d, int start, String where) throws OffloadBundleFormatException {
        long avail = d.limit() - start;
        if (avail < 8) {
            throw new OffloadBundleFormatException(where + " is truncated: " + avail + " bytes, 8 needed for its"
                    + " version and method");
        }
        int version = Short.toUnsignedInt(d.getShort(start + 4));
        int method = Short.toUnsignedInt(d.getShort(start + 6));
        int headerSize = switch (version) {
            case 1 -> 20;
            case 2 -> 24;
            case 3 -> 32;
            default -> throw new OffloadBundleFormatException(where + " has unsupported version " + version
                    + " (1, 2 and 3 are known)");
        };
        if (avail < headerSize) {
            throw new OffloadBundleFormatException(where + " is truncated: " + avail + " bytes, its version "
                    + version + " header needs " + headerSize);
        }
        long total;
        long uncompressed;
        long hash;
        switch (version) {
            case 1 -> {
                total = avail;
                uncompressed = Integer.toUnsignedLong(d.getInt(start + 8));
                hash = d.getLong(start + 12);
            }
            case 2 -> {
                total = Integer.toUnsignedLong(d.getInt(start + 8));
                uncompressed = Integer.toUnsignedLong(d.getInt(start + 12));
                hash = d.getLong(start + 16);
            }
            default -> {
                total = d.getLong(start + 8);
                uncompressed = d.getLong(start + 16);
                hash = d.getLong(start + 24);
            }
        }
        if (total < headerSize || total > avail) {
            throw new OffloadBundleFormatException(where + " declares a total size of "
                    + Long.toUnsignedString(total) + " bytes, outside " + headerSize + ".." + avail
                    + " (its header's size .. the bytes left)");
        }
        if (uncompressed < OffloadBundle.HEADER_SIZE) {
            throw new OffloadBundleFormatException(where + " declares an uncompressed size of "
                    + Long.toUnsignedString(uncompressed) + " bytes, which cannot hold a bundle header ("
                    + OffloadBundle.HEADER_SIZE + " bytes)");
        }
        Compression compression = switch (method) {
            case METHOD_ZLIB -> Compression.ZLIB;
            case METHOD_ZSTD -> Compression.ZSTD;
            default -> throw new OffloadBundleFormatException(where + " uses unknown compression method " + method
                    + " (0 = zlib, 1 = zstd)");
        };
        return new CompressedBundleHeader(compression, headerSize, total, uncompressed, hash);
    }

    /** @return a digest to pass the uncompressed bundle through, for {@link #checkHash} */
    static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has MD5", e);
        }
    }

    /**
     * @param digest a digest from {@link #newDigest()} that every byte of the uncompressed bundle went through
     * @param where  the bundle, to start the message with
     * @throws OffloadBundleFormatException if its hash is not the one this header states
     */
    void checkHash(MessageDigest digest, String where) throws OffloadBundleFormatException {
        long actual = ByteBuffer.wrap(digest.digest()).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
        if (actual != hash) {
            throw new OffloadBundleFormatException(where + ": the MD5 hash of the decompressed bundle, "
                    + hex(actual) + ", does not match the one in its header, " + hex(hash) + "; the data is corrupt");
        }
    }
}
