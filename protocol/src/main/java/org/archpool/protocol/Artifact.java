package org.archpool.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Objects;

/**
 * A file a job produced, with the GPU code found inside it.
 *
 * @param path            the file, absolute
 * @param archs           the architectures the file holds GPU code for, in file order, without duplicates: CUDA
 *                        {@code sm_90}, {@code sm_90a}, {@code compute_90}; AMD target IDs {@code gfx90a},
 *                        {@code gfx90a:xnack+}; empty when it holds none (or could not be read)
 * @param problem         why the file's GPU code could not be read (completely), or null
 * @param hostcallKernels the AMD kernels that need a hostcall buffer (device {@code printf} or {@code assert}),
 *                        as {@code target:kernel}, e.g. {@code gfx942:_Z5helloi}; absent from the JSON when empty
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Artifact(String path, List<String> archs, String problem,
                       @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> hostcallKernels) {
    public Artifact {
        Objects.requireNonNull(path, "artifact.path");
        archs = archs == null ? List.of() : List.copyOf(archs);
        hostcallKernels = hostcallKernels == null ? List.of() : List.copyOf(hostcallKernels);
    }

    public Artifact(String path, List<String> archs, String problem) {
        this(path, archs, problem, List.of());
    }

    public Artifact(String path, List<String> archs) {
        this(path, archs, null, List.of());
    }
}
