package org.archpool.protocol;

import com.fasterxml.jackson.annotation.JsonProperty;

/** A step of a job, reported in {@code progress} messages and timed in {@code result} messages. */
public enum Phase {
    /** {@code cmake -S … -B …}: generating the build system. */
    @JsonProperty("configure") CONFIGURE,
    /** {@code cmake --build …}: compiling and linking. */
    @JsonProperty("build") BUILD,
    /** The argv of a {@code command} job. */
    @JsonProperty("command") COMMAND,
    /** Reading the GPU code in what a successful job built (no process runs; {@code exitCode} is absent). */
    @JsonProperty("inspect") INSPECT;

    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
