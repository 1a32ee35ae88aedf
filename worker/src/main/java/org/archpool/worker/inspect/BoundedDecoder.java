package org.archpool.worker.inspect;

import java.security.MessageDigest;
import java.util.Arrays;

/**
 * A decoder of compressed data whose decoded size its container declares: it produces those bytes in order, counts
 * them, and passes each through a digest, so that the container's hash can be checked once all are read. It never
 * produces more than the declared size: callers only ask for bytes inside it (asking for more is a programming
 * error), and {@link #finish()} checks that the data ends there. Data that decodes to more or fewer bytes, or is
 * corrupt, is rejected with a {@link MalformedBinaryException}. Buffers grow with the bytes that actually arrive,
 * never with the declared size alone.
 *
 * <p>{@link ZlibDecoder} streams zlib; {@link BoundedZstd} chooses how to decode zstd.
 */
abstract sealed class BoundedDecoder implements AutoCloseable
        permits ZlibDecoder, BoundedZstd.WholeFrameDecoder, BoundedZstd.StreamDecoder {

    /** Buffers for {@link #readBytes(int)} start at most this large and double as data arrives. */
    private static final int INITIAL_BUFFER = 1 << 20;

    /** How many bytes the data must decode to. */
    final long size;
    /** What holds the data, to start each message with. */
    final String where;
    private final MessageDigest digest;
    private long produced;
    private byte[] scratch;

    /**
     * @param size   how many bytes the data must decode to
     * @param where  what holds the data, to start each message with
     * @param digest updated with every byte produced, skipped ones included
     */
    BoundedDecoder(long size, String where, MessageDigest digest) {
        this.size = size;
        this.where = where;
        this.digest = digest;
    }

    /** @return how many bytes were decoded into {@code b}, at least 1, or -1 at the end of the data */
    abstract int decode(byte[] b, int off, int len) throws MalformedBinaryException;

    /**
     * Checks, once all declared bytes were produced, that the compressed data ends there.
     *
     * @throws MalformedBinaryException if more data follows, or the compressed data is truncated
     */
    abstract void finish() throws MalformedBinaryException;

    /** Releases what the decoder holds outside the heap; the default holds nothing. */
    @Override
    public void close() {
    }

    /**
     * Decodes exactly {@code len} bytes into {@code b}.
     *
     * @throws MalformedBinaryException if the data ends first or is corrupt
     */
    void readFully(byte[] b, int off, int len) throws MalformedBinaryException {
        if (len > size - produced) {
            throw new IllegalStateException("asked for bytes past the declared size"); // callers check first
        }
        int done = 0;
        while (done < len) {
            int n = decode(b, off + done, len - done);
            if (n < 0) {
                throw new MalformedBinaryException(where + " decompresses to only " + (produced + done)
                        + " bytes, but its header declares " + size);
            }
            done += n;
        }
        digest.update(b, off, len);
        produced += len;
    }

    /** Decodes and discards bytes up to {@code offset}, which is at or after the bytes produced so far. */
    void skipTo(long offset) throws MalformedBinaryException {
        if (scratch == null) {
            scratch = new byte[64 << 10];
        }
        while (produced < offset) {
            readFully(scratch, 0, (int) Math.min(scratch.length, offset - produced));
        }
    }

    /** @return the next {@code length} bytes, in an array that grows as they arrive */
    byte[] readBytes(int length) throws MalformedBinaryException {
        byte[] buffer = new byte[Math.min(length, INITIAL_BUFFER)];
        int filled = 0;
        while (true) {
            readFully(buffer, filled, buffer.length - filled);
            filled = buffer.length;
            if (filled == length) {
                return buffer;
            }
            buffer = Arrays.copyOf(buffer, (int) Math.min(length, 2L * buffer.length));
        }
    }

    /** @return the exception for data that decodes to more than the declared size */
    MalformedBinaryException moreThanDeclared() {
        return new MalformedBinaryException(where + " decompresses to more than the " + size
                + " bytes its header declares");
    }
}
