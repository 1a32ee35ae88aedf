package org.archpool.protocol;

import java.util.Objects;

/** Worker → coordinator, always the first line: who the worker is and which protocol it speaks. */
public record Hello(int protocolVersion, String workerId, long pid, String host, String javaVersion)
        implements Message {
    public Hello {
        Objects.requireNonNull(workerId, "hello.workerId");
    }
}
