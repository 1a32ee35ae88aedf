package org.archpool.orchestrator.arch;

import java.util.Objects;
import org.archpool.protocol.Platform;

/**
 * An NVIDIA architecture in CMake's {@code CUDA_ARCHITECTURES} terms: one compute capability ({@link CudaSm},
 * e.g. {@code 90}, {@code 90a}, {@code 100f}, {@code 80-real}) or one of CMake's whole-set values
 * ({@link CudaAll}: {@code all}, {@code all-major}).
 */
public sealed interface CudaArch extends GpuArch permits CudaSm, CudaAll {

    @Override
    default Platform platform() {
        return Platform.CUDA;
    }

    /**
     * Parses one CUDA architecture, case-insensitively: {@code 90}, {@code 90a}, {@code 100f}, {@code 90-real},
     * {@code 90a-virtual}; {@code sm_90} (→ {@code 90-real}), {@code sm_90a} (→ {@code 90a-real}),
     * {@code compute_90} (→ {@code 90-virtual}); {@code 9.0} (→ {@code 90}), {@code 10.0f} (→ {@code 100f});
     * {@code all}, {@code all-major}. The capability must be a known one ({@link CudaTargets}), and {@code a} /
     * {@code f} only where it has them.
     *
     * @throws ArchSyntaxException otherwise, with "did you mean" where something is close
     */
    static CudaArch parse(String token) throws ArchSyntaxException {
        return CudaGrammar.parse(Objects.requireNonNull(token, "token"));
    }
}
