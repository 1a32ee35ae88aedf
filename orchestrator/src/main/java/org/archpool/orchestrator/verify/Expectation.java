package org.archpool.orchestrator.verify;

import java.util.List;

/**
 * What a requested target means for the GPU code of one artifact: which of the architectures found in it satisfy
 * the request, and which were not asked for. One implementation per platform.
 */
sealed interface Expectation permits CudaExpectation, HipExpectation {

    /**
     * @param found the architectures found in one artifact ({@code sm_90}, {@code compute_90}, {@code gfx90a:xnack+})
     * @return the requested architectures that none of {@code found} satisfies, named as they would be found
     *         ({@code sm_90}, {@code gfx942})
     */
    List<String> missing(List<String> found);

    /**
     * @param found the architectures found in one artifact
     * @return those that hold real code for an architecture nobody asked for
     */
    List<String> extra(List<String> found);

    /**
     * @param found   the architectures found in one artifact
     * @param missing what {@link #missing} said
     * @return a clause that explains a likely cause, starting with a space, or empty
     */
    String explain(List<String> found, List<String> missing);
}
