package org.archpool.orchestrator.pool;

/**
 * How a build's workers are kept from seeing a GPU, for the report's {@code pool.deviceIsolation} and
 * {@code archpool arch}.
 */
public enum DeviceIsolation {

    /**
     * Each worker process (in thread mode each step) runs in a mount namespace of its own in which the GPU
     * device nodes and driver views are masked, as well as under the hiding environment.
     */
    NAMESPACE("namespace", "the visibility variables, and a mount namespace that masks /dev/nvidia*, /dev/nvidia-caps, /dev/kfd, /dev/dri,"
            + " /proc/driver/nvidia, /sys/class/kfd and /sys/devices/virtual/kfd, so nvidia-smi, NVML and"
            + " rocm_agent_enumerator find no GPU either"),

    /** The hiding environment alone. */
    ENVIRONMENT("environment", "CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES empty and"
            + " NVIDIA_VISIBLE_DEVICES=void hide GPUs from the CUDA and HIP runtimes and container runtimes;"
            + " nvidia-smi, NVML and rocm_agent_enumerator ignore them");

    private final String reportName;
    private final String hides;

    DeviceIsolation(String reportName, String hides) {
        this.reportName = reportName;
        this.hides = hides;
    }

    /** {@code namespace} or {@code environment}. */
    public String reportName() {
        return reportName;
    }

    /** One clause: what this hides, and from what. */
    public String hides() {
        return hides;
    }
}
