package org.archpool.worker.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;
import org.junit.jupiter.api.Test;

class ChildEnvironmentTest {

    @Test
    void aJobCannotMakeADeviceVisibleNorChangeTheArchitecture() {
        Map<String, String> env = ChildEnvironment.forJob(Map.of("CUDA_VISIBLE_DEVICES", "0", "CUDAARCHS", "75",
                "MINE", "kept"), new Target(Platform.CUDA, List.of("90")));
        assertThat(env).containsEntry("CUDA_VISIBLE_DEVICES", "").containsEntry("ROCR_VISIBLE_DEVICES", "")
                .containsEntry("HIP_VISIBLE_DEVICES", "").containsEntry("CUDAARCHS", "90")
                .containsEntry("MINE", "kept");
    }
}
