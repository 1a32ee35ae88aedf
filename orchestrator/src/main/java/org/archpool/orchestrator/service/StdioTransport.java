package org.archpool.orchestrator.service;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;

/**
 * One client over {@code serve}'s stdin and stdout (the client that started it). The end of stdin, or a failed
 * write to stdout, means the client is gone: every job is cancelled and {@code serve} shuts down.
 */
public final class StdioTransport implements Transport {

    private final InputStream in;
    private final OutputStream out;
    private final Clock clock;
    private volatile ConnectionWriter writer;

    /** @param out the process's stdout, which nothing else may write to */
    public StdioTransport(InputStream in, OutputStream out, Clock clock) {
        this.in = in;
        this.out = out instanceof PrintStream print ? new Checked(print) : out;
        this.clock = clock;
    }

    /** A {@link PrintStream}, whose errors would otherwise go unseen (a client that is gone), made to throw them. */
    private static final class Checked extends FilterOutputStream {
        private final PrintStream print;

        Checked(PrintStream print) {
            super(print);
            this.print = print;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            print.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            print.flush();
            if (print.checkError()) {
                throw new IOException("stdout is closed (the client is gone)");
            }
        }
    }

    @Override
    public void start(JobService service) {
        JobService.Connection[] connection = new JobService.Connection[1];
        Runnable ended = () -> service.shutdown(true, "the client closed serve's stdin or stopped reading its stdout");
        writer = new ConnectionWriter(out, out, "stdio", clock, ConnectionWriter.DEFAULT_STALL_LIMIT,
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
