package org.archpool.orchestrator.arch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.archpool.protocol.Platform;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class HipArchTest {

    static Stream<AmdTargets.Entry> targets() {
        return AmdTargets.all().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void parsesEveryKnownTargetInAnyCase(AmdTargets.Entry target) throws Exception {
        HipArch arch = HipArch.parse(target.name());
        assertThat(arch.cmakeName()).isEqualTo(target.name());
        assertThat(arch.features()).isEmpty();
        assertThat(arch.isKnown()).isTrue();
        assertThat(arch.platform()).isEqualTo(Platform.HIP);
        assertThat(arch.isGeneric()).isEqualTo(target.name().endsWith("-generic"));
        assertThat(HipArch.parse(target.name().toUpperCase(Locale.ROOT))).isEqualTo(arch);
        assertThat(GpuArch.parse(Platform.HIP, target.name())).isEqualTo(arch);
    }

    /**
     * Every combination of features and signs on every known target, as (written in reverse canonical order,
     * canonical name, processor, features as written): those the table gives the target when {@code supported},
     * the others otherwise.
     */
    static Stream<Arguments> featureCombinations(boolean supported) {
        return AmdTargets.all().stream().flatMap(target -> Stream.of("", "sramecc+", "sramecc-")
                .flatMap(s -> Stream.of("", "xnack+", "xnack-")
                        .map(x -> Stream.of(s, x).filter(f -> !f.isEmpty()).toList()))
                .filter(features -> supported == features.stream()
                        .allMatch(f -> target.features().contains(f.substring(0, f.length() - 1))))
                .map(features -> {
                    List<String> reversed = new ArrayList<>(features);
                    Collections.reverse(reversed);
                    return Arguments.of(targetId(target.name(), reversed), targetId(target.name(), features),
                            target.name(), reversed);
                }));
    }

    static String targetId(String processor, List<String> features) {
        return Stream.concat(Stream.of(processor), features.stream()).collect(Collectors.joining(":"));
    }

    static Stream<Arguments> supportedFeatures() {
        return featureCombinations(true);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("supportedFeatures")
    void acceptsEveryCombinationOfTheFeaturesTheTargetHas(String written, String canonical, String processor,
                                                          List<String> features) throws Exception {
        assertThat(HipArch.parse(written).cmakeName()).isEqualTo(canonical);
        assertThat(new HipArch(processor, features).cmakeName()).isEqualTo(canonical);
    }

    static Stream<Arguments> unsupportedFeatures() {
        return featureCombinations(false);
    }

    @ParameterizedTest(name = "{0} is refused")
    @MethodSource("unsupportedFeatures")
    void refusesEveryCombinationWithAFeatureTheTargetLacks(String written, String canonical, String processor,
                                                            List<String> features) {
        assertThatThrownBy(() -> HipArch.parse(written)).isInstanceOf(ArchSyntaxException.class)
                .hasMessageContaining(processor + " has ");
        assertThatThrownBy(() -> new HipArch(processor, features)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void keepsFeaturesInCanonicalOrderWhateverOrderTheyCameIn() {
        HipArch a = new HipArch("gfx942", List.of("xnack-", "sramecc+"));
        HipArch b = new HipArch("gfx942", List.of("sramecc+", "xnack-"));
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a.features()).containsExactly("sramecc+", "xnack-");
        assertThat(a.cmakeName()).isEqualTo("gfx942:sramecc+:xnack-").isEqualTo(a.toString());
        assertThatThrownBy(() -> a.features().add("x")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void copiesTheFeatureList() {
        List<String> features = new ArrayList<>(List.of("xnack-"));
        HipArch arch = new HipArch("gfx90a", features);
        features.add("sramecc+");
        assertThat(arch.features()).containsExactly("xnack-");
    }

    @Test
    void stripsFeaturesAndConvertsToATargetId() {
        HipArch arch = new HipArch("gfx942", List.of("sramecc+", "xnack-"));
        assertThat(arch.withoutFeatures()).isEqualTo(new HipArch("gfx942"));
        assertThat(new HipArch("gfx942").withoutFeatures()).isEqualTo(new HipArch("gfx942"));
        assertThat(arch.targetId()).isEqualTo(AmdTargetId.tryParse("gfx942:sramecc+:xnack-").orElseThrow());
        assertThat(arch.targetId().toString()).isEqualTo(arch.cmakeName());
    }

    @ParameterizedTest
    @ValueSource(strings = {"GFX942", "gfx942 ", " gfx942", "gfx942:xnack-", "gfx", "gfx9", "gfx94", "gfx12345",
            "gfxzzz", "gf\u0445942", "gfx\uff19\uff14\uff12", "../x", "", "gfx942\u0000", "gfx9-4-4-generic",
            "gfx9-generic-x", "GFX9-GENERIC"})
    void refusesMalformedProcessors(String processor) {
        assertThatThrownBy(() -> new HipArch(processor)).isInstanceOf(IllegalArgumentException.class);
    }

    static Stream<List<String>> malformedFeatures() {
        return Stream.of(List.of("xnack"), List.of("XNACK-"), List.of("xnack+", "xnack-"), List.of("xnack-", "xnack-"),
                List.of("wavefrontsize64+"), List.of(":xnack-"), List.of(""), List.of("xnack\u2212"),
                Arrays.asList((String) null));
    }

    @ParameterizedTest(name = "[{index}] gfx942 with {0}")
    @MethodSource("malformedFeatures")
    void refusesMalformedOrRepeatedFeatures(List<String> features) {
        assertThatThrownBy(() -> new HipArch("gfx942", features)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void refusesANullProcessorOrFeatureList() {
        assertThatThrownBy(() -> new HipArch(null, List.of())).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new HipArch("gfx942", null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void givesAnUnknownProcessorNoFeatures() {
        HipArch next = new HipArch("gfx1250");
        assertThat(next.isKnown()).isFalse();
        assertThat(next.cmakeName()).isEqualTo("gfx1250");
        assertThatThrownBy(() -> new HipArch("gfx1250", List.of("xnack-")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HipArch.parse("gfx1250")).isInstanceOf(ArchSyntaxException.class)
                .hasMessageContaining("not in archpool's table");
    }

    @Test
    void parsesOneEntryOnly() {
        assertThatThrownBy(() -> HipArch.parse("gfx942 gfx90a")).isInstanceOf(ArchSyntaxException.class)
                .hasMessageContaining("list separator");
        assertThatThrownBy(() -> HipArch.parse("gfx942,gfx90a")).isInstanceOf(ArchSyntaxException.class)
                .hasMessageContaining("list separator");
        assertThatThrownBy(() -> HipArch.parse("native")).isInstanceOf(ArchSyntaxException.class)
                .hasMessageContaining("detection");
        assertThatThrownBy(() -> HipArch.parse("gf\u0445942")).isInstanceOf(ArchSyntaxException.class)
                .hasMessageContaining("U+0445");
        assertThatThrownBy(() -> HipArch.parse("")).isInstanceOf(ArchSyntaxException.class);
    }
}
