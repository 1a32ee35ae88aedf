package org.archpool.orchestrator.arch;

import static org.archpool.protocol.UntrustedText.quote;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.archpool.protocol.Platform;

/**
 * One AMD GPU target to compile for: a processor or generic target and the target-ID features the user pinned.
 *
 * <p>Only well-formed values exist, and equal values mean the same target:
 * <ul>
 *   <li>{@code processor} is lower case: {@code gfx} and 3 or 4 digits/hex digits ({@code gfx90a},
 *       {@code gfx1100}), or a generic target ({@code gfx9-4-generic}).</li>
 *   <li>{@code features} are {@code sramecc+}, {@code sramecc-}, {@code xnack+}, {@code xnack-}, each name at most
 *       once, kept in canonical (alphabetical) order whatever order they were given in:
 *       {@code gfx942:sramecc+:xnack-}.</li>
 *   <li>A known processor ({@link AmdTargets}) may only name features it has (gfx1100 has none, gfx900 only
 *       xnack). An unknown one, which only a detected device newer than the table can give, has no features.</li>
 * </ul>
 * An omitted feature means "any": a featureless code object runs whichever mode the device is in.
 *
 * @param processor the processor, e.g. {@code gfx942}
 * @param features  the pinned target-ID features in canonical order, e.g. {@code [sramecc+, xnack-]}
 */
public record HipArch(String processor, List<String> features) implements GpuArch {

    /** A processor or generic target name, lower case, ASCII digits only. */
    static final Pattern PROCESSOR = Pattern.compile("gfx(?:[0-9]{1,2}[0-9a-f]{2}|[0-9]{1,2}(?:-[0-9])?-generic)");
    private static final Pattern FEATURE = Pattern.compile("(sramecc|xnack)[+-]");

    public HipArch {
        Objects.requireNonNull(processor, "processor");
        Objects.requireNonNull(features, "features");
        if (!PROCESSOR.matcher(processor).matches()) {
            throw new IllegalArgumentException("not an AMD processor name (gfx942, gfx11-generic): "
                    + quote(processor));
        }
        Optional<AmdTargets.Entry> entry = AmdTargets.lookup(processor);
        List<String> sorted = new ArrayList<>(features.size());
        Set<String> names = new HashSet<>();
        for (String feature : features) {
            if (feature == null || !FEATURE.matcher(feature).matches()) {
                throw new IllegalArgumentException("not a target-ID feature (sramecc+/-, xnack+/-): "
                        + quote(feature));
            }
            String name = feature.substring(0, feature.length() - 1);
            if (!names.add(name)) {
                throw new IllegalArgumentException(name + " is given twice in " + features);
            }
            if (entry.isEmpty() || !entry.get().features().contains(name)) {
                throw new IllegalArgumentException(processor + " has no " + name + " feature");
            }
            sorted.add(feature);
        }
        sorted.sort(null);
        features = List.copyOf(sorted);
    }

    /** The processor without pinned features: {@code new HipArch("gfx942")}. */
    public HipArch(String processor) {
        this(processor, List.of());
    }

    /**
     * Parses one HIP architecture, case-insensitively: a known processor or generic target with optional
     * {@code :sramecc+/-} and {@code :xnack+/-} in any order ({@code GFX90A:XNACK-}, {@code gfx942:xnack-:sramecc+}).
     *
     * @throws ArchSyntaxException otherwise, with "did you mean" where something is close
     */
    public static HipArch parse(String token) throws ArchSyntaxException {
        return HipGrammar.parse(Objects.requireNonNull(token, "token"));
    }

    @Override
    public Platform platform() {
        return Platform.HIP;
    }

    /** The LLVM target ID: {@code gfx942}, {@code gfx90a:xnack-}, {@code gfx942:sramecc+:xnack-}. */
    @Override
    public String cmakeName() {
        return features.isEmpty() ? processor : processor + ":" + String.join(":", features);
    }

    @Override
    public boolean isKnown() {
        return AmdTargets.lookup(processor).isPresent();
    }

    /** Whether this is a generic target ({@code gfx9-4-generic}). */
    public boolean isGeneric() {
        return processor.endsWith("-generic");
    }

    /** The same processor with no feature pinned, so that the code runs in either mode. */
    public HipArch withoutFeatures() {
        return features.isEmpty() ? this : new HipArch(processor);
    }

    /** The same target as the probe parsers' {@link AmdTargetId}. */
    public AmdTargetId targetId() {
        return new AmdTargetId(processor, features);
    }

    /** {@link #cmakeName()}. */
    @Override
    public String toString() {
        return cmakeName();
    }
}
