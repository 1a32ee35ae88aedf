package org.archpool.orchestrator.arch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.archpool.protocol.Platform;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class GpuDeviceTest {

    @Test
    void hipDeviceKeepsArchAndTargetIdApart() {
        GpuDevice d = new GpuDevice(Platform.HIP, 0, "GPU-8d1457e2c20f59d2", "gfx942", "AMD Instinct MI300X",
                "gfx942:sramecc+:xnack-");
        assertThat(d.arch()).isEqualTo("gfx942");
        assertThat(d.targetId()).isEqualTo("gfx942:sramecc+:xnack-");
    }

    @Test
    void fiveArgumentConstructorHasNoTargetId() {
        assertThat(new GpuDevice(Platform.CUDA, 1, null, "120", null).targetId()).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"gfx942:sramecc+:xnack-", "942", "sm_90", ""})
    void hipArchIsABareProcessor(String arch) {
        assertThatThrownBy(() -> new GpuDevice(Platform.HIP, 0, null, arch, null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"9.0", "sm_90", "90a", "gfx942", "090", ""})
    void cudaArchIsDigits(String arch) {
        assertThatThrownBy(() -> new GpuDevice(Platform.CUDA, 0, null, arch, null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void targetIdMustNameTheSameProcessor() {
        assertThatThrownBy(() -> new GpuDevice(Platform.HIP, 0, null, "gfx90a", null, "gfx942:xnack-"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new GpuDevice(Platform.CUDA, 0, null, "90", null, "90"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void negativeIndexAndBlankOptionalValuesAreRejected() {
        assertThatThrownBy(() -> new GpuDevice(Platform.CUDA, -1, null, "90", null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new GpuDevice(Platform.CUDA, 0, " ", "90", null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new GpuDevice(Platform.CUDA, 0, null, "90", ""))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
