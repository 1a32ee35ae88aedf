package org.archpool.orchestrator.service;

import java.time.Duration;

/** How clients reach a {@link JobService}: {@link StdioTransport} or {@link SocketTransport}. */
public interface Transport extends AutoCloseable {

    /** Starts taking clients; each is greeted by {@code service}. */
    void start(JobService service);

    /**
     * Waits at most {@code patience} for every connection to be written what it was sent (after
     * {@link JobService#bye}), then ends them all and stops taking clients.
     */
    void finish(Duration patience);

    /** Ends everything at once. */
    @Override
    void close();
}
