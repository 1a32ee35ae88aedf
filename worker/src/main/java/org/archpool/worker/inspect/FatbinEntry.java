package org.archpool.worker.inspect;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * One image inside a CUDA fat binary: a cubin (machine code for one GPU architecture), PTX (virtual assembly the
 * driver can compile for that architecture and later ones) or LTO IR (for device link-time optimisation).
 *
 * @param kind              what the image holds
 * @param sm                the architecture number from the entry header, e.g. 90 for {@code sm_90}; authoritative
 * @param variant           the architecture-specific ({@code a}) or family-specific ({@code f}) variant, or none
 * @param compressed        whether the payload is compressed inside the fat binary (CUDA 13 compresses PTX by
 *                          default)
 * @param cubinElfSm        for an uncompressed cubin, the architecture number read from its own ELF header
 *                          ({@code e_flags}); empty when the payload is not a cubin, is compressed, or has an ELF
 *                          header this reader cannot interpret. Compare with {@link #sm()} through
 *                          {@link #smMismatch()}
 * @param cubinCodeSections for an uncompressed cubin, how many {@code .text.*} sections (one per function) it has;
 *                          empty when unknown, as for {@code cubinElfSm}. Zero for the code-less cubin of a device
 *                          link, see {@link #isEmptyCubin()}
 * @param blob              index of the fat binary blob, within its section, that holds this entry (0 for the
 *                          first)
 * @param offset            offset of this entry's header from the start of the section, for diagnostics
 */
public record FatbinEntry(
        Kind kind,
        int sm,
        Variant variant,
        boolean compressed,
        OptionalInt cubinElfSm,
        OptionalInt cubinCodeSections,
        int blob,
        long offset) {

    /**
     * Checks the components: none may be null, {@code sm} must be positive, {@code blob} and {@code offset} must
     * not be negative.
     *
     * @param kind              what the image holds
     * @param sm                the architecture number from the entry header
     * @param variant           the architecture's variant
     * @param compressed        whether the payload is compressed
     * @param cubinElfSm        the architecture number in the cubin's own ELF header, if known
     * @param cubinCodeSections the number of code sections in the cubin, if known
     * @param blob              index of the blob that holds the entry
     * @param offset            offset of the entry header in the section
     */
    public FatbinEntry {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(variant, "variant");
        Objects.requireNonNull(cubinElfSm, "cubinElfSm");
        Objects.requireNonNull(cubinCodeSections, "cubinCodeSections");
        if (sm <= 0) {
            throw new IllegalArgumentException("sm must be positive: " + sm);
        }
        if (blob < 0 || offset < 0) {
            throw new IllegalArgumentException("blob and offset must not be negative: " + blob + ", " + offset);
        }
    }

    /**
     * The name nvcc uses for this image's architecture: {@code sm_90}, {@code sm_90a}, {@code sm_100f} for cubins;
     * {@code compute_90}, {@code compute_90a} for PTX; {@code lto_90} for LTO IR.
     *
     * @return the architecture name
     */
    public String archName() {
        return kind.prefix() + sm + variant.suffix();
    }

    /**
     * @return true when the cubin's own ELF header names a different architecture than the fat binary entry header
     *         does; the entry header ({@link #sm()}) is the one the CUDA driver goes by
     */
    public boolean smMismatch() {
        return cubinElfSm.isPresent() && cubinElfSm.getAsInt() != sm;
    }

    /**
     * @return true when this is a cubin known to hold no code at all (no {@code .text.*} section), such as the
     *         cubin nvcc's device-link step adds when it links code that is not relocatable: its architecture is
     *         that of the link step, and no kernel runs from it. False when the cubin has code or it is unknown
     */
    public boolean isEmptyCubin() {
        return kind == Kind.CUBIN && cubinCodeSections.isPresent() && cubinCodeSections.getAsInt() == 0;
    }

    /** What a fat binary entry holds, by the kind code in the first two bytes of its header. */
    public enum Kind {
        /** PTX virtual assembly (kind code 1); named {@code compute_NN}. */
        PTX(1, "compute_"),
        /** An ELF cubin of machine code (kind code 2); named {@code sm_NN}. */
        CUBIN(2, "sm_"),
        /** NVVM IR for device link-time optimisation (kind code 8, from {@code code=lto_NN}); named {@code lto_NN}. */
        LTO_IR(8, "lto_"),
        /** A kind code this reader does not know; named {@code unknown_NN}, so it never matches a real name. */
        UNKNOWN(-1, "unknown_");

        private final int code;
        private final String prefix;

        Kind(int code, String prefix) {
            this.code = code;
            this.prefix = prefix;
        }

        /** @return the kind code in the entry header; -1 for {@link #UNKNOWN} */
        public int code() {
            return code;
        }

        /** @return the prefix of {@link FatbinEntry#archName()} for this kind, e.g. {@code sm_} */
        public String prefix() {
            return prefix;
        }

        /**
         * @param code the kind code from an entry header
         * @return the matching kind, or {@link #UNKNOWN}
         */
        public static Kind ofCode(int code) {
            for (Kind kind : values()) {
                if (kind.code == code) {
                    return kind;
                }
            }
            return UNKNOWN;
        }
    }

    /** The feature-set variant of an architecture, a suffix of its name. */
    public enum Variant {
        /** The plain architecture, e.g. {@code sm_90}: runs on that architecture and, for PTX, later ones. */
        NONE(""),
        /** Architecture-specific features, e.g. {@code sm_90a}: runs only on exactly that architecture. */
        A("a"),
        /** Family-specific features, e.g. {@code sm_100f}: runs on that architecture's family (CUDA 12.9+). */
        F("f");

        private final String suffix;

        Variant(String suffix) {
            this.suffix = suffix;
        }

        /** @return the suffix of the architecture name: empty, {@code a} or {@code f} */
        public String suffix() {
            return suffix;
        }
    }
}
