package org.archpool.protocol;

/** Coordinator → worker: cancel whatever runs and exit. */
public record Shutdown() implements Message {
}
