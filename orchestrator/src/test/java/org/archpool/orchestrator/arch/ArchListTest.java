package org.archpool.orchestrator.arch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.archpool.protocol.Platform;
import org.junit.jupiter.api.Test;

class ArchListTest {

    @Test
    void splitsCanonicalisesAndDeduplicates() throws Exception {
        assertThat(ArchList.parse(Platform.CUDA, " 90, 80;90a  sm_90 compute_80 9.0 ;;")).containsExactly(
                "90", "80", "90a", "90-real", "80-virtual");
        assertThat(ArchList.parse(Platform.CUDA, "all-major")).containsExactly("all-major");
        assertThat(ArchList.parse(Platform.CUDA, "100f,120a-real")).containsExactly("100f", "120a-real");
        assertThat(ArchList.parse(Platform.HIP, "GFX942 gfx90a:xnack- gfx942,gfx11-generic gfx9-4-generic"))
                .containsExactly("gfx942", "gfx90a:xnack-", "gfx11-generic", "gfx9-4-generic");
    }

    @Test
    void refusesWhatItCannotBuild() {
        assertThatThrownBy(() -> ArchList.parse(Platform.CUDA, "native")).hasMessageContaining("'native'")
                .hasMessageContaining("detects");
        assertThatThrownBy(() -> ArchList.parse(Platform.HIP, "native")).hasMessageContaining("'native'");
        assertThatThrownBy(() -> ArchList.parse(Platform.CUDA, ",;")).hasMessageContaining("empty");
        assertThatThrownBy(() -> ArchList.parse(Platform.CUDA, "70")).hasMessageContaining("older than sm_75");
        assertThatThrownBy(() -> ArchList.parse(Platform.CUDA, "gfx942")).hasMessageContaining("not a CUDA architecture");
        assertThatThrownBy(() -> ArchList.parse(Platform.HIP, "90")).hasMessageContaining("not a HIP architecture");
        assertThatThrownBy(() -> ArchList.parse(Platform.HIP, "gfx942:xnack")).isInstanceOf(ArchSyntaxException.class);
        assertThatThrownBy(() -> ArchList.parse(Platform.HIP, "gfx90a;rm -rf /")).isInstanceOf(ArchSyntaxException.class);
    }

    @Test
    void guessesThePlatformOfAnExplicitList() {
        assertThat(ArchList.guessPlatform("gfx942")).isEqualTo(Platform.HIP);
        assertThat(ArchList.guessPlatform("sm_90,80")).isEqualTo(Platform.CUDA);
        assertThat(ArchList.guessPlatform("all")).isEqualTo(Platform.CUDA);
        assertThat(ArchList.guessPlatform("banana")).isNull();
    }
}
