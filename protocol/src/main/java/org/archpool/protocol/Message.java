package org.archpool.protocol;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * One line of the worker protocol. Every message is a JSON object with a {@code type} field; see
 * {@code docs/protocol.md} for the contract.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = Hello.class, name = "hello"),
    @JsonSubTypes.Type(value = BuildRequest.class, name = "build"),
    @JsonSubTypes.Type(value = Progress.class, name = "progress"),
    @JsonSubTypes.Type(value = BuildResult.class, name = "result"),
    @JsonSubTypes.Type(value = Cancel.class, name = "cancel"),
    @JsonSubTypes.Type(value = Shutdown.class, name = "shutdown")
})
public sealed interface Message permits Hello, BuildRequest, Progress, BuildResult, Cancel, Shutdown {

    /** The protocol version this code speaks; a worker says it in {@code hello}. */
    int PROTOCOL_VERSION = 1;
}
