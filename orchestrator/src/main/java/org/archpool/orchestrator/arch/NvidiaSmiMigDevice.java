package org.archpool.orchestrator.arch;

import java.util.Objects;

/**
 * One MIG device as {@code nvidia-smi -L} lists it under its parent GPU, e.g.
 * {@code MIG 1g.5gb Device 0: (UUID: MIG-1c5876e6-d3b9-524a-9eb4-664fcfbd4de2)}.
 *
 * @param index   the MIG device's index within its parent GPU
 * @param profile the MIG profile, e.g. {@code 1g.5gb}
 * @param uuid    the MIG device UUID ({@code MIG-...}; older drivers print {@code MIG-GPU-<uuid>/<gi>/<ci>})
 */
public record NvidiaSmiMigDevice(int index, String profile, String uuid) {

    public NvidiaSmiMigDevice {
        Objects.requireNonNull(profile, "profile");
        Objects.requireNonNull(uuid, "uuid");
        if (index < 0) {
            throw new IllegalArgumentException("index must be >= 0, was " + index);
        }
    }
}
