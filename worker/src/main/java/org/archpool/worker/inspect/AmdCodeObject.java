package org.archpool.worker.inspect;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What {@link AmdCodeObjectReader} reads from one AMD GPU code object: the processor and target ID it was built
 * for, its code object version, and its kernels.
 *
 * <p>Measured defaults: Debian's {@code hipcc} (clang 14) emits code object V4, {@code clang++-19} emits V5;
 * clang 19 accepts {@code -mcode-object-version=4}, {@code 5} and {@code 6} (V6 with a warning that it is still in
 * development; the generic processors such as {@code gfx9-generic} need V6) but no longer {@code 3}, while clang 14
 * still emits V3. {@link #hostcallKernels()} depends on the optimisation level; see {@link AmdKernel}.
 *
 * @param processor         the processor named by {@code e_flags}, e.g. {@code gfx90a} or {@code gfx9-generic}
 * @param targetId          the processor plus the feature settings the {@code e_flags} state, in LLVM's target ID
 *                          form and order: {@code gfx90a}, {@code gfx90a:xnack+},
 *                          {@code gfx90a:sramecc-:xnack+}. "any" and "unsupported" add nothing. For code object
 *                          V3, whose flags are on/off bits, a set bit gives "{@code +}" and a clear bit "{@code -}"
 *                          when the processor supports the feature, as the ROCm runtime reads them (note that LLVM
 *                          sets the V3 bit for "any" too)
 * @param codeObjectVersion 3, 4, 5 or 6, from {@code EI_ABIVERSION}
 * @param metadataTarget    the metadata's {@code amdhsa.target}, e.g. {@code amdgcn-amd-amdhsa--gfx90a:xnack+}
 *                          (always consistent with {@code targetId} when present); null when the metadata has
 *                          none, as in every code object V3, or when there is no metadata note
 * @param kernels           the kernels of {@code amdhsa.kernels}, in metadata order; empty when there is no
 *                          metadata note
 */
public record AmdCodeObject(String processor, String targetId, int codeObjectVersion, String metadataTarget,
        List<AmdKernel> kernels) {

    /**
     * Checks for nulls and copies the kernel list.
     *
     * @param processor         the processor name
     * @param targetId          the target ID
     * @param codeObjectVersion the code object version
     * @param metadataTarget    {@code amdhsa.target}, or null
     * @param kernels           the kernels
     */
    public AmdCodeObject {
        if (processor == null) {
            throw new NullPointerException("processor");
        }
        if (targetId == null) {
            throw new NullPointerException("targetId");
        }
        kernels = List.copyOf(kernels);
    }

    /**
     * @return the names of the kernels whose metadata asks for a hostcall buffer ({@link AmdKernel#needsHostcall()}),
     *         in metadata order
     */
    public List<String> hostcallKernels() {
        List<String> names = new ArrayList<>();
        for (AmdKernel kernel : kernels) {
            if (kernel.needsHostcall()) {
                names.add(kernel.name());
            }
        }
        return Collections.unmodifiableList(names);
    }
}
