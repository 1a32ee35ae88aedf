package org.archpool.protocol;

import java.util.List;
import java.util.Objects;

/** A file a job produced, with the GPU architectures found inside it. */
public record Artifact(String path, List<String> archs) {
    public Artifact {
        Objects.requireNonNull(path, "artifact.path");
        archs = archs == null ? List.of() : List.copyOf(archs);
    }
}
