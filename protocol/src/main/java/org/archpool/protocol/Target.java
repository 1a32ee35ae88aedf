package org.archpool.protocol;

import java.util.List;
import java.util.Objects;

/**
 * What a job must be compiled for: a platform and a canonical, non-empty list of architectures in
 * CMake's spelling ({@code gfx942}, {@code gfx90a:xnack-}, {@code 90}, {@code 90a}, {@code 80-real}).
 * The coordinator resolves it once per build; workers take it as given and never probe a GPU.
 */
public record Target(Platform platform, List<String> archs) {
    public Target {
        Objects.requireNonNull(platform, "target.platform");
        Objects.requireNonNull(archs, "target.archs");
        archs = List.copyOf(archs);
        if (archs.isEmpty()) {
            throw new IllegalArgumentException("target.archs must not be empty");
        }
        for (String arch : archs) {
            if (arch.isBlank() || arch.equalsIgnoreCase("native")) {
                throw new IllegalArgumentException("target.archs holds '" + arch
                        + "': a worker only accepts explicit architectures");
            }
        }
    }

    /** The list joined with {@code ;}, as CMake and the {@code *ARCHS} variables read it. */
    public String cmakeList() {
        return String.join(";", archs);
    }
}
