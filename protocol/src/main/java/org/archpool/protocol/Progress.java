package org.archpool.protocol;

import java.util.Objects;

/** Worker → coordinator: the request entered a new phase. */
public record Progress(String requestId, Phase phase) implements Message {
    public Progress {
        Objects.requireNonNull(requestId, "progress.requestId");
        Objects.requireNonNull(phase, "progress.phase");
    }
}
