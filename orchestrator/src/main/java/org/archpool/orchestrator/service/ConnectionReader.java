package org.archpool.orchestrator.service;

import java.io.IOException;
import java.io.InputStream;

/**
 * A connection's reader thread: each line the client sends goes to its {@link JobService.Connection}; at the end
 * of the stream, or when reading fails, the connection is {@linkplain JobService.Connection#gone gone} and
 * {@code afterEnd} runs.
 */
public final class ConnectionReader {

    private final Thread thread;

    public ConnectionReader(InputStream in, JobService.Connection connection, String name, Runnable afterEnd) {
        this.thread = new Thread(() -> {
            LineReader lines = new LineReader(in, ServiceCodec.MAX_LINE_BYTES);
            String why = "it closed the connection";
            try {
                for (LineReader.Line line = lines.next(); line != null; line = lines.next()) {
                    connection.receive(line);
                }
            } catch (IOException e) {
                why = "reading from it failed: " + e.getMessage();
            } finally {
                connection.gone(why);
                afterEnd.run();
            }
        }, "archpool-serve-reader-" + name);
        thread.setDaemon(true);
    }

    /** Starts reading. */
    public ConnectionReader start() {
        thread.start();
        return this;
    }
}
