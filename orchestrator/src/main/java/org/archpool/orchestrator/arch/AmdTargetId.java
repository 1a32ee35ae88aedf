package org.archpool.orchestrator.arch;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * An AMD GPU target ID as LLVM spells it: a processor and optional target features, e.g. {@code gfx942},
 * {@code gfx90a:xnack-}, {@code gfx942:sramecc+:xnack-}, or a generic processor such as {@code gfx11-generic}.
 * The processor alone is what CMake's {@code HIP_ARCHITECTURES} and {@code AMDGPU_TARGETS} name.
 *
 * @param processor the processor, e.g. {@code gfx90a}; lower case
 * @param features  the features in the order given, each a name followed by {@code +} or {@code -}
 */
public record AmdTargetId(String processor, List<String> features) {

    /** {@code gfx} and lower-case hex digits, optionally followed by dash-separated parts ({@code gfx9-4-generic}). */
    private static final Pattern PROCESSOR = Pattern.compile("gfx[0-9a-f]+(?:-[0-9a-z]+)*");
    private static final Pattern FEATURE = Pattern.compile("[a-z][a-z0-9]*[+-]");

    public AmdTargetId {
        Objects.requireNonNull(processor, "processor");
        Objects.requireNonNull(features, "features");
        features = List.copyOf(features);
        if (!PROCESSOR.matcher(processor).matches()) {
            throw new IllegalArgumentException("not an AMD GPU processor name: '" + processor + "'");
        }
        for (String f : features) {
            if (!FEATURE.matcher(f).matches()) {
                throw new IllegalArgumentException("not a target feature (name followed by + or -): '" + f + "'");
            }
        }
    }

    /** Parses {@code gfx942:sramecc+:xnack-} and the like; empty when {@code text} is not a target ID. */
    public static Optional<AmdTargetId> tryParse(String text) {
        Objects.requireNonNull(text, "text");
        String[] parts = text.split(":", -1);
        if (!PROCESSOR.matcher(parts[0]).matches()) {
            return Optional.empty();
        }
        List<String> features = new ArrayList<>();
        for (int i = 1; i < parts.length; i++) {
            if (!FEATURE.matcher(parts[i]).matches()) {
                return Optional.empty();
            }
            features.add(parts[i]);
        }
        return Optional.of(new AmdTargetId(parts[0], features));
    }

    /** Whether this is a generic processor ({@code gfx9-4-generic}, {@code gfx11-generic}, ...). */
    public boolean isGeneric() {
        return processor.endsWith("-generic");
    }

    /** The target ID as LLVM writes it: the processor, then each feature after a colon. */
    @Override
    public String toString() {
        return features.isEmpty() ? processor : processor + ":" + String.join(":", features);
    }
}
