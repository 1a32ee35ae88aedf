package org.archpool.orchestrator.arch;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The NVIDIA compute capabilities archpool knows: every row of the project's architecture table
 * ({@code fixtures/arch-table.md} §2, beside {@code DESIGN.md}), 5.0 to 12.1, with the {@code a}/{@code f}
 * variants each one has.
 *
 * <p>This is the grammar's table, not the toolchain's: a capability that the installed CUDA dropped (CUDA 13.0
 * removed everything below 7.5) is still a valid, known architecture here; whether the compiler can build it
 * is asked of the compiler.
 *
 * <p>Facts copied from that table, which cites: CMake's {@code Modules/Internal/CMakeCUDAArchitecturesAll.cmake}
 * (per-version arch lists) and {@code CMakeCUDAArchitecturesValidate.cmake}, the CMake
 * {@code CUDA_ARCHITECTURES} documentation, NVIDIA's "Navigating GPU architecture support" blog post and
 * NVIDIA/cuDecomp#97 (CUDA 13.0 drops CC &lt; 7.5), NVIDIA's CUDA 12.9 family-specific features post and
 * EESSI support#210 ({@code f} targets; 100f covers 10.0 and 10.3), LLVM D155851 and CMake MR 7649
 * ({@code a} targets), the cuRANDDx 0.2.4 release notes (sm_101 renamed sm_110 in CUDA 13.0), clang's
 * {@code OffloadArch} enum (sm_88, UNVERIFIED in CMake), huggingface.js#2010 and developer.nvidia.com/cuda-gpus
 * (products):
 * <ul>
 *   <li>CC {@code X.Y}: real arch {@code sm_XY}, virtual arch {@code compute_XY}; CMake {@code XY} (real +
 *       virtual), {@code XY-real}, {@code XY-virtual}.</li>
 *   <li>{@code a} (arch-specific: runs only on exactly that CC) exists for 9.0, 10.0, 10.3, 11.0, 12.0, 12.1;
 *       {@code f} (family-specific, CUDA 12.9+: runs on that CC and later ones of its family) for 10.0, 10.3,
 *       11.0, 12.0, 12.1. The hardware never reports a suffix.</li>
 *   <li>CC 2.x was removed in CUDA 9.0, 3.0 in 11.0, 3.5/3.7 in 12.0 (per CMake's table); these are not
 *       known here, and a message says so.</li>
 * </ul>
 */
public final class CudaTargets {

    /**
     * One known compute capability.
     *
     * @param sm             the capability without its dot, as CMake writes it: {@code 90} for 9.0, {@code 121}
     *                       for 12.1
     * @param archSpecific   whether an {@code a} target exists ({@code 90a})
     * @param familySpecific whether an {@code f} target exists ({@code 100f})
     * @param architecture   the architecture's name, e.g. {@code Hopper}, {@code Ampere (Tegra)}
     * @param products       example products from the table, e.g. {@code H100, H200, GH200}
     * @param dropped        the CUDA version that dropped or renamed it, or empty
     * @param aliases        product and family names (squashed as {@link #normalise} does) that mean it;
     *                       {@code xx} stands for two digits ({@code rtx40xx} matches {@code rtx4090})
     */
    public record Entry(int sm, boolean archSpecific, boolean familySpecific, String architecture, String products,
                        String dropped, List<String> aliases) {
        public Entry {
            Objects.requireNonNull(architecture, "architecture");
            Objects.requireNonNull(products, "products");
            Objects.requireNonNull(dropped, "dropped");
            aliases = List.copyOf(aliases);
        }

        /** {@code 9.0}. */
        public String dotted() {
            return sm / 10 + "." + sm % 10;
        }

        /** {@code 90 (Hopper: H100, H200, GH200)}, as messages name it. */
        public String describe() {
            return sm + " (" + architecture + (products.isEmpty() ? "" : ": " + products) + ")";
        }

        boolean matchesAlias(String key) {
            for (String alias : aliases) {
                if (alias.equals(key) || (alias.contains("xx") && Pattern.matches(
                        alias.replace("xx", "(?:[0-9]{2}|xx)") + "(?:ti|super|tisuper)?", key))) {
                    return true;
                }
            }
            return false;
        }
    }

    private static final List<Entry> ENTRIES = List.of(
            e(50, "", "Maxwell", "GTX 750 / 750 Ti", "CUDA 13.0", "maxwell gtx750 gtx750ti"),
            e(52, "", "Maxwell", "GTX 9xx, Tesla M40", "CUDA 13.0", "maxwell gtx9xx m40"),
            e(53, "", "Maxwell (Tegra)", "Jetson Nano / TX1", "CUDA 13.0", "maxwell nano tx1"),
            e(60, "", "Pascal", "Tesla P100", "CUDA 13.0", "pascal p100"),
            e(61, "", "Pascal", "GTX 10xx, Tesla P40/P4", "CUDA 13.0", "pascal gtx10xx p40 p4"),
            e(62, "", "Pascal (Tegra)", "Jetson TX2", "CUDA 13.0", "pascal tx2"),
            e(70, "", "Volta", "Tesla V100, TITAN V", "CUDA 13.0", "volta v100 titanv"),
            e(72, "", "Volta (Tegra)", "Jetson AGX Xavier", "CUDA 13.0", "volta xavier agxxavier"),
            e(75, "", "Turing", "T4, RTX 20xx, Quadro RTX 8000, T1000", "", "turing t4 rtx20xx rtx8000 t1000"),
            e(80, "", "Ampere", "A100, A30", "", "ampere a100 a30"),
            e(86, "", "Ampere", "RTX 30xx, A40, RTX A6000, A10", "", "ampere rtx30xx a40 rtxa6000 a6000 a10"),
            e(87, "", "Ampere (Tegra)", "Jetson Orin", "", "ampere orin"),
            e(88, "", "listed by clang's OffloadArch only, UNVERIFIED", "", "", ""),
            e(89, "", "Ada Lovelace", "RTX 40xx, L4, L40/L40S, RTX 6000/5880 Ada", "",
                    "ada lovelace adalovelace rtx40xx l4 l40 l40s rtx6000ada rtx5880ada"),
            e(90, "a", "Hopper", "H100, H200, GH200", "", "hopper h100 h200 gh200"),
            e(100, "af", "Blackwell (DC)", "B200, GB200", "", "blackwell b200 gb200"),
            e(101, "", "Blackwell (Thor)", "Jetson Thor", "renamed to sm_110 in CUDA 13.0", "blackwell thor"),
            e(103, "af", "Blackwell Ultra (DC)", "B300, GB300 (UNVERIFIED)", "", "blackwell blackwellultra b300 gb300"),
            e(110, "af", "Blackwell (Thor)", "Jetson Thor, the former sm_101", "", "blackwell thor"),
            e(120, "af", "Blackwell (consumer/workstation)", "RTX 50xx, RTX PRO 6000 Blackwell", "",
                    "blackwell rtx50xx rtxpro6000 rtxpro6000blackwell"),
            e(121, "af", "Blackwell (GB10)", "DGX Spark / GB10", "", "blackwell gb10 dgxspark spark"));

    /** Capabilities removed from CUDA before the table's oldest row, with the CUDA version that removed them. */
    private static final Map<Integer, String> REMOVED =
            Map.of(20, "9.0", 21, "9.0", 30, "11.0", 35, "12.0", 37, "12.0");

    private static final Map<Integer, Entry> BY_SM = index();

    private CudaTargets() {
    }

    /** Every known compute capability, oldest first. */
    public static List<Entry> all() {
        return ENTRIES;
    }

    /** The entry for a capability written without its dot ({@code 90}, {@code 121}). */
    public static Optional<Entry> lookup(int sm) {
        return Optional.ofNullable(BY_SM.get(sm));
    }

    /** The CUDA version that removed an old capability this table does not list ({@code 35} gives {@code 12.0}). */
    static Optional<String> removedIn(int sm) {
        return Optional.ofNullable(REMOVED.get(sm));
    }

    /**
     * The capabilities that a product or family name means ({@code H100}, {@code hopper}, {@code RTX-4090},
     * {@code ampere}), oldest first; empty when it means none.
     */
    public static List<Entry> byAlias(String text) {
        String key = normalise(text);
        if (key.isEmpty()) {
            return List.of();
        }
        return ENTRIES.stream().filter(e -> e.matchesAlias(key)).toList();
    }

    /** Lower case, without {@code - _ . + :} and without a leading {@code nvidia}, {@code geforce}, ... */
    static String normalise(String text) {
        String key = squash(text);
        boolean changed = true;
        while (changed) {
            changed = false;
            for (String prefix : List.of("nvidia", "geforce", "tesla", "quadro", "jetson", "dgx")) {
                if (key.startsWith(prefix) && key.length() > prefix.length()) {
                    key = key.substring(prefix.length());
                    changed = true;
                }
            }
        }
        return key;
    }

    /** ASCII lower case without the punctuation that product names are written with. */
    static String squash(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if ("-_.+: ".indexOf(c) < 0) {
                out.append(c);
            }
        }
        return out.toString().toLowerCase(Locale.ROOT);
    }

    private static Map<Integer, Entry> index() {
        Map<Integer, Entry> map = new LinkedHashMap<>();
        for (Entry entry : ENTRIES) {
            if (map.put(entry.sm(), entry) != null) {
                throw new IllegalStateException("duplicate compute capability " + entry.sm());
            }
        }
        return Map.copyOf(map);
    }

    private static Entry e(int sm, String variants, String architecture, String products, String dropped,
                           String aliases) {
        return new Entry(sm, variants.contains("a"), variants.contains("f"), architecture, products, dropped,
                aliases.isEmpty() ? List.of() : List.of(aliases.split(" ")));
    }
}
