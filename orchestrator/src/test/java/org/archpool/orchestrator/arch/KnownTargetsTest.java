package org.archpool.orchestrator.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The known-target tables hold what the project's arch-table fixture lists, and nothing else. */
class KnownTargetsTest {

    private static final List<String> AMD_PROCESSORS = List.of("gfx900", "gfx902", "gfx904", "gfx906", "gfx908",
            "gfx909", "gfx90a", "gfx90c", "gfx940", "gfx941", "gfx942", "gfx950", "gfx1010", "gfx1011", "gfx1012",
            "gfx1013", "gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036", "gfx1100",
            "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153", "gfx1200", "gfx1201");
    private static final List<String> AMD_GENERIC = List.of("gfx9-generic", "gfx9-4-generic", "gfx10-1-generic",
            "gfx10-3-generic", "gfx11-generic", "gfx12-generic");
    private static final Set<String> XNACK_ONLY = Set.of("gfx900", "gfx902", "gfx904", "gfx909", "gfx90c", "gfx1010",
            "gfx1011", "gfx1012", "gfx1013", "gfx9-generic", "gfx10-1-generic");
    private static final Set<String> BOTH = Set.of("gfx906", "gfx908", "gfx90a", "gfx940", "gfx941", "gfx942",
            "gfx950", "gfx9-4-generic");

    @Test
    void listsEveryAmdTargetOfTheTable() {
        assertThat(AmdTargets.all()).extracting(AmdTargets.Entry::name)
                .containsExactlyElementsOf(concat(AMD_PROCESSORS, AMD_GENERIC));
    }

    @Test
    void givesEachAmdTargetTheFeaturesOfTheTable() {
        for (AmdTargets.Entry e : AmdTargets.all()) {
            Set<String> expected = BOTH.contains(e.name()) ? Set.of("sramecc", "xnack")
                    : XNACK_ONLY.contains(e.name()) ? Set.of("xnack") : Set.of();
            assertThat(e.features()).as(e.name()).isEqualTo(expected);
        }
    }

    @Test
    void marksThePreReleaseMi300Targets() {
        assertThat(AmdTargets.all().stream().filter(AmdTargets.Entry::preRelease).map(AmdTargets.Entry::name))
                .containsExactly("gfx940", "gfx941");
        assertThat(AmdTargets.lookup("gfx942").orElseThrow().generic()).isEqualTo("gfx9-4-generic");
        assertThat(AmdTargets.lookup("gfx908").orElseThrow().generic()).isEmpty();
        assertThat(AmdTargets.lookup("gfx11-generic").orElseThrow().products()).contains("gfx1153");
    }

    @Test
    void listsEveryCudaCapabilityOfTheTable() {
        assertThat(CudaTargets.all()).extracting(CudaTargets.Entry::sm).containsExactly(50, 52, 53, 60, 61, 62, 70,
                72, 75, 80, 86, 87, 88, 89, 90, 100, 101, 103, 110, 120, 121);
        assertThat(CudaTargets.all().stream().filter(CudaTargets.Entry::archSpecific).map(CudaTargets.Entry::sm))
                .containsExactly(90, 100, 103, 110, 120, 121);
        assertThat(CudaTargets.all().stream().filter(CudaTargets.Entry::familySpecific).map(CudaTargets.Entry::sm))
                .containsExactly(100, 103, 110, 120, 121);
        assertThat(CudaTargets.lookup(101).orElseThrow().dropped()).contains("sm_110");
        assertThat(CudaTargets.lookup(70).orElseThrow().dropped()).isEqualTo("CUDA 13.0");
        assertThat(CudaTargets.lookup(75).orElseThrow().dropped()).isEmpty();
        assertThat(CudaTargets.lookup(35)).isEmpty();
        assertThat(CudaTargets.removedIn(35)).contains("12.0");
    }

    @Test
    void mapsProductAndFamilyNames() {
        assertThat(AmdTargets.byAlias("MI300X")).extracting(AmdTargets.Entry::name).containsExactly("gfx942");
        assertThat(AmdTargets.byAlias("AMD-Instinct-MI325X")).extracting(AmdTargets.Entry::name)
                .containsExactly("gfx942");
        assertThat(AmdTargets.byAlias("mi355x")).extracting(AmdTargets.Entry::name).containsExactly("gfx950");
        assertThat(AmdTargets.byAlias("vega")).extracting(AmdTargets.Entry::name).containsExactly("gfx900", "gfx906");
        assertThat(AmdTargets.byAlias("rdna3.5")).extracting(AmdTargets.Entry::name)
                .containsExactly("gfx1150", "gfx1151", "gfx1152");
        assertThat(AmdTargets.byAlias("")).isEmpty();
        assertThat(AmdTargets.byAlias("h100")).isEmpty();
        assertThat(CudaTargets.byAlias("H100")).extracting(CudaTargets.Entry::sm).containsExactly(90);
        assertThat(CudaTargets.byAlias("geforce-rtx-4070-super")).extracting(CudaTargets.Entry::sm).containsExactly(89);
        assertThat(CudaTargets.byAlias("Tesla-V100")).extracting(CudaTargets.Entry::sm).containsExactly(70);
        assertThat(CudaTargets.byAlias("jetson-orin")).extracting(CudaTargets.Entry::sm).containsExactly(87);
        assertThat(CudaTargets.byAlias("dgx-spark")).extracting(CudaTargets.Entry::sm).containsExactly(121);
        assertThat(CudaTargets.byAlias("thor")).extracting(CudaTargets.Entry::sm).containsExactly(101, 110);
        assertThat(CudaTargets.byAlias("ampere")).extracting(CudaTargets.Entry::sm).containsExactly(80, 86, 87);
        assertThat(CudaTargets.byAlias("a10")).extracting(CudaTargets.Entry::sm).containsExactly(86);
        assertThat(CudaTargets.byAlias("mi300x")).isEmpty();
        for (AmdTargets.Entry e : AmdTargets.all()) {
            for (String alias : e.aliases()) {
                assertThat(CudaTargets.byAlias(alias)).as("AMD alias %s is also NVIDIA's", alias).isEmpty();
            }
        }
    }

    @Test
    void describesTargetsForMessages() {
        assertThat(AmdTargets.lookup("gfx942").orElseThrow().describe())
                .isEqualTo("gfx942 (CDNA3: AMD Instinct MI300X, MI300A, MI325X)");
        assertThat(AmdTargets.lookup("gfx902").orElseThrow().describe()).isEqualTo("gfx902");
        assertThat(CudaTargets.lookup(90).orElseThrow().describe()).isEqualTo("90 (Hopper: H100, H200, GH200)");
        assertThat(CudaTargets.lookup(121).orElseThrow().dotted()).isEqualTo("12.1");
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }
}
