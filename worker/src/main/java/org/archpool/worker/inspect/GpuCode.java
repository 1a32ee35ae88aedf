package org.archpool.worker.inspect;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The GPU code found in one file: the CUDA fat binary images and the AMD code objects, in file order, and what
 * could not be read.
 *
 * @param cuda     the CUDA images, including the code-less device-link cubins nvcc adds to everything it links
 * @param hip      the AMD code objects
 * @param problems what could not be read, each a sentence naming where; empty when everything was read
 */
public record GpuCode(List<CudaCode> cuda, List<HipCode> hip, List<String> problems) {

    /** A file with no GPU code. */
    public static final GpuCode NONE = new GpuCode(List.of(), List.of(), List.of());

    public GpuCode {
        cuda = List.copyOf(cuda);
        hip = List.copyOf(hip);
        problems = List.copyOf(problems);
    }

    /**
     * The architectures the file holds code for, without duplicates, in file order: CUDA names ({@code sm_90},
     * {@code sm_90a}, {@code compute_90}) leaving out code-less device-link cubins (see
     * {@link FatbinEntry#isEmptyCubin()}), then AMD target IDs ({@code gfx90a}, {@code gfx942:xnack-}).
     *
     * @return the names; empty when the file holds no GPU code
     */
    public List<String> archs() {
        Set<String> names = new LinkedHashSet<>();
        for (CudaCode c : cuda) {
            if (!c.entry().isEmptyCubin()) {
                names.add(c.entry().archName());
            }
        }
        for (HipCode h : hip) {
            names.add(h.targetId());
        }
        return List.copyOf(names);
    }

    /**
     * @return the AMD kernels that need a hostcall buffer, as {@code targetId:kernel}, without duplicates
     */
    public List<String> hostcallKernels() {
        Set<String> kernels = new LinkedHashSet<>();
        for (HipCode h : hip) {
            if (h.codeObject() != null) {
                for (String kernel : h.codeObject().hostcallKernels()) {
                    kernels.add(h.targetId() + ":" + kernel);
                }
            }
        }
        return List.copyOf(kernels);
    }

    /** @return whether any GPU code was found */
    public boolean isEmpty() {
        return cuda.isEmpty() && hip.isEmpty();
    }

    GpuCode plus(GpuCode other) {
        List<CudaCode> c = new ArrayList<>(cuda);
        c.addAll(other.cuda);
        List<HipCode> h = new ArrayList<>(hip);
        h.addAll(other.hip);
        List<String> p = new ArrayList<>(problems);
        p.addAll(other.problems);
        return new GpuCode(c, h, p);
    }
}
