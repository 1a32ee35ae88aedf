package org.archpool.orchestrator.arch;

import java.util.Objects;

/**
 * One NVIDIA compute capability to compile for, with its variant and the kinds of code to emit.
 *
 * <p>Only well-formed values exist: {@code sm} is 10 to 999 (a capability without its dot), and an {@code a} or
 * {@code f} variant only where {@link CudaTargets} lists it for that capability (an unknown capability, which
 * only a detected device newer than the table can give, has no variant).
 *
 * @param sm      the capability without its dot, as CMake writes it: {@code 90} for 9.0, {@code 121} for 12.1
 * @param variant none, arch-specific {@code a} or family-specific {@code f}
 * @param code    real and virtual (CMake's plain {@code 90}: SASS and PTX), real only ({@code 90-real}, what
 *                {@code sm_90} means) or virtual only ({@code 90-virtual}, what {@code compute_90} means)
 */
public record CudaSm(int sm, Variant variant, Code code) implements CudaArch {

    /** The compile-time variant of a capability; the hardware never reports one. */
    public enum Variant {
        /** Plain {@code 90}: forward-compatible code. */
        NONE(""),
        /** {@code 90a}: runs only on exactly that capability. */
        ARCH_SPECIFIC("a"),
        /** {@code 100f} (CUDA 12.9+): runs on that capability and later ones of its family. */
        FAMILY_SPECIFIC("f");

        private final String suffix;

        Variant(String suffix) {
            this.suffix = suffix;
        }

        /** {@code ""}, {@code a} or {@code f}. */
        public String suffix() {
            return suffix;
        }
    }

    /** Which code CMake emits for the capability. */
    public enum Code {
        /** Plain {@code 90}: real code (SASS) and virtual code (PTX). */
        REAL_AND_VIRTUAL(""),
        /** {@code 90-real}: real code only. */
        REAL("-real"),
        /** {@code 90-virtual}: virtual code (PTX) only. */
        VIRTUAL("-virtual");

        private final String suffix;

        Code(String suffix) {
            this.suffix = suffix;
        }

        /** {@code ""}, {@code -real} or {@code -virtual}. */
        public String suffix() {
            return suffix;
        }
    }

    public CudaSm {
        Objects.requireNonNull(variant, "variant");
        Objects.requireNonNull(code, "code");
        if (sm < 10 || sm > 999) {
            throw new IllegalArgumentException("not a compute capability without its dot (90, 121): " + sm);
        }
        if (variant != Variant.NONE) {
            boolean listed = CudaTargets.lookup(sm)
                    .map(e -> variant == Variant.ARCH_SPECIFIC ? e.archSpecific() : e.familySpecific())
                    .orElse(false);
            if (!listed) {
                throw new IllegalArgumentException("compute capability " + sm / 10 + "." + sm % 10
                        + " has no '" + variant.suffix() + "' variant");
            }
        }
    }

    /** Capability {@code sm}, plain, real and virtual code: what CMake's {@code 90} means. */
    public CudaSm(int sm) {
        this(sm, Variant.NONE, Code.REAL_AND_VIRTUAL);
    }

    /** {@code 90}, {@code 90a}, {@code 100f-real}, {@code 80-virtual}. */
    @Override
    public String cmakeName() {
        return sm + variant.suffix() + code.suffix();
    }

    @Override
    public boolean isKnown() {
        return CudaTargets.lookup(sm).isPresent();
    }

    /** The capability as hardware reports it, without variant: {@code 9.0} for {@code 90a-real}. */
    public ComputeCapability capability() {
        return new ComputeCapability(sm / 10, sm % 10);
    }

    /** {@link #cmakeName()}. */
    @Override
    public String toString() {
        return cmakeName();
    }
}
