package org.archpool.orchestrator.arch;

import java.util.List;
import java.util.Objects;

/**
 * One physical GPU as {@code nvidia-smi -L} lists it, e.g.
 * {@code GPU 0: NVIDIA H200 (UUID: GPU-65af7ae3-370d-13bc-7a10-a93e8ff6d1e8)}, with the MIG devices listed
 * under it. The index is relative to what nvidia-smi can see (inside a container it starts at 0 again); the
 * UUID is stable.
 *
 * @param index      nvidia-smi's index
 * @param name       the product name, verbatim (not always prefixed "NVIDIA": {@code Tesla V100-PCIE-16GB})
 * @param uuid       the GPU UUID, {@code GPU-...}
 * @param migDevices the MIG devices of this GPU, in listed order; empty when MIG is off or none is visible
 */
public record NvidiaSmiGpu(int index, String name, String uuid, List<NvidiaSmiMigDevice> migDevices) {

    public NvidiaSmiGpu {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(uuid, "uuid");
        migDevices = List.copyOf(migDevices);
        if (index < 0) {
            throw new IllegalArgumentException("index must be >= 0, was " + index);
        }
    }
}
