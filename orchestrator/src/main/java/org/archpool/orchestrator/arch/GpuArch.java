package org.archpool.orchestrator.arch;

import java.util.Objects;
import org.archpool.protocol.Platform;

/**
 * One GPU architecture to compile for, as a value: an AMD target ({@link HipArch}) or an NVIDIA one
 * ({@link CudaArch}). Equal values are the same architecture however the user spelled it ({@code sm_90} and
 * {@code 90-real} are equal), and {@link #cmakeName()} is the one spelling used downstream.
 */
public sealed interface GpuArch permits HipArch, CudaArch {

    /** The platform whose compilers build this architecture. */
    Platform platform();

    /**
     * The canonical spelling, as CMake's {@code CMAKE_HIP_ARCHITECTURES} / {@code CMAKE_CUDA_ARCHITECTURES} and
     * every later consumer read it: {@code gfx942}, {@code gfx90a:xnack-}, {@code gfx942:sramecc+:xnack-},
     * {@code gfx9-4-generic}, {@code 90}, {@code 90a}, {@code 100f}, {@code 80-real}, {@code 90-virtual},
     * {@code all}, {@code all-major}.
     */
    String cmakeName();

    /**
     * Whether the architecture is in archpool's table of known targets ({@link AmdTargets}, {@link CudaTargets}).
     * Parsed architectures always are; one built from a detected device may not be, where the hardware is newer
     * than the table.
     */
    boolean isKnown();

    /**
     * Parses one architecture of {@code platform}, in any accepted spelling and case.
     *
     * @throws ArchSyntaxException when it is not a known architecture of that platform; the message quotes the
     *                             value safely, says what is accepted and suggests near misses
     */
    static GpuArch parse(Platform platform, String token) throws ArchSyntaxException {
        Objects.requireNonNull(platform, "platform");
        Objects.requireNonNull(token, "token");
        return switch (platform) {
            case HIP -> HipArch.parse(token);
            case CUDA -> CudaArch.parse(token);
        };
    }
}
