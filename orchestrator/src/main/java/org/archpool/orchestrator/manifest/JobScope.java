package org.archpool.orchestrator.manifest;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.archpool.protocol.Platform;

/**
 * What a job says about the targets it is built for, beside the job itself (which is what a worker is sent).
 *
 * @param platforms       the platforms the job is limited to ({@code "platforms"}); empty: every platform of the run
 * @param archs           the architectures the job supports ({@code "archs"}), as written: exact ones ({@code 90a},
 *                        {@code gfx942}) or, for CUDA, ranges ({@code >=80}); null: every architecture of the run
 * @param defaultBuildDir whether a CMake job's build folder is the default one, {@code <buildRoot>/<id>}, which
 *                        becomes {@code <buildRoot>/<platform>/<id>} when the run has several targets (an explicit
 *                        one gets {@code /<platform>} appended)
 */
public record JobScope(Set<Platform> platforms, List<String> archs, boolean defaultBuildDir) {

    /** A job that says nothing: every target, every architecture, its build folder by default. */
    public static final JobScope ANY = new JobScope(Set.of(), null, true);

    public JobScope {
        platforms = Set.copyOf(platforms);
        archs = archs == null ? null : List.copyOf(archs);
    }

    /** Whether the job may be built for {@code platform}. */
    public boolean allows(Platform platform) {
        return platforms.isEmpty() || platforms.contains(platform);
    }

    /**
     * The entries of {@link #archs()} that belong to {@code platform}: AMD target ids ({@code gfx…}) to HIP, the rest
     * to CUDA; null when the job lists none at all (every architecture).
     */
    public List<String> archsOf(Platform platform) {
        if (archs == null) {
            return null;
        }
        return archs.stream().filter(a -> isAmd(a) == (platform == Platform.HIP)).toList();
    }

    private static boolean isAmd(String arch) {
        return arch.strip().toLowerCase(Locale.ROOT).startsWith("gfx");
    }
}
