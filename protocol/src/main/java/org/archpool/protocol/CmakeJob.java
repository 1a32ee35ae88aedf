package org.archpool.protocol;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A CMake project: configure {@code sourceDir} into {@code buildDir} with {@code generator}, then build.
 * The architecture define ({@code CMAKE_CUDA_ARCHITECTURES}/{@code CMAKE_HIP_ARCHITECTURES}) is added by the
 * coordinator from the resolved target when it plans the job's steps, and is never part of {@code defines}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CmakeJob(
        String id,
        String sourceDir,
        String buildDir,
        String generator,
        String buildType,
        Map<String, String> defines,
        List<String> configureArgs,
        List<String> buildArgs,
        List<String> targets,
        Map<String, String> env,
        Long timeoutMs,
        List<String> artifacts) implements JobSpec {

    /** Defines archpool owns; a job that sets one is rejected. */
    public static final List<String> RESERVED_DEFINES = List.of("CMAKE_CUDA_ARCHITECTURES", "CMAKE_HIP_ARCHITECTURES");

    public CmakeJob {
        JobSpec.requireValidId(id);
        Objects.requireNonNull(sourceDir, "cmake job '" + id + "': sourceDir");
        Objects.requireNonNull(buildDir, "cmake job '" + id + "': buildDir");
        generator = generator == null ? "Ninja" : generator;
        defines = defines == null ? Map.of() : Map.copyOf(defines);
        configureArgs = configureArgs == null ? List.of() : List.copyOf(configureArgs);
        buildArgs = buildArgs == null ? List.of() : List.copyOf(buildArgs);
        targets = targets == null ? List.of() : List.copyOf(targets);
        env = env == null ? Map.of() : Map.copyOf(env);
        artifacts = artifacts == null ? List.of() : List.copyOf(artifacts);
        for (String reserved : RESERVED_DEFINES) {
            if (defines.containsKey(reserved)) {
                throw new IllegalArgumentException("cmake job '" + id + "' sets " + reserved
                        + " itself; remove it: archpool passes the resolved architecture (use --arch to choose it)");
            }
        }
    }

    @Override
    @JsonIgnore
    public String kind() {
        return "cmake";
    }

    @Override
    public CmakeJob withId(String newId) {
        return new CmakeJob(newId, sourceDir, buildDir, generator, buildType, defines, configureArgs, buildArgs, targets,
                env, timeoutMs, artifacts);
    }
}
