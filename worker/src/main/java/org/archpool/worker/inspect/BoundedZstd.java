package org.archpool.worker.inspect;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Arrays;

import io.airlift.compress.zstd.ZstdDecompressor;
import io.airlift.compress.zstd.ZstdInputStream;

/**
 * Decodes zstd data of a declared size within bounds on memory, in pure Java (aircompressor). The data must be
 * exactly one frame ({@link ZstdFrame}) whose content size, when it states one, is the declared size; how it is
 * decoded depends on the frame:
 * <ul>
 *   <li>a frame with a single segment has no window, so any decoder must keep its whole content: it is decoded in
 *       one pass into an array of exactly the declared size, if that is at most the bound the caller passes
 *       (aircompressor's streaming decoder would keep the same bytes, and takes quadratic time above 8 MiB);</li>
 *   <li>other frames are streamed, when their window is at most {@value #MAX_WINDOW_BYTES} bytes, the most
 *       aircompressor supports; frames with larger windows are rejected as unsupported.</li>
 * </ul>
 */
final class BoundedZstd {

    /** The largest zstd window aircompressor supports. */
    static final long MAX_WINDOW_BYTES = 8L << 20;

    private BoundedZstd() {
    }

    /**
     * Reads the frame header of zstd data and chooses how to decode it.
     *
     * @param compressed    the data, from the buffer's position to its limit; the buffer is not changed
     * @param size          how many bytes it must decode to
     * @param maxWholeBytes the largest single-segment frame decoded (it is held in memory whole)
     * @param digest        updated with every byte produced
     * @param where         what holds the data, to start each message with
     * @return a decoder of the data
     * @throws MalformedBinaryException if the data is not one well-formed frame of that size, or its frame is beyond
     *                                  the bounds above; a single-segment frame is decoded at once, so any
     *                                  corruption in it is reported here too
     */
    static BoundedDecoder decoder(ByteBuffer compressed, long size, long maxWholeBytes, MessageDigest digest,
            String where) throws MalformedBinaryException {
        ZstdFrame frame = ZstdFrame.parse(compressed, where);
        if (frame.length() != compressed.remaining()) {
            throw new MalformedBinaryException(where + ": " + (compressed.remaining() - frame.length())
                    + " bytes follow the zstd frame inside the bundle (LLVM writes a single frame)");
        }
        if (frame.contentSize() >= 0 && frame.contentSize() != size) {
            throw new MalformedBinaryException(where + ": its zstd frame declares "
                    + Long.toUnsignedString(frame.contentSize()) + " bytes of content, its header " + size);
        }
        if (frame.singleSegment()) {
            if (size > maxWholeBytes) {
                throw new MalformedBinaryException(where + " was not read: its zstd frame has a single "
                        + "segment of " + size + " bytes, which would all have to be held in memory, and at most "
                        + maxWholeBytes + " are");
            }
            if (compressed.remaining() > maxWholeBytes) {
                throw new MalformedBinaryException(where + " is not read: its zstd frame must be decoded whole, and"
                        + " its " + compressed.remaining() + " compressed bytes are more than the " + maxWholeBytes
                        + " that are");
            }
            return new WholeFrameDecoder(decodeWhole(compressed, (int) size, where), digest, where);
        }
        if (frame.windowSize() > MAX_WINDOW_BYTES) {
            throw new MalformedBinaryException(where + " is not supported: its zstd frame uses a window of "
                    + (frame.windowSize() >> 20) + " MiB, and the pure-Java zstd decoder supports at most "
                    + (MAX_WINDOW_BYTES >> 20) + " MiB (LLVM uses a 128 MiB window for bundles over 128 MiB)");
        }
        return new StreamDecoder(compressed, size, digest, where);
    }

    /** Decodes all of {@code compressed}, which must produce exactly {@code size} bytes. */
    private static byte[] decodeWhole(ByteBuffer compressed, int size, String where)
            throws MalformedBinaryException {
        byte[] input = new byte[compressed.remaining()];
        compressed.duplicate().get(input);
        byte[] output = new byte[size + 1]; // one more, to tell "more than declared" from other errors
        int produced;
        try {
            produced = new ZstdDecompressor().decompress(input, 0, input.length, output, 0, output.length);
        } catch (RuntimeException e) { // aircompressor reports malformed input with unchecked exceptions
            throw new MalformedBinaryException(where + ": corrupt zstd data: " + e.getMessage(), e);
        }
        if (produced != size) {
            throw new MalformedBinaryException(where + " decompresses to " + (produced > size ? "more than " : "")
                    + Math.min(produced, size) + " bytes, but its header declares " + size);
        }
        return produced == output.length ? output : Arrays.copyOf(output, size);
    }

    /** Serves the bytes of a single-segment frame, decoded in one pass. */
    static final class WholeFrameDecoder extends BoundedDecoder {
        private final byte[] data;
        private int pos;

        WholeFrameDecoder(byte[] data, MessageDigest digest, String where) {
            super(data.length, where, digest);
            this.data = data;
        }

        @Override
        int decode(byte[] b, int off, int len) {
            if (pos == data.length) {
                return -1;
            }
            int n = Math.min(len, data.length - pos);
            System.arraycopy(data, pos, b, off, n);
            pos += n;
            return n;
        }

        @Override
        void finish() {
            // decodeWhole already checked the size, and aircompressor that no input is left over
        }
    }

    /** Streams a frame with a window through aircompressor's {@link ZstdInputStream}. */
    static final class StreamDecoder extends BoundedDecoder {
        private final ZstdInputStream stream;

        StreamDecoder(ByteBuffer compressed, long size, MessageDigest digest, String where) {
            super(size, where, digest);
            this.stream = new ZstdInputStream(new BufferInputStream(compressed.duplicate()));
        }

        @Override
        int decode(byte[] b, int off, int len) throws MalformedBinaryException {
            int n;
            try {
                n = stream.read(b, off, len);
            } catch (IOException | RuntimeException e) { // IOException: truncated; unchecked: malformed
                throw new MalformedBinaryException(where + ": corrupt or truncated zstd data: "
                        + e.getMessage(), e);
            }
            return n <= 0 ? -1 : n;
        }

        @Override
        void finish() throws MalformedBinaryException {
            if (decode(new byte[1], 0, 1) > 0) {
                throw moreThanDeclared();
            }
        }
    }

    /** An input stream over a buffer's remaining bytes. */
    private static final class BufferInputStream extends InputStream {
        private final ByteBuffer buffer;

        BufferInputStream(ByteBuffer buffer) {
            this.buffer = buffer;
        }

        @Override
        public int read() {
            return buffer.hasRemaining() ? buffer.get() & 0xff : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (len == 0) {
                return 0;
            }
            if (!buffer.hasRemaining()) {
                return -1;
            }
            int n = Math.min(len, buffer.remaining());
            buffer.get(b, off, n);
            return n;
        }
    }
}
