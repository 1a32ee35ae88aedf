package org.archpool.protocol.codec;

import java.io.IOException;
import java.io.OutputStream;
import org.archpool.protocol.Message;

/** Writes messages, one per line, flushing each; safe to call from several threads. */
public final class MessageWriter implements AutoCloseable {

    private final OutputStream out;
    private final MessageCodec codec;

    public MessageWriter(OutputStream out, MessageCodec codec) {
        this.out = out;
        this.codec = codec;
    }

    public MessageWriter(OutputStream out) {
        this(out, new MessageCodec());
    }

    public void write(Message message) throws IOException {
        byte[] bytes = codec.encode(message);
        synchronized (this) {
            out.write(bytes);
            out.write('\n');
            out.flush();
        }
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
