package org.archpool.orchestrator.arch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Locale;
import java.util.stream.Stream;
import org.archpool.protocol.Platform;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class CudaArchTest {

    /**
     * Every known capability in every spelling, with and without each variant, as (spelling, CMake name, dotted
     * capability): those whose variant the table lists when {@code listed}, the others otherwise.
     */
    static Stream<Arguments> spellings(boolean listed) {
        return CudaTargets.all().stream().flatMap(cc -> Stream.of("", "a", "f")
                .filter(v -> listed == (v.isEmpty() || (v.equals("a") ? cc.archSpecific() : cc.familySpecific())))
                .flatMap(v -> {
                    String n = cc.sm() + v;
                    String dotted = cc.dotted();
                    return Stream.of(
                            Arguments.of(n, n, dotted),
                            Arguments.of(n + "-real", n + "-real", dotted),
                            Arguments.of(n + "-virtual", n + "-virtual", dotted),
                            Arguments.of("sm_" + n, n + "-real", dotted),
                            Arguments.of("compute_" + n, n + "-virtual", dotted),
                            Arguments.of(dotted + v, n, dotted),
                            Arguments.of(("sm_" + n).toUpperCase(Locale.ROOT), n + "-real", dotted));
                }));
    }

    static Stream<Arguments> listedSpellings() {
        return spellings(true);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("listedSpellings")
    void parsesEveryKnownCapabilityInEverySpelling(String spelling, String cmakeName, String dotted) throws Exception {
        CudaArch arch = CudaArch.parse(spelling);
        assertThat(arch.cmakeName()).isEqualTo(cmakeName);
        assertThat(arch.isKnown()).isTrue();
        assertThat(arch.platform()).isEqualTo(Platform.CUDA);
        assertThat(((CudaSm) arch).capability().toString()).isEqualTo(dotted);
    }

    static Stream<Arguments> unlistedSpellings() {
        return spellings(false);
    }

    @ParameterizedTest(name = "{0}: compute capability {2} has none")
    @MethodSource("unlistedSpellings")
    void refusesAVariantTheCapabilityLacksInEverySpelling(String spelling, String cmakeName, String dotted) {
        assertThatThrownBy(() -> CudaArch.parse(spelling)).isInstanceOf(ArchSyntaxException.class)
                .hasMessageContaining("compute capability " + dotted + " has none");
    }

    @Test
    void knowsTheWholeSetValues() throws Exception {
        assertThat(CudaArch.parse("all")).isSameAs(CudaAll.ALL);
        assertThat(CudaArch.parse("ALL-MAJOR")).isSameAs(CudaAll.ALL_MAJOR);
        assertThat(CudaAll.ALL.cmakeName()).isEqualTo("all").isEqualTo(CudaAll.ALL.toString());
        assertThat(CudaAll.ALL_MAJOR.cmakeName()).isEqualTo("all-major");
        assertThat(CudaAll.ALL.platform()).isEqualTo(Platform.CUDA);
        assertThat(CudaAll.ALL.isKnown()).isTrue();
    }

    @Test
    void valuesAreEqualWhateverTheSpelling() throws Exception {
        assertThat(CudaArch.parse("sm_90")).isEqualTo(CudaArch.parse("90-real"))
                .isEqualTo(new CudaSm(90, CudaSm.Variant.NONE, CudaSm.Code.REAL));
        assertThat(CudaArch.parse("9.0")).isEqualTo(CudaArch.parse("90")).isEqualTo(new CudaSm(90));
        assertThat(CudaArch.parse("compute_100f")).isEqualTo(CudaArch.parse("10.0f-virtual".replace("10.0f", "100f")));
        assertThat(CudaArch.parse("sm_90a").toString()).isEqualTo("90a-real");
    }

    @ParameterizedTest(name = "{0} is known")
    @ValueSource(strings = {"50", "52", "53", "60", "61", "62", "70", "72", "sm_70", "7.0"})
    void keepsCapabilitiesThatNewCudaDroppedBecauseTheGrammarIsNotTheToolchain(String old) throws Exception {
        assertThat(CudaArch.parse(old).isKnown()).isTrue();
    }

    @Test
    void enforcesItsInvariants() {
        assertThatThrownBy(() -> new CudaSm(9)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CudaSm(1000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CudaSm(-90)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CudaSm(86, CudaSm.Variant.ARCH_SPECIFIC, CudaSm.Code.REAL))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("8.6");
        assertThatThrownBy(() -> new CudaSm(90, CudaSm.Variant.FAMILY_SPECIFIC, CudaSm.Code.REAL))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CudaSm(130, CudaSm.Variant.FAMILY_SPECIFIC, CudaSm.Code.REAL))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CudaSm(90, null, CudaSm.Code.REAL)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new CudaSm(90, CudaSm.Variant.NONE, null)).isInstanceOf(NullPointerException.class);
        assertThat(new CudaSm(90, CudaSm.Variant.ARCH_SPECIFIC, CudaSm.Code.VIRTUAL).cmakeName()).isEqualTo("90a-virtual");
        assertThat(new CudaSm(130).isKnown()).isFalse();
        assertThat(new CudaSm(121).capability()).isEqualTo(new ComputeCapability(12, 1));
    }

    @ParameterizedTest
    @ValueSource(strings = {"090", "0", "00", "9", "1000", "90b", "90aa", "90af", "sm90", "sm_", "compute_",
            "sm_90-real", "9.", ".0", "9.0.0", "9.00", "90-REALLY", "90-", "-90", "90 ", "sm__90", "sm_ 90",
            "cuda90", "9.0+ptx", "sm_9.0", "gfx90a", "x", "all-", "allmajor", "10", "1.0", "99", "130", "200"})
    void refusesWhatIsNotAKnownCudaArchitecture(String token) {
        assertThatThrownBy(() -> CudaArch.parse(token)).isInstanceOf(ArchSyntaxException.class);
    }
}
