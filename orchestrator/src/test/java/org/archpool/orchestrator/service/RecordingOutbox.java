package org.archpool.orchestrator.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** An in-memory connection: what the service sends, in order, for a test to take one at a time. */
final class RecordingOutbox implements Outbox {

    private final BlockingQueue<ServerMessage> messages = new LinkedBlockingQueue<>();
    private volatile boolean closed;

    @Override
    public void send(ServerMessage message) {
        if (!closed) {
            messages.add(message);
        }
    }

    @Override
    public void close() {
        closed = true;
    }

    boolean closed() {
        return closed;
    }

    /** The next message, which must be a {@code type}, within 20 s. */
    <T extends ServerMessage> T next(Class<T> type) {
        ServerMessage m;
        try {
            m = messages.poll(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        assertThat(m).as("the next message").isNotNull().isInstanceOf(type);
        return type.cast(m);
    }

    /** Nothing more arrives within {@code ms}. */
    void nothingWithin(long ms) throws InterruptedException {
        assertThat(messages.poll(ms, TimeUnit.MILLISECONDS)).as("no further message").isNull();
    }

    /** What has arrived and not been taken. */
    List<ServerMessage> drain() {
        List<ServerMessage> out = new ArrayList<>();
        messages.drainTo(out);
        return out;
    }
}
