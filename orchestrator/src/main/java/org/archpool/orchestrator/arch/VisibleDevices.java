package org.archpool.orchestrator.arch;

import java.util.List;
import java.util.Objects;

/**
 * The detected devices that the coordinator's device-visibility variables leave, as
 * {@link DeviceVisibility#apply} found them.
 *
 * @param devices  the devices to build for, in the order selected, never empty; each at most once. Usually exactly
 *                 the devices a program started with the same environment sees; where that cannot be known (an
 *                 index-based {@code CUDA_VISIBLE_DEVICES} on a host with GPUs of different architectures, see
 *                 {@link DeviceVisibility}), every device it may see, and a warning says so
 * @param applied  a short description of which variables were applied and what they selected, e.g.
 *                 {@code CUDA_VISIBLE_DEVICES=1,GPU-65af → nvidia-smi devices 1, 0} or
 *                 {@code none set: all 4 devices}; user-supplied text in it is quoted safely
 * @param warnings sentences for the report (parts of a value that were ignored, selections that may not match what
 *                 a program sees...), user-supplied text quoted safely; empty when there is nothing to say
 */
public record VisibleDevices(List<GpuDevice> devices, String applied, List<String> warnings) {

    public VisibleDevices {
        devices = List.copyOf(devices);
        Objects.requireNonNull(applied, "applied");
        warnings = List.copyOf(warnings);
    }
}
