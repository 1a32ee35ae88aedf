package org.archpool.orchestrator.arch;

/**
 * CMake's whole-set values of {@code CUDA_ARCHITECTURES} (CMake 3.23+): every architecture the installed CUDA
 * supports, or every major one. Each stands alone: CMake refuses {@code all;90}, and so does {@link ArchList}.
 */
public enum CudaAll implements CudaArch {
    /** {@code all}: every architecture the compiler supports. */
    ALL("all"),
    /** {@code all-major}: every major architecture the compiler supports ({@code 50}, {@code 60}, ...). */
    ALL_MAJOR("all-major");

    private final String cmakeName;

    CudaAll(String cmakeName) {
        this.cmakeName = cmakeName;
    }

    @Override
    public String cmakeName() {
        return cmakeName;
    }

    @Override
    public boolean isKnown() {
        return true;
    }

    /** {@link #cmakeName()}. */
    @Override
    public String toString() {
        return cmakeName;
    }
}
