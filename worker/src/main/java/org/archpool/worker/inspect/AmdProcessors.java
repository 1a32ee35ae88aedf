package org.archpool.worker.inspect;

import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The AMD GPU processors an ELF file's {@code e_flags} can name: the {@code EF_AMDGPU_MACH} field, the low 8 bits,
 * mapped to LLVM's processor names ({@code gfx90a}, {@code gfx1100}, {@code gfx9-generic}, ...).
 *
 * <p>The table follows {@code AMDGPU_MACH_LIST} / the {@code EF_AMDGPU_MACH_*} constants of LLVM's
 * {@code llvm/include/llvm/BinaryFormat/ELF.h} and the "AMDGPU {@code EF_AMDGPU_MACH} Values" table of
 * {@code llvm/docs/AMDGPUUsage.rst}, as of LLVM's main branch in 2025 (which goes beyond LLVM 19: gfx950,
 * gfx1153, gfx1154, gfx1170-gfx1172, gfx1250, gfx1251, gfx1310 and the generic targets gfx9-4-generic,
 * gfx11-7-generic, gfx12-5-generic and gfx13-generic). It also keeps {@code gfx940} (0x40) and {@code gfx941}
 * (0x4b), which LLVM 20 removed but LLVM 19 and ROCm 6 still emit. Values 0x01-0x10 are the R600 processors
 * ({@code r600} ... {@code turks}); their code objects are 32-bit ELF and not amdgcn code, see
 * {@link #isR600(int)}. Values LLVM reserves or has not assigned are unknown: {@link #name(int)} returns empty for
 * them rather than inventing a name, so that a reader can report them.
 *
 * <p>The table is cross-checked in the tests against {@code llvm-readelf-19}'s names for every value and against
 * the {@code e_flags} that {@code llc-19} writes for every processor it knows.
 *
 * <p>For each amdgcn processor the table also records whether it supports the {@code xnack} and {@code sramecc}
 * target features (AMDGPUUsage's processor table; checked in the tests against the "any"/"unsupported" settings
 * {@code llc-19} writes for every processor it knows). That is needed only to turn the on/off bits of code object
 * V3 into a target ID the way the ROCm runtime and comgr do: a clear bit means "{@code -}" on a processor that
 * supports the feature and nothing on one that does not. Code object V4 and later state "unsupported" in
 * {@code e_flags} themselves. Processors newer than LLVM 19 never appear in V3 code objects (clang 19 already
 * rejects {@code -mcode-object-version=3}), so their entries are best effort and matter to nothing.
 */
public final class AmdProcessors {

    /** Mask of the processor field in {@code e_flags}. */
    public static final int EF_AMDGPU_MACH = 0xff;

    /** {@code EF_AMDGPU_MACH_NONE}: no processor specified. */
    public static final int MACH_NONE = 0;

    private static final int X = 1; // supports xnack
    private static final int S = 2; // supports sramecc

    private record Processor(int mach, String name, boolean xnack, boolean sramecc) {
    }

    private static final Map<Integer, Processor> BY_MACH;
    private static final Map<String, Processor> BY_NAME;

    static {
        Map<Integer, Processor> byMach = new TreeMap<>();
        // R600 (32-bit ELF, no HSA code objects)
        String[] r600 = {"r600", "r630", "rs880", "rv670", "rv710", "rv730", "rv770", "cedar", "cypress", "juniper",
            "redwood", "sumo", "barts", "caicos", "cayman", "turks"};
        for (int i = 0; i < r600.length; i++) {
            add(byMach, 0x01 + i, r600[i], 0);
        }
        // 0x11-0x1f reserved for R600
        add(byMach, 0x20, "gfx600", 0);
        add(byMach, 0x21, "gfx601", 0);
        add(byMach, 0x22, "gfx700", 0);
        add(byMach, 0x23, "gfx701", 0);
        add(byMach, 0x24, "gfx702", 0);
        add(byMach, 0x25, "gfx703", 0);
        add(byMach, 0x26, "gfx704", 0);
        // 0x27 reserved
        add(byMach, 0x28, "gfx801", X);
        add(byMach, 0x29, "gfx802", 0);
        add(byMach, 0x2a, "gfx803", 0);
        add(byMach, 0x2b, "gfx810", X);
        add(byMach, 0x2c, "gfx900", X);
        add(byMach, 0x2d, "gfx902", X);
        add(byMach, 0x2e, "gfx904", X);
        add(byMach, 0x2f, "gfx906", X | S);
        add(byMach, 0x30, "gfx908", X | S);
        add(byMach, 0x31, "gfx909", X);
        add(byMach, 0x32, "gfx90c", X);
        add(byMach, 0x33, "gfx1010", X);
        add(byMach, 0x34, "gfx1011", X);
        add(byMach, 0x35, "gfx1012", X);
        add(byMach, 0x36, "gfx1030", 0);
        add(byMach, 0x37, "gfx1031", 0);
        add(byMach, 0x38, "gfx1032", 0);
        add(byMach, 0x39, "gfx1033", 0);
        add(byMach, 0x3a, "gfx602", 0);
        add(byMach, 0x3b, "gfx705", 0);
        add(byMach, 0x3c, "gfx805", 0);
        add(byMach, 0x3d, "gfx1035", 0);
        add(byMach, 0x3e, "gfx1034", 0);
        add(byMach, 0x3f, "gfx90a", X | S);
        add(byMach, 0x40, "gfx940", X | S); // removed in LLVM 20; emitted by LLVM 19 and ROCm 6
        add(byMach, 0x41, "gfx1100", 0);
        add(byMach, 0x42, "gfx1013", X);
        add(byMach, 0x43, "gfx1150", 0);
        add(byMach, 0x44, "gfx1103", 0);
        add(byMach, 0x45, "gfx1036", 0);
        add(byMach, 0x46, "gfx1101", 0);
        add(byMach, 0x47, "gfx1102", 0);
        add(byMach, 0x48, "gfx1200", 0);
        add(byMach, 0x49, "gfx1250", X | S);
        add(byMach, 0x4a, "gfx1151", 0);
        add(byMach, 0x4b, "gfx941", X | S); // removed in LLVM 20; emitted by LLVM 19 and ROCm 6
        add(byMach, 0x4c, "gfx942", X | S);
        // 0x4d reserved
        add(byMach, 0x4e, "gfx1201", 0);
        add(byMach, 0x4f, "gfx950", X | S);
        add(byMach, 0x50, "gfx1310", 0);
        add(byMach, 0x51, "gfx9-generic", X);
        add(byMach, 0x52, "gfx10-1-generic", X);
        add(byMach, 0x53, "gfx10-3-generic", 0);
        add(byMach, 0x54, "gfx11-generic", 0);
        add(byMach, 0x55, "gfx1152", 0);
        // 0x56 reserved
        add(byMach, 0x57, "gfx1154", 0);
        add(byMach, 0x58, "gfx1153", 0);
        add(byMach, 0x59, "gfx12-generic", 0);
        add(byMach, 0x5a, "gfx1251", X | S);
        add(byMach, 0x5b, "gfx12-5-generic", X | S);
        add(byMach, 0x5c, "gfx1172", 0);
        add(byMach, 0x5d, "gfx1170", 0);
        add(byMach, 0x5e, "gfx1171", 0);
        add(byMach, 0x5f, "gfx9-4-generic", X | S);
        // 0x60, 0x61 not assigned
        add(byMach, 0x62, "gfx11-7-generic", 0);
        add(byMach, 0x63, "gfx13-generic", 0);
        BY_MACH = Collections.unmodifiableMap(byMach);
        Map<String, Processor> byName = new TreeMap<>();
        for (Processor p : byMach.values()) {
            if (byName.put(p.name(), p) != null) {
                throw new ExceptionInInitializerError("duplicate processor name " + p.name());
            }
        }
        BY_NAME = Collections.unmodifiableMap(byName);
    }

    private AmdProcessors() {
    }

    private static void add(Map<Integer, Processor> table, int mach, String name, int features) {
        if (table.put(mach, new Processor(mach, name, (features & X) != 0, (features & S) != 0)) != null) {
            throw new ExceptionInInitializerError("duplicate EF_AMDGPU_MACH value " + mach);
        }
    }

    /**
     * @param mach an {@code EF_AMDGPU_MACH} value, {@code e_flags & 0xff}
     * @return the processor's name, e.g. {@code gfx90a} for 0x3f or {@code r600} for 0x01; empty for
     *         {@link #MACH_NONE}, reserved and unassigned values, and values outside 0-255
     */
    public static Optional<String> name(int mach) {
        Processor p = BY_MACH.get(mach);
        return p == null ? Optional.empty() : Optional.of(p.name());
    }

    /**
     * @param name a processor name such as {@code gfx942}, as LLVM spells it (no feature suffixes)
     * @return its {@code EF_AMDGPU_MACH} value, if the table has it
     */
    public static Optional<Integer> mach(String name) {
        Processor p = BY_NAME.get(name);
        return p == null ? Optional.empty() : Optional.of(p.mach());
    }

    /**
     * @param mach an {@code EF_AMDGPU_MACH} value
     * @return whether it is one of the R600 processors (0x01-0x10), which are not amdgcn code objects
     */
    public static boolean isR600(int mach) {
        return mach >= 0x01 && mach <= 0x10;
    }

    /**
     * @param mach an {@code EF_AMDGPU_MACH} value
     * @return whether the processor supports the {@code xnack} target feature; false for unknown values
     */
    public static boolean supportsXnack(int mach) {
        Processor p = BY_MACH.get(mach);
        return p != null && p.xnack();
    }

    /**
     * @param mach an {@code EF_AMDGPU_MACH} value
     * @return whether the processor supports the {@code sramecc} target feature; false for unknown values
     */
    public static boolean supportsSramecc(int mach) {
        Processor p = BY_MACH.get(mach);
        return p != null && p.sramecc();
    }

    /** @return every known value and its name, ordered by value, R600 processors included */
    public static Map<Integer, String> all() {
        Map<Integer, String> all = new TreeMap<>();
        BY_MACH.forEach((mach, p) -> all.put(mach, p.name()));
        return Collections.unmodifiableMap(all);
    }
}
