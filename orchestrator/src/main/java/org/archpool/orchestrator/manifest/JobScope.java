package org.archpool.orchestrator.manifest;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.archpool.orchestrator.arch.ArchSyntaxException;
import org.archpool.orchestrator.arch.JobArchs;
import org.archpool.protocol.Platform;

/**
 * What a job says about the targets it is built for, beside the job itself (which is what a worker is sent).
 *
 * @param platforms       the platforms the job is limited to ({@code "platforms"}); empty: every platform of the run
 * @param archs           the architectures the job supports ({@code "archs"}), read per platform: AMD target ids
 *                        ({@code gfx…}) for HIP, the rest for CUDA; a platform it lists none for is absent; null:
 *                        every architecture of the run
 * @param defaultBuildDir whether a CMake job's build folder is the default one, {@code <buildRoot>/<id>}, which
 *                        becomes {@code <buildRoot>/<platform>/<id>} when the run has several targets (an explicit
 *                        one gets {@code /<platform>} appended)
 */
public record JobScope(Set<Platform> platforms, Map<Platform, JobArchs> archs, boolean defaultBuildDir) {

    /** A job that says nothing: every target, every architecture, its build folder by default. */
    public static final JobScope ANY = new JobScope(Set.of(), null, true);

    public JobScope {
        platforms = Set.copyOf(platforms);
        // in the platforms' order, so that messages that list them say the same each time
        archs = archs == null ? null : archs.isEmpty() ? Map.of() : Collections.unmodifiableMap(new EnumMap<>(archs));
    }

    /**
     * Reads {@code archs} as written (null: none given), each entry for its platform.
     *
     * @throws ArchSyntaxException for an entry that is not one of its platform's ({@link JobArchs#parse}), or one
     *                             for a platform that {@code platforms} leaves out
     */
    public static JobScope of(Set<Platform> platforms, List<String> archs, boolean defaultBuildDir)
            throws ArchSyntaxException {
        if (archs == null) {
            return new JobScope(platforms, null, defaultBuildDir);
        }
        Map<Platform, JobArchs> read = new EnumMap<>(Platform.class);
        for (Platform platform : Platform.values()) {
            List<String> own = new ArrayList<>();
            for (String arch : archs) {
                boolean amd = arch != null && arch.strip().toLowerCase(Locale.ROOT).startsWith("gfx");
                if (amd == (platform == Platform.HIP)) {
                    own.add(arch);
                }
            }
            if (own.isEmpty()) {
                continue;
            }
            if (!platforms.isEmpty() && !platforms.contains(platform)) {
                throw new ArchSyntaxException("it lists " + String.join(", ", own) + " for " + platform.wireName()
                        + ", but \"platforms\" leaves " + platform.wireName() + " out; remove them, or add \""
                        + platform.wireName() + "\" to \"platforms\"");
            }
            read.put(platform, JobArchs.parse(platform, own));
        }
        return new JobScope(platforms, read, defaultBuildDir);
    }

    /** Whether the job may be built for {@code platform}. */
    public boolean allows(Platform platform) {
        return platforms.isEmpty() || platforms.contains(platform);
    }

    /** Every entry of {@link #archs()}, as written, platform by platform, for messages. */
    public List<String> listed() {
        return archs == null ? List.of() : archs.values().stream().flatMap(a -> a.entries().stream()).toList();
    }
}
