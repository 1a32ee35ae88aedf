package org.archpool.orchestrator.service;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.time.Clock;
import java.time.Duration;

/**
 * One client over {@code serve}'s stdin and stdout (the client that started it). The end of stdin, a failed write
 * to stdout, or a client that stops reading ({@link ConnectionWriter}'s limits) means the client is gone: every job
 * is cancelled and {@code serve} shuts down.
 */
public final class StdioTransport implements Transport {

    private final InputStream in;
    private final OutputStream out;
    private final Clock clock;
    private final Duration stallLimit;
    private volatile ConnectionWriter writer;

    /**
     * @param out        {@code serve}'s stdout ({@link #standardOutput()}), which nothing else may write to; closing it
     *                   must end a write that blocks on it
     * @param stallLimit how long the client may leave a reply unread before it is disconnected
     */
    public StdioTransport(InputStream in, OutputStream out, Clock clock, Duration stallLimit) {
        this.in = in;
        this.out = out;
        this.clock = clock;
        this.stallLimit = stallLimit;
    }

    /**
     * The process's stdout as a stream that a close ends at once, also while a write blocks on a client that does
     * not read: a {@code FileChannel}'s close wakes a thread blocked in it. {@code System.out} would not do: its
     * close waits for the {@code PrintStream}'s lock, which a blocked write holds, and so would every thread that
     * ends the connection (a shutdown, a signal).
     */
    public static OutputStream standardOutput() {
        return Channels.newOutputStream(new FileOutputStream(FileDescriptor.out).getChannel());
    }

    @Override
    public void start(JobService service) {
        JobService.Connection[] connection = new JobService.Connection[1];
        Runnable ended = () -> service.shutdown(true, "the client closed serve's stdin or stopped reading its stdout");
        writer = new ConnectionWriter(out, out, "stdio", clock, stallLimit,
                ConnectionWriter.DEFAULT_MAX_QUEUED_BYTES, why -> {
                    JobService.Connection c = connection[0];
                    if (c != null) {
                        c.gone(why);
                    }
                    ended.run();
                });
        connection[0] = service.connect(writer, "stdio client");
        new ConnectionReader(in, connection[0], "stdio", ended).start();
    }

    @Override
    public void finish(Duration patience) {
        ConnectionWriter w = writer;
        if (w != null) {
            w.close(patience);
        }
    }

    @Override
    public void close() {
        finish(Duration.ZERO);
    }
}
