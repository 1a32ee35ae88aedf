package org.archpool.worker.inspect;

import static org.archpool.protocol.UntrustedText.quote;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * One entry of a clang offload bundle (see {@link OffloadBundle}): the code for one offload target, or the host's
 * (usually empty) part.
 *
 * <h2>The entry id and how it is split</h2>
 * The bundle stores one id per entry, {@code <offload kind>-<triple>[-<target id>]}; the triple has the four
 * components {@code arch-vendor-os-environment}, and the target id is a processor with optional features, such as
 * {@code gfx90a:xnack+}. The components of the triple may be missing or empty, and the ids real compilers write
 * differ in how many dashes they use:
 * <pre>
 *   hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+   hipcc (clang 14) and clang 19, code objects: empty environment
 *   hip-amdgcn-amd-amdhsa-gfx906             older form, and clang 14 -fgpu-rdc bitcode: no environment at all
 *   host-x86_64-unknown-linux                clang 14 host entry: 3-component triple, no target id
 *   host-x86_64-unknown-linux--              clang 19 host entry: empty environment, empty target id
 *   host-x86_64-unknown-linux-gnu-           4-component triple, empty target id
 *   openmp-x86_64-pc-linux-gnu               4-component triple, no target id
 *   hip-nvptx64-nvidia-cuda--sm_90           HIP for NVIDIA
 * </pre>
 * The id is split as follows; {@link #id()} always keeps it exactly as stored.
 * <ul>
 *   <li>{@link #kind()} is everything before the first dash (e.g. {@code hipv4}, {@code hip}, {@code host},
 *       {@code openmp}); it must not be empty.</li>
 *   <li>The rest is cut into dash-separated components, looking only at the part before the first colon (target
 *       features such as {@code xnack-} contain dashes). The target id starts at the fourth component when that
 *       component names a processor ({@code gfx} or {@code sm_} followed by a digit, the old form without an
 *       environment), otherwise at the fifth component (after the fourth dash), if there is one. A target id may
 *       itself contain dashes, as the generic AMD targets do ({@code gfx10-3-generic}).</li>
 *   <li>{@link #triple()} is the components before the target id, <em>normalized to exactly four</em>: missing
 *       components are added as empty strings. So {@code host-x86_64-unknown-linux} and
 *       {@code host-x86_64-unknown-linux--} both give {@code x86_64-unknown-linux-}, and both
 *       {@code hip-amdgcn-amd-amdhsa-gfx906} and {@code hipv4-amdgcn-amd-amdhsa--gfx906} give
 *       {@code amdgcn-amd-amdhsa-}. The architecture (first component) must not be empty.</li>
 *   <li>{@link #targetId()} is the rest, features included (e.g. {@code gfx90a:xnack+}), or empty when the id has
 *       none, as host entries do.</li>
 * </ul>
 * An id that is empty, has no dash, an empty kind or architecture, target features without a processor, or
 * characters other than printable ASCII is rejected by {@link OffloadBundle} with an
 * {@link OffloadBundleFormatException}.
 *
 * @param id       the id exactly as stored in the bundle
 * @param kind     the offload kind: {@code hipv4} (a code object), {@code hip} (code object or, in
 *                 {@code -fgpu-rdc} objects, bitcode), {@code host}, {@code openmp}, ...
 * @param triple   the target triple, normalized to four dash-separated components as described above, e.g.
 *                 {@code amdgcn-amd-amdhsa-} or {@code x86_64-unknown-linux-}
 * @param targetId the processor and its features, e.g. {@code gfx90a:xnack+}; empty when the id has none
 * @param size     the entry's size in bytes, as stored in the bundle's table
 * @param code     the entry's bytes: read-only, little-endian, positioned at 0 and {@code size} bytes long; null when
 *                 the entry is larger than the limit the bundle was read with. For an uncompressed bundle it is a
 *                 view of the bytes read, for a compressed one a copy
 */
public record OffloadBundleEntry(String id, String kind, String triple, String targetId, long size, ByteBuffer code) {

    /** The offload kind of the host's entry. */
    public static final String HOST_KIND = "host";

    /**
     * Checks the components: none but {@code code} may be null, {@code size} must not be negative, and {@code code},
     * when present, must hold exactly {@code size} bytes. The buffer is stored as a read-only view.
     *
     * @param id       the id as stored
     * @param kind     the offload kind
     * @param triple   the normalized triple
     * @param targetId the target id, or empty
     * @param size     the entry's size
     * @param code     the entry's bytes, or null when not kept
     */
    public OffloadBundleEntry {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(triple, "triple");
        Objects.requireNonNull(targetId, "targetId");
        if (size < 0) {
            throw new IllegalArgumentException("size must not be negative: " + size);
        }
        if (code != null) {
            if (code.remaining() != size) {
                throw new IllegalArgumentException("code holds " + code.remaining() + " bytes, not " + size);
            }
            code = Bytes.view(code);
        }
    }

    /**
     * @return the entry's bytes as a fresh read-only little-endian view positioned at 0, so that moving its position
     *         does not affect other callers; null when the entry was larger than the limit it was read with
     */
    @Override
    public ByteBuffer code() {
        return code == null ? null : Bytes.view(code);
    }

    /**
     * @return whether this is the host's entry (offload kind {@code host}); hipcc and clang write an empty one
     */
    public boolean isHost() {
        return HOST_KIND.equals(kind);
    }

    /**
     * Splits an id as described in the class comment.
     *
     * @param id   the id as stored
     * @param size the entry's size
     * @param code the entry's bytes, or null
     * @return the entry
     * @throws OffloadBundleFormatException if the id cannot be split
     */
    static OffloadBundleEntry parse(String id, long size, ByteBuffer code) throws OffloadBundleFormatException {
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (c <= ' ' || c > '~') {
                throw invalidId(id, "character " + (int) c + " at index " + i + " is not printable ASCII");
            }
        }
        int kindEnd = id.indexOf('-');
        if (kindEnd <= 0) {
            throw invalidId(id, kindEnd < 0 ? "it has no dash" : "its offload kind is empty");
        }
        String kind = id.substring(0, kindEnd);
        String rest = id.substring(kindEnd + 1);
        int colon = rest.indexOf(':');
        String head = colon < 0 ? rest : rest.substring(0, colon);
        String[] components = head.split("-", -1);
        int targetStart; // index in rest where the target id starts, or -1
        int tripleComponents;
        if (components.length >= 4 && looksLikeProcessor(components[3])) {
            tripleComponents = 3;
            targetStart = dashIndex(rest, 3) + 1;
        } else if (components.length >= 5) {
            tripleComponents = 4;
            targetStart = dashIndex(rest, 4) + 1;
        } else {
            tripleComponents = components.length;
            targetStart = -1;
        }
        if (components[0].isEmpty()) {
            throw invalidId(id, "its triple has an empty architecture");
        }
        if (targetStart < 0 && colon >= 0) {
            throw invalidId(id, "it has target features but no processor");
        }
        StringBuilder triple = new StringBuilder(components[0]);
        for (int i = 1; i < 4; i++) {
            triple.append('-');
            if (i < tripleComponents) {
                triple.append(components[i]);
            }
        }
        String targetId = targetStart < 0 ? "" : rest.substring(targetStart);
        return new OffloadBundleEntry(id, kind, triple.toString(), targetId, size, code);
    }

    /** @return whether a component names a GPU processor: {@code gfx} or {@code sm_} followed by a digit */
    private static boolean looksLikeProcessor(String component) {
        return component.length() > 3 && (component.startsWith("gfx") || component.startsWith("sm_"))
                && Character.isDigit(component.charAt(3));
    }

    /** @return the index of the {@code n}th dash (1-based) in {@code s}; it exists when called */
    private static int dashIndex(String s, int n) {
        int index = -1;
        for (int i = 0; i < n; i++) {
            index = s.indexOf('-', index + 1);
        }
        return index;
    }

    private static OffloadBundleFormatException invalidId(String id, String why) {
        return new OffloadBundleFormatException("invalid offload bundle entry id " + quote(id, 200) + ": " + why);
    }
}
