package org.archpool.protocol;

/**
 * One line of the worker protocol. Every message is a JSON object with a {@code type} field; see
 * {@code docs/protocol.md} for the contract;
 * {@code codec.MessageCodec} reads and writes it.
 */
public sealed interface Message permits Hello, BuildRequest, Progress, BuildResult, Cancel, Shutdown {

    /** The protocol version this code speaks; a worker says it in {@code hello}. */
    int PROTOCOL_VERSION = 2;
}
