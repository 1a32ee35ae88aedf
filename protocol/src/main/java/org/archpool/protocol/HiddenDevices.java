package org.archpool.protocol;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The device-visibility variables that hide every GPU from a process. Workers and every process they start
 * run with each of them set to the empty string: set, never unset (unset exposes every device). For AMD,
 * {@code ROCR_VISIBLE_DEVICES=""} is the one that hides devices (HIP treats an empty
 * {@code HIP_VISIBLE_DEVICES} as unset). {@code NVIDIA_VISIBLE_DEVICES}, which NVIDIA's container runtime reads
 * when a container is started from a job, is set to {@code void} (no device, and no driver files).
 */
public final class HiddenDevices {

    public static final List<String> VARIABLES =
            List.of("CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES");

    /** The container runtime's variable, and the value that gives a container no GPU. */
    public static final String CONTAINER_VARIABLE = "NVIDIA_VISIBLE_DEVICES";
    public static final String CONTAINER_VALUE = "void";

    private HiddenDevices() {
    }

    /** The variables, each mapped to the empty string, and {@code NVIDIA_VISIBLE_DEVICES=void}. */
    public static Map<String, String> environment() {
        Map<String, String> env = new LinkedHashMap<>();
        VARIABLES.forEach(v -> env.put(v, ""));
        env.put(CONTAINER_VARIABLE, CONTAINER_VALUE);
        return env;
    }
}
