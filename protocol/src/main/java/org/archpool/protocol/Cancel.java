package org.archpool.protocol;

import java.util.Objects;

/** Coordinator → worker: stop the running request (kill its process tree) and answer it as cancelled. */
public record Cancel(String requestId) implements Message {
    public Cancel {
        Objects.requireNonNull(requestId, "cancel.requestId");
    }
}
