package org.archpool.orchestrator.arch;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Objects;
import java.util.regex.Pattern;
import org.archpool.protocol.Platform;

/**
 * One GPU as a probe tool reported it.
 *
 * @param platform the platform whose compilers target it
 * @param index    its 0-based position among the GPUs of that platform in the tool's output (nvidia-smi's
 *                 index, the order of rocminfo's GPU agents, the line order of amdgpu-arch); not necessarily
 *                 the ordinal a CUDA or HIP program sees
 * @param uuid     a stable identifier ({@code GPU-...}), or {@code null} where the tool gives none
 * @param arch     the architecture in CMake's spelling: for CUDA the compute capability without the dot
 *                 ({@code 90}, {@code 86}, {@code 120}); for HIP the bare processor ({@code gfx942}, without
 *                 target features)
 * @param name     the product name ({@code NVIDIA H200}, {@code AMD Instinct MI300X}), or {@code null} where
 *                 the tool gives none (amdgpu-arch never does)
 * @param targetId HIP only: the full target ID with features as the runtime reported it
 *                 ({@code gfx942:sramecc+:xnack-}, or just {@code gfx1100} where the processor has no features),
 *                 or {@code null} where the tool does not say; always {@code null} for CUDA
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record GpuDevice(Platform platform, int index, String uuid, String arch, String name, String targetId) {

    private static final Pattern CUDA_ARCH = Pattern.compile("[1-9][0-9]*");

    public GpuDevice {
        Objects.requireNonNull(platform, "platform");
        Objects.requireNonNull(arch, "arch");
        if (index < 0) {
            throw new IllegalArgumentException("index must be >= 0, was " + index);
        }
        requireNullOrNonBlank(uuid, "uuid");
        requireNullOrNonBlank(name, "name");
        requireNullOrNonBlank(targetId, "targetId");
        switch (platform) {
            case CUDA -> {
                if (!CUDA_ARCH.matcher(arch).matches()) {
                    throw new IllegalArgumentException("a CUDA arch is digits only (90, 120), was '" + arch + "'");
                }
                if (targetId != null) {
                    throw new IllegalArgumentException("a CUDA device has no target ID, was '" + targetId + "'");
                }
            }
            case HIP -> {
                AmdTargetId processor = AmdTargetId.tryParse(arch)
                        .filter(t -> t.features().isEmpty())
                        .orElseThrow(() -> new IllegalArgumentException(
                                "a HIP arch is a bare processor name (gfx942), was '" + arch + "'"));
                if (targetId != null) {
                    boolean sameProcessor = AmdTargetId.tryParse(targetId)
                            .map(t -> t.processor().equals(processor.processor()))
                            .orElse(false);
                    if (!sameProcessor) {
                        throw new IllegalArgumentException(
                                "target ID '" + targetId + "' does not name processor '" + arch + "'");
                    }
                }
            }
        }
    }

    /** A device without a target ID. */
    public GpuDevice(Platform platform, int index, String uuid, String arch, String name) {
        this(platform, index, uuid, arch, name, null);
    }

    private static void requireNullOrNonBlank(String value, String what) {
        if (value != null && value.isBlank()) {
            throw new IllegalArgumentException(what + " must be null or non-blank");
        }
    }
}
