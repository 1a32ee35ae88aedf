package org.archpool.orchestrator.service;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection's {@link Outbox}: messages are encoded and queued by whoever sends them, and written by a thread of
 * the connection's own, so that a client that reads slowly never stalls the scheduler, a worker or another
 * client. The queue is bounded: a client whose oldest unwritten reply has waited longer than {@code stallLimit},
 * or whose unwritten replies exceed {@code maxQueuedBytes}, does not read; it is disconnected (said in
 * {@code @archpool.log}) and {@code onGone} is told, as it is when a write fails. A write that blocks is watched
 * on its own, so that a client that stops reading is disconnected also when nothing more is sent to it. Ending the
 * connection closes {@code connection}, which must end a write blocked on it (a channel's close does; the close
 * of a {@code PrintStream} waits for the lock that the blocked write holds).
 */
public final class ConnectionWriter implements Outbox {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionWriter.class);

    /** How long a client may leave a reply unread by default before it is disconnected. */
    public static final Duration DEFAULT_STALL_LIMIT = Duration.ofSeconds(30);
    /** How many bytes of replies may wait for a client by default. */
    public static final long DEFAULT_MAX_QUEUED_BYTES = 64L << 20;

    private record Pending(byte[] bytes, long queuedAtMs) {
    }

    private final ServiceCodec codec = new ServiceCodec();
    private final OutputStream out;
    private final Closeable connection;
    private final String name;
    private final Clock clock;
    private final Duration stallLimit;
    private final long maxQueuedBytes;
    private final Consumer<String> onGone;
    private final Thread thread;

    // guarded by this
    private final Deque<Pending> queue = new ArrayDeque<>();
    private long queuedBytes;
    private boolean closing;
    private boolean ended;
    /** When the write under way began, or -1 between writes. */
    private long writingSinceMs = -1;
    /** Whether a stall check is scheduled (at most one at a time). */
    private boolean watching;

    /**
     * @param connection closed to end the connection (its output and input with it)
     * @param onGone     told why, once, when the connection ends other than by {@link #close()}
     */
    public ConnectionWriter(OutputStream out, Closeable connection, String name, Clock clock, Duration stallLimit,
                            long maxQueuedBytes, Consumer<String> onGone) {
        this.out = out;
        this.connection = connection;
        this.name = name;
        this.clock = clock;
        this.stallLimit = stallLimit;
        this.maxQueuedBytes = maxQueuedBytes;
        this.onGone = onGone;
        this.thread = new Thread(this::writeLoop, "archpool-serve-writer-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void send(ServerMessage message) {
        byte[] bytes = codec.encode(message);
        String stalled;
        synchronized (this) {
            if (closing || ended) {
                return;
            }
            long now = clock.millis();
            Pending oldest = queue.peekFirst();
            if (oldest != null && now - oldest.queuedAtMs() > stallLimit.toMillis()) {
                stalled = "it has not read its replies for " + (now - oldest.queuedAtMs()) + " ms";
            } else if (queuedBytes + bytes.length > maxQueuedBytes) {
                stalled = "its unread replies would exceed " + maxQueuedBytes + " bytes";
            } else {
                queue.addLast(new Pending(bytes, now));
                queuedBytes += bytes.length;
                notifyAll();
                return;
            }
        }
        LOG.warn("{} disconnected: {}", name, stalled);
        end("disconnected: " + stalled);
    }

    /** Writes what is queued, then ends the connection; waits for that at most {@code patience}. */
    public void close(Duration patience) {
        close();
        if (patience.isZero() || patience.isNegative()) {
            end(null);
            return;
        }
        try {
            thread.join(patience.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.warn("{} did not read its last replies within {} ms; disconnected", name, patience.toMillis());
            end(null);
        }
    }

    /** Whether the connection has not ended yet. */
    public synchronized boolean isOpen() {
        return !ended;
    }

    @Override
    public synchronized void close() {
        closing = true;
        notifyAll();
    }

    private void writeLoop() {
        while (true) {
            Pending next;
            synchronized (this) {
                while (queue.isEmpty() && !closing && !ended) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
                if (ended || queue.isEmpty()) {
                    break;
                }
                next = queue.peekFirst();
            }
            try {
                writing();
                out.write(next.bytes());
                out.flush();
            } catch (IOException e) {
                end("a write to it failed: " + e.getMessage());
                return;
            }
            synchronized (this) {
                writingSinceMs = -1;
                if (queue.peekFirst() == next) {
                    queue.removeFirst();
                    queuedBytes -= next.bytes().length;
                }
            }
        }
        end(null);
    }

    /** A write begins: the stall check is scheduled unless one already is. */
    private synchronized void writing() {
        writingSinceMs = clock.millis();
        if (!watching) {
            watching = true;
            checkStallIn(stallLimit.toMillis());
        }
    }

    private void checkStallIn(long ms) {
        CompletableFuture.delayedExecutor(ms, TimeUnit.MILLISECONDS).execute(this::checkStall);
    }

    /** Disconnects a client that has not taken a write for {@code stallLimit}; else checks again when it could. */
    private void checkStall() {
        long stalledMs;
        synchronized (this) {
            watching = false;
            if (ended || writingSinceMs < 0) {
                return;
            }
            stalledMs = clock.millis() - writingSinceMs;
            if (stalledMs < stallLimit.toMillis()) {
                watching = true;
                checkStallIn(stallLimit.toMillis() - stalledMs);
                return;
            }
        }
        String stalled = "it has not read its replies for " + stalledMs + " ms";
        LOG.warn("{} disconnected: {}", name, stalled);
        end("disconnected: " + stalled);
    }

    /** Ends the connection once; {@code why} (null after a close) goes to {@code onGone}. */
    private void end(String why) {
        synchronized (this) {
            if (ended) {
                return;
            }
            ended = true;
            queue.clear();
            queuedBytes = 0;
            notifyAll();
        }
        try {
            connection.close();
        } catch (IOException e) {
            LOG.debug("closing {}: {}", name, e.toString());
        }
        if (why != null) {
            onGone.accept(why);
        }
    }
}
