package org.archpool.orchestrator.arch;

/** Who reads a device-visibility variable, as messages name it, and what they call the devices it numbers. */
enum VisibilityReader {
    CUDA("the CUDA driver", "nvidia-smi device"),
    ROCR("ROCm", "device"),
    HIP("HIP", "device");

    /** The reader in a sentence: {@code the CUDA driver ignores it}. */
    final String who;
    /** One device as the reader numbers it: {@code nvidia-smi device 3}. */
    final String noun;

    VisibilityReader(String who, String noun) {
        this.who = who;
        this.noun = noun;
    }
}
