package org.archpool.worker.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ChildEnvironmentTest {

    @Test
    void aStepCannotMakeADeviceVisible() {
        Map<String, String> env = ChildEnvironment.forStep(Map.of("CUDA_VISIBLE_DEVICES", "0",
                "ROCR_VISIBLE_DEVICES", "1", "CUDAARCHS", "90", "MINE", "kept"));
        assertThat(env).containsEntry("CUDA_VISIBLE_DEVICES", "").containsEntry("ROCR_VISIBLE_DEVICES", "")
                .containsEntry("HIP_VISIBLE_DEVICES", "").containsEntry("CUDAARCHS", "90")
                .containsEntry("MINE", "kept");
    }
}
