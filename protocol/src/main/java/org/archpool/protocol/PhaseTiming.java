package org.archpool.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Objects;

/** How long one phase took and how its process ended ({@code exitCode} is absent when it never exited). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PhaseTiming(Phase name, long ms, Integer exitCode) {
    public PhaseTiming {
        Objects.requireNonNull(name, "phase.name");
    }
}
