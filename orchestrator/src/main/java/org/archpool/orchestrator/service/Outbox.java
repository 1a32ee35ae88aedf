package org.archpool.orchestrator.service;

/** Where a connection's replies go. Never blocks the caller: a slow client must not stall anyone else. */
public interface Outbox {

    /** Queues {@code message} for the client; dropped once the connection has ended. */
    void send(ServerMessage message);

    /** Ends the connection after what was queued has been written (or could not be). */
    void close();
}
