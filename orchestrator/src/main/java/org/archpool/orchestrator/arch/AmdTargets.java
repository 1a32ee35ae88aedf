package org.archpool.orchestrator.arch;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The AMD GPU targets archpool knows: every processor and generic target of the project's architecture table
 * ({@code fixtures/arch-table.md} §1, beside {@code DESIGN.md}), with the target-ID features each one has.
 * An architecture that is not here is refused when a person writes it (with "did you mean"); see
 * {@link HipArch} for what a detected device may still be.
 *
 * <p>Facts copied from that table, which cites: LLVM {@code llvm/docs/AMDGPUUsage.rst} (processor table,
 * generic processor table, target features; product names added by llvm/llvm-project#155577 and #170469),
 * clang's {@code OffloadArch} enum ({@code GFX9_4_GENERIC}, {@code GFX12_GENERIC}), AMD's ROCm GPU
 * specification pages (MI355X/MI350X = gfx950, MI325X = gfx942), Gentoo's {@code AMDGPU_TARGETS} descriptions,
 * ROCm/ROCm#4825 and ROCm/rocm-amdgpu-bench#17 (gfx940/gfx941 were pre-release MI300 parts):
 * <ul>
 *   <li>Target IDs are {@code <processor>[:<feature>(+|-)]...} with the features in alphabetical order; only
 *       {@code sramecc} and {@code xnack} appear in target IDs, and an omitted feature means "any".</li>
 *   <li>xnack/sramecc only exist on GFX8 APUs, GFX9 and GFX10.1: gfx900, gfx1010 (and the gfx9-generic and
 *       gfx10-1-generic members) have xnack only; gfx906, gfx908, gfx90a, gfx940-gfx942 and gfx950 have both;
 *       RDNA2 and later (gfx103x, gfx11xx, gfx12xx) have neither.</li>
 *   <li>Generic targets (code object V6+): gfx9-generic (xnack only: sramecc is not available on gfx906 via the
 *       generic target), gfx9-4-generic (xnack, sramecc), gfx10-1-generic (xnack), gfx10-3-generic,
 *       gfx11-generic and gfx12-generic (neither; their wavefrontsize64/cumode are compiler options, not target-ID
 *       features). gfx12-generic's membership is marked UNVERIFIED in the table.</li>
 *   <li>Processors named only as generic members (gfx902, gfx904, gfx909, gfx90c, gfx1011-gfx1013,
 *       gfx1032-gfx1034, gfx1153) take their features from their generic target's row.</li>
 * </ul>
 */
public final class AmdTargets {

    /**
     * One known target.
     *
     * @param name       the processor or generic target, e.g. {@code gfx942}, {@code gfx9-4-generic}
     * @param features   the target-ID features it has: a subset of {@code sramecc}, {@code xnack}
     * @param family     the family as the table gives it, e.g. {@code CDNA3}; empty for member-only rows
     * @param products   example products from the table, or the members of a generic target; may be empty
     * @param generic    the generic target it belongs to, or empty
     * @param preRelease whether it was a pre-release target that newer LLVM dropped (gfx940, gfx941)
     * @param aliases    product, code and family names (normalised as {@link #normalise} does) that mean it
     */
    public record Entry(String name, Set<String> features, String family, String products, String generic,
                        boolean preRelease, List<String> aliases) {
        public Entry {
            Objects.requireNonNull(name, "name");
            features = Set.copyOf(features);
            Objects.requireNonNull(family, "family");
            Objects.requireNonNull(products, "products");
            Objects.requireNonNull(generic, "generic");
            aliases = List.copyOf(aliases);
        }

        /** Whether this is a generic target ({@code gfx11-generic}). */
        public boolean isGeneric() {
            return name.endsWith("-generic");
        }

        /** {@code gfx942 (CDNA3: AMD Instinct MI300X, MI300A, MI325X)}, as messages name it. */
        public String describe() {
            String what = family.isEmpty() ? products : products.isEmpty() ? family : family + ": " + products;
            return what.isEmpty() ? name : name + " (" + what + ")";
        }
    }

    private static final Set<String> BOTH = Set.of("sramecc", "xnack");
    private static final Set<String> XNACK = Set.of("xnack");
    private static final Set<String> NONE = Set.of();

    private static final List<Entry> ENTRIES = List.of(
            e("gfx900", XNACK, "GCN5 Vega10", "Radeon RX Vega 56/64, Vega FE, Radeon Instinct MI25", "gfx9-generic",
                    "vega10 vega56 vega64 rxvega56 rxvega64 vegafe mi25 vega gcn5"),
            member("gfx902", XNACK, "gfx9-generic"),
            member("gfx904", XNACK, "gfx9-generic"),
            e("gfx906", BOTH, "GCN5.1 Vega20", "Radeon Instinct MI50/MI60, Radeon VII, Radeon Pro VII", "gfx9-generic",
                    "vega20 mi50 mi60 vii provii vega gcn5 gcn51"),
            e("gfx908", BOTH, "CDNA1", "AMD Instinct MI100", "", "mi100 cdna cdna1"),
            member("gfx909", XNACK, "gfx9-generic"),
            e("gfx90a", BOTH, "CDNA2", "AMD Instinct MI210, MI250, MI250X", "", "mi210 mi250 mi250x cdna cdna2"),
            member("gfx90c", XNACK, "gfx9-generic"),
            pre("gfx940", "MI300A A0 pre-release; removed from newer LLVM/ROCm, production MI300A reports gfx942"),
            pre("gfx941", "MI300X A0 pre-release; removed from newer LLVM/ROCm, production MI300X reports gfx942"),
            e("gfx942", BOTH, "CDNA3", "AMD Instinct MI300X, MI300A, MI325X", "gfx9-4-generic",
                    "mi300 mi300x mi300a mi325x cdna cdna3"),
            e("gfx950", BOTH, "CDNA4", "AMD Instinct MI350X, MI355X", "gfx9-4-generic",
                    "mi350 mi350x mi355x cdna cdna4"),
            e("gfx1010", XNACK, "RDNA1", "Radeon RX 5700 / 5700 XT", "gfx10-1-generic", "rx5700 rx5700xt rdna rdna1"),
            member("gfx1011", XNACK, "gfx10-1-generic"),
            member("gfx1012", XNACK, "gfx10-1-generic"),
            member("gfx1013", XNACK, "gfx10-1-generic"),
            e("gfx1030", NONE, "RDNA2 Navi21", "Radeon RX 6800 / 6800 XT / 6900 XT, Radeon PRO W6800",
                    "gfx10-3-generic", "navi21 rx6800 rx6800xt rx6900xt w6800 prow6800 rdna2"),
            e("gfx1031", NONE, "RDNA2 Navi22", "Radeon RX 6700 XT / 6750 XT", "gfx10-3-generic",
                    "navi22 rx6700xt rx6750xt rdna2"),
            member("gfx1032", NONE, "gfx10-3-generic"),
            member("gfx1033", NONE, "gfx10-3-generic"),
            member("gfx1034", NONE, "gfx10-3-generic"),
            e("gfx1035", NONE, "RDNA2 iGPU", "Rembrandt iGPU e.g. 680M (UNVERIFIED)", "gfx10-3-generic",
                    "rembrandt 680m rdna2"),
            e("gfx1036", NONE, "RDNA2 iGPU", "Raphael iGPU of Ryzen 7000/9000 desktop CPUs, not ROCm-supported",
                    "gfx10-3-generic", "raphael rdna2"),
            e("gfx1100", NONE, "RDNA3 Navi31", "Radeon RX 7900 XTX / XT / GRE, Radeon PRO W7900 / W7800",
                    "gfx11-generic", "navi31 rx7900xtx rx7900xt rx7900gre w7900 prow7900 w7800 prow7800 rdna3"),
            e("gfx1101", NONE, "RDNA3 Navi32",
                    "Radeon RX 7800 XT / 7700 XT / 7700, Radeon PRO W7700 (UNVERIFIED for W7700)",
                    "gfx11-generic", "navi32 rx7800xt rx7700xt rx7700 w7700 prow7700 rdna3"),
            e("gfx1102", NONE, "RDNA3 Navi33", "Radeon RX 7600 / 7600 XT, Radeon PRO W7600 / W7500", "gfx11-generic",
                    "navi33 rx7600 rx7600xt w7600 prow7600 w7500 prow7500 rdna3"),
            e("gfx1103", NONE, "RDNA3 iGPU (Phoenix/Hawk Point)", "Radeon 780M / 760M / 740M", "gfx11-generic",
                    "phoenix hawkpoint 780m 760m 740m rdna3"),
            e("gfx1150", NONE, "RDNA3.5 (Strix Point)", "Radeon 890M / 880M", "gfx11-generic",
                    "strixpoint strix 890m 880m rdna35"),
            e("gfx1151", NONE, "RDNA3.5 (Strix Halo)", "Radeon 8060S / 8050S (Ryzen AI Max / Max+)", "gfx11-generic",
                    "strixhalo strix 8060s 8050s ryzenaimax rdna35"),
            e("gfx1152", NONE, "RDNA3.5 (Krackan)", "Radeon 860M / 840M (UNVERIFIED product names)", "gfx11-generic",
                    "krackan krackanpoint 860m 840m rdna35"),
            member("gfx1153", NONE, "gfx11-generic"),
            e("gfx1200", NONE, "RDNA4 Navi44", "Radeon RX 9060 / 9060 XT", "gfx12-generic",
                    "navi44 rx9060 rx9060xt rdna4"),
            e("gfx1201", NONE, "RDNA4 Navi48",
                    "Radeon RX 9070 / 9070 XT / 9070 GRE, Radeon AI PRO R9700 (UNVERIFIED for R9700)",
                    "gfx12-generic", "navi48 rx9070 rx9070xt rx9070gre r9700 aipror9700 rdna4"),
            generic("gfx9-generic", XNACK, "gfx900, gfx902, gfx904, gfx906, gfx909, gfx90c"),
            generic("gfx9-4-generic", BOTH, "gfx940, gfx941, gfx942, gfx950"),
            generic("gfx10-1-generic", XNACK, "gfx1010, gfx1011, gfx1012, gfx1013"),
            generic("gfx10-3-generic", NONE, "gfx1030 to gfx1036"),
            generic("gfx11-generic", NONE, "gfx1100, gfx1101, gfx1102, gfx1103, gfx1150, gfx1151, gfx1152, gfx1153"),
            generic("gfx12-generic", NONE, "gfx1200, gfx1201 (membership UNVERIFIED)"));

    private static final Map<String, Entry> BY_NAME = index();

    private AmdTargets() {
    }

    /** Every known target, processors in numeric order, then the generic targets. */
    public static List<Entry> all() {
        return ENTRIES;
    }

    /** The entry for a processor or generic target in lower case, e.g. {@code gfx90a}. */
    public static Optional<Entry> lookup(String name) {
        return Optional.ofNullable(BY_NAME.get(name));
    }

    /**
     * The targets that a product, code or family name means ({@code MI300X}, {@code mi-300x}, {@code navi31},
     * {@code rdna3}, {@code Radeon-VII}), in table order; empty when it means none.
     */
    public static List<Entry> byAlias(String text) {
        String key = normalise(text);
        if (key.isEmpty()) {
            return List.of();
        }
        return ENTRIES.stream().filter(e -> e.aliases().contains(key)).toList();
    }

    /** Lower case, without {@code - _ . + :} and without a leading {@code amd}, {@code radeon} or {@code instinct}. */
    static String normalise(String text) {
        String key = CudaTargets.squash(text);
        boolean changed = true;
        while (changed) {
            changed = false;
            for (String prefix : List.of("amd", "radeon", "instinct")) {
                if (key.startsWith(prefix) && key.length() > prefix.length()) {
                    key = key.substring(prefix.length());
                    changed = true;
                }
            }
        }
        return key;
    }

    private static Map<String, Entry> index() {
        Map<String, Entry> map = new LinkedHashMap<>();
        for (Entry entry : ENTRIES) {
            if (map.put(entry.name(), entry) != null) {
                throw new IllegalStateException("duplicate AMD target " + entry.name());
            }
        }
        return Map.copyOf(map);
    }

    private static Entry e(String name, Set<String> features, String family, String products, String generic,
                           String aliases) {
        return new Entry(name, features, family, products, generic, false, List.of(aliases.split(" ")));
    }

    private static Entry member(String name, Set<String> features, String generic) {
        return new Entry(name, features, "", "", generic, false, List.of());
    }

    private static Entry pre(String name, String products) {
        return new Entry(name, BOTH, "CDNA3 (pre-production)", products, "gfx9-4-generic", true, List.of());
    }

    private static Entry generic(String name, Set<String> features, String members) {
        return new Entry(name, features, "generic target", "runs on " + members, "", false, List.of());
    }
}
