package org.archpool.worker.inspect;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * A {@link BoundedDecoder} for zlib data: streams it through an {@link Inflater}, so that only what the caller asks
 * for is held in memory. Close it to release the inflater's native memory.
 */
final class ZlibDecoder extends BoundedDecoder {

    private final Inflater inflater = new Inflater();

    /**
     * @param compressed the zlib stream, from the buffer's position to its limit; the buffer is not changed
     * @param size       how many bytes it must decode to
     * @param digest     updated with every byte produced
     * @param where      what holds the data, to start each message with
     */
    ZlibDecoder(ByteBuffer compressed, long size, MessageDigest digest, String where) {
        super(size, where, digest);
        inflater.setInput(compressed.duplicate());
    }

    @Override
    int decode(byte[] b, int off, int len) throws MalformedBinaryException {
        for (int attempt = 0; attempt < 16; attempt++) {
            int n;
            try {
                n = inflater.inflate(b, off, len);
            } catch (DataFormatException e) {
                throw new MalformedBinaryException(where + ": corrupt zlib data: " + e.getMessage(), e);
            }
            if (n > 0) {
                return n;
            }
            if (inflater.finished() || inflater.needsInput()) {
                return -1;
            }
            if (inflater.needsDictionary()) {
                throw new MalformedBinaryException(where + ": zlib data needs a preset dictionary");
            }
        }
        throw new MalformedBinaryException(where + ": the zlib decoder makes no progress");
    }

    @Override
    void finish() throws MalformedBinaryException {
        if (decode(new byte[1], 0, 1) > 0) {
            throw moreThanDeclared();
        }
        if (!inflater.finished()) {
            throw new MalformedBinaryException(where + ": the zlib stream is truncated: it does not end"
                    + " after the declared " + size + " bytes");
        }
        if (inflater.getRemaining() > 0) {
            throw new MalformedBinaryException(where + ": " + inflater.getRemaining()
                    + " bytes follow the end of the zlib stream inside the bundle");
        }
    }

    @Override
    public void close() {
        inflater.end();
    }
}
