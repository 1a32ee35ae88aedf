package org.archpool.orchestrator.service;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Reads {@code \n}-terminated lines of at most {@code maxBytes} from a stream. A longer line is not kept: the rest
 * of it is read and dropped, and the reader says how long it was, so that one oversized message costs the
 * connection nothing but an error reply. Not thread-safe: one reader thread per connection.
 */
public final class LineReader {

    /** What one call read. */
    public sealed interface Line {
        /** A line, without its {@code \n} (the stream's last line may have lacked one). */
        record Text(byte[] bytes) implements Line {
        }

        /** A line longer than the limit, skipped; {@code bytes} is its length. */
        record TooLong(long bytes) implements Line {
        }
    }

    private final InputStream in;
    private final int maxBytes;
    private final byte[] buffer = new byte[64 * 1024];
    private int position;
    private int limit;

    public LineReader(InputStream in, int maxBytes) {
        this.in = in;
        this.maxBytes = maxBytes;
    }

    /** @return the next line, or null at the end of the stream */
    public Line next() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        long length = 0;
        boolean any = false;
        while (true) {
            if (position == limit) {
                limit = in.read(buffer);
                position = 0;
                if (limit <= 0) {
                    limit = 0;
                    if (!any) {
                        return null;
                    }
                    return length > maxBytes ? new Line.TooLong(length) : new Line.Text(line.toByteArray());
                }
            }
            any = true;
            int start = position;
            while (position < limit && buffer[position] != '\n') {
                position++;
            }
            int chunk = position - start;
            if (length + chunk <= maxBytes) {
                line.write(buffer, start, chunk);
            } else if (length <= maxBytes) {
                line = new ByteArrayOutputStream();
            }
            length += chunk;
            if (position < limit) {
                position++; // the \n
                return length > maxBytes ? new Line.TooLong(length) : new Line.Text(line.toByteArray());
            }
        }
    }
}
