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
    private final List<ServerMessage.Started> passedOver = new ArrayList<>();
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

    /**
     * The next message, which must be a {@code type}, within 20 s. Unless {@code type} is {@code Started},
     * {@code started} messages are passed over (they come whenever a slot takes a job; {@link #started()} lists
     * them).
     */
    <T extends ServerMessage> T next(Class<T> type) {
        while (true) {
            ServerMessage m;
            try {
                m = messages.poll(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            if (m instanceof ServerMessage.Started s && type != ServerMessage.Started.class) {
                passedOver.add(s);
                continue;
            }
            assertThat(m).as("the next message").isNotNull().isInstanceOf(type);
            return type.cast(m);
        }
    }

    /** The {@code started} messages {@link #next} passed over, in order. */
    List<ServerMessage.Started> started() {
        return List.copyOf(passedOver);
    }

    /** Nothing more arrives within {@code ms}. */
    void nothingWithin(long ms) throws InterruptedException {
        assertThat(messages.poll(ms, TimeUnit.MILLISECONDS)).as("no further message").isNull();
    }

    /** What has arrived and not been taken, {@code started} messages passed over as by {@link #next}. */
    List<ServerMessage> drain() {
        List<ServerMessage> out = new ArrayList<>();
        messages.drainTo(out);
        out.removeIf(m -> m instanceof ServerMessage.Started s && passedOver.add(s));
        return out;
    }
}
