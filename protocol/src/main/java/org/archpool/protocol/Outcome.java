package org.archpool.protocol;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * How a job ended. {@link #FAILED} means the tool said no (a compile error, a non-zero exit, a compiler
 * killed by a signal); {@link #CRASHED} means the infrastructure broke (the worker died or spoke
 * garbage) and is the only outcome a coordinator retries. {@link #SKIPPED} is the coordinator's alone: a job that
 * supports none of a target's architectures is not built for it, which is not a failure; a worker never answers it.
 */
public enum Outcome {
    @JsonProperty("succeeded") SUCCEEDED,
    @JsonProperty("failed") FAILED,
    @JsonProperty("timed_out") TIMED_OUT,
    @JsonProperty("cancelled") CANCELLED,
    @JsonProperty("crashed") CRASHED,
    @JsonProperty("skipped") SKIPPED;

    /** The name used on the wire and in reports. */
    public String wireName() {
        return this == TIMED_OUT ? "timed_out" : name().toLowerCase(java.util.Locale.ROOT);
    }
}
