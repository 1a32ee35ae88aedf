package org.archpool.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Objects;

/**
 * A file a job produced, with the GPU architectures found inside it.
 *
 * @param problem why the file could not be read, when it could not (then {@code archs} is empty)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Artifact(String path, List<String> archs, String problem) {
    public Artifact {
        Objects.requireNonNull(path, "artifact.path");
        archs = archs == null ? List.of() : List.copyOf(archs);
    }

    public Artifact(String path, List<String> archs) {
        this(path, archs, null);
    }
}
