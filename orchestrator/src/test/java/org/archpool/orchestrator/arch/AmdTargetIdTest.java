package org.archpool.orchestrator.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AmdTargetIdTest {

    @Test
    void processorAndFeatures() {
        assertThat(AmdTargetId.tryParse("gfx942:sramecc+:xnack-")).get()
                .returns("gfx942", AmdTargetId::processor)
                .returns(List.of("sramecc+", "xnack-"), AmdTargetId::features)
                .returns(false, AmdTargetId::isGeneric)
                .hasToString("gfx942:sramecc+:xnack-");
        assertThat(AmdTargetId.tryParse("gfx1103")).get()
                .returns(List.of(), AmdTargetId::features)
                .hasToString("gfx1103");
    }

    @ParameterizedTest
    @ValueSource(strings = {"gfx11-generic", "gfx9-4-generic:sramecc+:xnack-"})
    void genericProcessors(String text) {
        assertThat(AmdTargetId.tryParse(text)).get().returns(true, AmdTargetId::isGeneric);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "gfx", "GFX942", "gfx942:", "gfx942:xnack", "gfx942 :xnack-", "sm_90",
        "amdgcn-amd-amdhsa--gfx942", "gfx942:sramecc+:xnack-:"})
    void notTargetIds(String text) {
        assertThat(AmdTargetId.tryParse(text)).isEmpty();
    }
}
