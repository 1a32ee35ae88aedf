package org.archpool.worker;

import java.util.List;
import org.archpool.protocol.Platform;
import org.archpool.worker.inspect.CudaArchReader;

/** The readers the worker uses for each platform. */
final class GpuCodeReaders {

    private GpuCodeReaders() {
    }

    /**
     * CUDA: the {@code .nv_fatbin} entries that hold code ({@code sm_90}, {@code compute_90}). HIP offload
     * bundles are not read yet, so HIP artifacts are listed without architectures.
     */
    static GpuCodeReader standard() {
        CudaArchReader cuda = new CudaArchReader();
        return (file, platform) -> platform == Platform.CUDA ? List.copyOf(cuda.archNames(file)) : List.of();
    }
}
