package org.archpool.protocol.codec;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import org.archpool.protocol.Message;

/**
 * Reads messages, one per line, from a stream. Lines longer than the limit are rejected without being held
 * in memory whole. Not thread-safe: one reader thread per stream.
 */
public final class MessageReader {

    /** The default longest line: 4 MiB. */
    public static final int DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;

    private final InputStream in;
    private final MessageCodec codec;
    private final int maxLineBytes;
    private final byte[] buffer = new byte[8192];
    private int bufferPos;
    private int bufferEnd;

    public MessageReader(InputStream in, MessageCodec codec, int maxLineBytes) {
        if (maxLineBytes < 64) {
            throw new IllegalArgumentException("maxLineBytes must be at least 64");
        }
        this.in = in;
        this.codec = codec;
        this.maxLineBytes = maxLineBytes;
    }

    public MessageReader(InputStream in) {
        this(in, new MessageCodec(), DEFAULT_MAX_LINE_BYTES);
    }

    /**
     * The next message. Blank lines are skipped.
     *
     * @throws EOFException      at the end of the stream (a partial last line is a protocol error)
     * @throws ProtocolException when the line is too long or not a message; the stream stays usable
     */
    public Message read() throws IOException, ProtocolException {
        while (true) {
            byte[] line = new byte[256];
            int length = 0;
            boolean overflow = false;
            while (true) {
                if (bufferPos == bufferEnd && !fill()) {
                    if (length == 0 && !overflow) {
                        throw new EOFException("end of stream");
                    }
                    throw new ProtocolException("stream ended inside a line", line, length, null);
                }
                byte b = buffer[bufferPos++];
                if (b == '\n') {
                    break;
                }
                if (overflow) {
                    continue;
                }
                if (length == maxLineBytes) {
                    overflow = true;
                    continue;
                }
                if (length == line.length) {
                    line = Arrays.copyOf(line, Math.min(maxLineBytes, line.length * 2));
                }
                line[length++] = b;
            }
            if (overflow) {
                throw new ProtocolException("line longer than " + maxLineBytes + " bytes", line, length, null);
            }
            if (length > 0 && line[length - 1] == '\r') {
                length--;
            }
            if (isBlank(line, length)) {
                continue;
            }
            return codec.decode(line, length);
        }
    }

    private boolean fill() throws IOException {
        int n = in.read(buffer, 0, buffer.length);
        if (n <= 0) {
            return false;
        }
        bufferPos = 0;
        bufferEnd = n;
        return true;
    }

    private static boolean isBlank(byte[] line, int length) {
        for (int i = 0; i < length; i++) {
            if (line[i] != ' ' && line[i] != '\t') {
                return false;
            }
        }
        return true;
    }
}
