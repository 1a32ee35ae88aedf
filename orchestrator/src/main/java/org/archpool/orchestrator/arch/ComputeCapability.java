package org.archpool.orchestrator.arch;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An NVIDIA compute capability as the hardware reports it ({@code 9.0}, {@code 8.6}, {@code 12.0}), never with
 * the compile-time {@code a}/{@code f} suffixes.
 *
 * @param major the major version, e.g. 12
 * @param minor the minor version, a single digit
 */
public record ComputeCapability(int major, int minor) {

    private static final Pattern DOTTED = Pattern.compile("(\\d{1,2})\\.(\\d)");

    public ComputeCapability {
        if (major < 1 || major > 99 || minor < 0 || minor > 9) {
            throw new IllegalArgumentException("not a compute capability: " + major + "." + minor);
        }
    }

    /** Parses {@code major.minor} as {@code nvidia-smi --query-gpu=compute_cap} prints it; empty otherwise. */
    public static Optional<ComputeCapability> tryParse(String text) {
        Matcher m = DOTTED.matcher(text);
        if (!m.matches()) {
            return Optional.empty();
        }
        int major = Integer.parseInt(m.group(1));
        if (major == 0) {
            return Optional.empty();
        }
        return Optional.of(new ComputeCapability(major, Integer.parseInt(m.group(2))));
    }

    /** The architecture as CMake's {@code CUDA_ARCHITECTURES} spells it: {@code 9.0} gives {@code 90}, {@code 12.0} gives {@code 120}. */
    public String cmakeArch() {
        return Integer.toString(major) + minor;
    }

    /** {@code major.minor}. */
    @Override
    public String toString() {
        return major + "." + minor;
    }
}
