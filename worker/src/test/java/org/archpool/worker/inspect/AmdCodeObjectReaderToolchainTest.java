package org.archpool.worker.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.archpool.worker.inspect.ParallelBuilds.Build;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link AmdCodeObjectReader} on code objects that real compilers build at test time: Debian's {@code hipcc}
 * (clang 14) and {@code clang++-19}, through {@link HipCompiler}. Each object's {@code .hip_fatbin} section is
 * written to a file and split with {@code clang-offload-bundler-19}; every code object in it is read and
 * cross-checked against {@code llvm-readelf-19 -h --notes} (processor from its {@code Flags:} line, code object
 * version from {@code ABI Version}, {@code amdhsa.target} and the kernels with a
 * {@code hidden_hostcall_buffer} argument from its metadata YAML) and against the target ID in the bundle entry's
 * name. Skipped without the tools, failed without them when {@code CI=true}. No GPU is needed.
 *
 * <p>Measured (and asserted below, as it is what the javadoc of {@link AmdKernel} promises): hipcc defaults to
 * code object V4 and optimises by default; clang++-19 defaults to V5 and compiles device code at {@code -O0} unless
 * told otherwise; at {@code -O0} every kernel carries a hostcall buffer argument, at {@code -O2} only those that
 * call {@code printf} or {@code assert}.
 */
@Tag("process")
class AmdCodeObjectReaderToolchainTest {

    /** A kernel that needs no device library at all, for {@code -nogpulib} builds of the generic targets. */
    static final String NO_LIBRARY_SOURCE = """
            #include <hip/hip_runtime.h>
            __global__ void fill(float *x) { x[__builtin_amdgcn_workitem_id_x()] = 1.0f; }
            void launch_fill(float *x) { hipLaunchKernelGGL(fill, dim3(1), dim3(32), 0, 0, x); }
            """;
    static final String FILL = "_Z4fillPf";
    private static final String C = "-c";
    private static final String O2 = "-O2";
    private static final String GFX942 = "--offload-arch=gfx942";
    private static final String GFX1100 = "--offload-arch=gfx1100";

    @TempDir
    static Path buildRoot;

    private static HipCompiler hip;
    /** Each build's code objects, by bundle target ID, from {@link #inspect}. */
    private static ParallelBuilds<Map<String, Inspected>> builds;

    /** One code object of a bundle: what this reader says, what llvm-readelf says, and the bytes. */
    record Inspected(String bundleTarget, AmdCodeObject read, Readelf readelf, byte[] image) {
    }

    /** What {@code llvm-readelf-19 -h --notes} prints about a code object. */
    record Readelf(int abiVersion, String processor, List<String> features, String target,
            Map<String, Boolean> kernels) {
    }

    /** Starts every build at once; each test waits for the ones it reads. */
    @BeforeAll
    static void buildAll() throws Exception {
        hip = HipCompiler.require();
        builds = new ParallelBuilds<>(buildRoot);
        // Debian hipcc (clang 14): code object V4 by default, optimised by default
        build("hipcc-printf", d -> hip.hipcc(d, HipCompiler.PRINTF_SOURCE, "k.o", "--offload-arch=gfx90a", C));
        build("hipcc-printf-O0", d -> hip.hipcc(d, HipCompiler.PRINTF_SOURCE, "k.o", "--offload-arch=gfx90a", C,
                "-O0"));
        build("hipcc-kernel", d -> hip.hipcc(d, HipCompiler.KERNEL_SOURCE, "k.o", "--offload-arch=gfx90a", C));
        build("hipcc-xnack+", d -> hip.hipcc(d, HipCompiler.KERNEL_SOURCE, "k.o", "--offload-arch=gfx90a:xnack+",
                C));
        build("hipcc-sramecc-xnack-", d -> hip.hipcc(d, HipCompiler.KERNEL_SOURCE, "k.o",
                "--offload-arch=gfx90a:sramecc-:xnack-", C));
        build("hipcc-v3", d -> hip.hipcc(d, HipCompiler.PRINTF_SOURCE, "k.o", "--offload-arch=gfx90a:xnack+",
                "-mcode-object-version=3", C));
        // clang++-19: code object V5 by default, device code at -O0 unless told otherwise
        build("clang-printf", d -> hip.clang(d, HipCompiler.PRINTF_SOURCE, "k.o", GFX942, GFX1100, O2, C));
        build("clang-printf-default-O", d -> hip.clang(d, HipCompiler.PRINTF_SOURCE, "k.o", GFX942, C));
        build("clang-assert", d -> hip.clang(d, HipCompiler.ASSERT_SOURCE, "k.o", GFX942, GFX1100, O2, C));
        build("clang-kernel", d -> hip.clang(d, HipCompiler.KERNEL_SOURCE, "k.o", GFX942, GFX1100, O2, C));
        build("clang-xnack+-v5", d -> hip.clang(d, HipCompiler.KERNEL_SOURCE, "k.o",
                "--offload-arch=gfx90a:xnack+", "-mcode-object-version=5", O2, C));
        build("clang-v4", d -> hip.clang(d, HipCompiler.KERNEL_SOURCE, "k.o", GFX942,
                "-mcode-object-version=4", O2, C));
        // Generic targets need V6. clang 19 knows gfx9-generic and gfx11-generic (not yet gfx9-4-generic), but
        // Debian's device libraries have no ISA version file for them, hence -nogpulib and a kernel that needs none.
        build("clang-v6-generic", d -> hip.clang(d, NO_LIBRARY_SOURCE, "k.o", "--offload-arch=gfx9-generic",
                "--offload-arch=gfx11-generic", "-mcode-object-version=6", "-nogpulib", O2, C));
    }

    @AfterAll
    static void stopBuilding() {
        if (builds != null) {
            builds.close();
        }
    }

    /** Starts a build whose output, an object file, is then {@link #inspect inspected} on the same thread. */
    private static void build(String name, Build<Path> build) throws IOException {
        builds.submit(name, d -> inspect(build.in(d)));
    }

    /** @return the one code object of a build for the given target ID */
    private static AmdCodeObject codeObject(String build, String targetId) throws Exception {
        Map<String, Inspected> objects = builds.get(build);
        assertThat(objects).containsKey(targetId);
        return objects.get(targetId).read();
    }

    // --- hipcc (clang 14) ----------------------------------------------------------------------------------------

    @Test
    void hipccPrintfKernelNeedsHostcallAndQuietDoesNot() throws Exception {
        AmdCodeObject co = codeObject("hipcc-printf", "gfx90a");

        assertThat(co.processor()).isEqualTo("gfx90a");
        assertThat(co.codeObjectVersion()).isEqualTo(4);
        assertThat(co.metadataTarget()).isEqualTo("amdgcn-amd-amdhsa--gfx90a");
        assertThat(co.kernels()).containsExactlyInAnyOrder(new AmdKernel(HipCompiler.HELLO, true),
                new AmdKernel(HipCompiler.QUIET, false));
        assertThat(co.hostcallKernels()).containsExactly(HipCompiler.HELLO);
    }

    @Test
    void atO0EveryKernelGetsAHostcallBuffer() throws Exception {
        // measured: without optimisation the compiler cannot drop the hidden argument, even from quiet()
        assertThat(codeObject("hipcc-printf-O0", "gfx90a").hostcallKernels())
                .containsExactlyInAnyOrder(HipCompiler.HELLO, HipCompiler.QUIET);
        AmdCodeObject clangDefault = codeObject("clang-printf-default-O", "gfx942");
        assertThat(clangDefault.hostcallKernels()).containsExactlyInAnyOrder(HipCompiler.HELLO, HipCompiler.QUIET);
        assertThat(clangDefault.codeObjectVersion()).isEqualTo(5);
    }

    @Test
    void hipccKernelWithoutPrintfNeedsNoHostcall() throws Exception {
        AmdCodeObject co = codeObject("hipcc-kernel", "gfx90a");

        assertThat(co.kernels()).containsExactly(new AmdKernel(HipCompiler.SCALE, false));
        assertThat(co.hostcallKernels()).isEmpty();
    }

    @Test
    void hipccTargetIdsWithFeatures() throws Exception {
        AmdCodeObject xnackOn = codeObject("hipcc-xnack+", "gfx90a:xnack+");
        assertThat(xnackOn.targetId()).isEqualTo("gfx90a:xnack+");
        assertThat(xnackOn.metadataTarget()).isEqualTo("amdgcn-amd-amdhsa--gfx90a:xnack+");

        AmdCodeObject bothOff = codeObject("hipcc-sramecc-xnack-", "gfx90a:sramecc-:xnack-");
        assertThat(bothOff.processor()).isEqualTo("gfx90a");
        assertThat(bothOff.targetId()).isEqualTo("gfx90a:sramecc-:xnack-");
        assertThat(bothOff.codeObjectVersion()).isEqualTo(4);
    }

    @Test
    void hipccCodeObjectV3() throws Exception {
        // V3 has on/off bits only, and LLVM sets a bit for "any" too: sramecc, not asked for, reads as on
        Map<String, Inspected> objects = builds.get("hipcc-v3");
        assertThat(objects).containsOnlyKeys("gfx90a:xnack+"); // the bundle entry is named hip-, not hipv4-
        Inspected v3 = objects.get("gfx90a:xnack+");

        assertThat(v3.read().codeObjectVersion()).isEqualTo(3);
        assertThat(v3.read().targetId()).isEqualTo("gfx90a:sramecc+:xnack+");
        assertThat(v3.read().metadataTarget()).isNull();
        assertThat(v3.readelf().features()).containsExactly("xnack", "sramecc"); // readelf's V3 names for set bits
        assertThat(v3.read().hostcallKernels()).containsExactly(HipCompiler.HELLO);
    }

    // --- clang++-19 ----------------------------------------------------------------------------------------------

    @Test
    void clangPrintfOnGfx942AndGfx1100() throws Exception {
        Map<String, Inspected> objects = builds.get("clang-printf");
        assertThat(objects).containsOnlyKeys("gfx942", "gfx1100");

        for (Inspected inspected : objects.values()) {
            AmdCodeObject co = inspected.read();
            assertThat(co.codeObjectVersion()).isEqualTo(5);
            assertThat(co.targetId()).isEqualTo(inspected.bundleTarget());
            assertThat(co.kernels()).containsExactlyInAnyOrder(new AmdKernel(HipCompiler.HELLO, true),
                    new AmdKernel(HipCompiler.QUIET, false));
        }
    }

    @Test
    void clangAssertNeedsHostcall() throws Exception {
        Map<String, Inspected> objects = builds.get("clang-assert");
        assertThat(objects).containsOnlyKeys("gfx942", "gfx1100");

        for (Inspected inspected : objects.values()) {
            assertThat(inspected.read().kernels()).containsExactly(new AmdKernel(HipCompiler.CHECKED, true));
        }
    }

    @Test
    void clangKernelWithoutPrintfNeedsNoHostcall() throws Exception {
        Map<String, Inspected> objects = builds.get("clang-kernel");
        assertThat(objects).containsOnlyKeys("gfx942", "gfx1100");

        for (Inspected inspected : objects.values()) {
            assertThat(inspected.read().kernels()).containsExactly(new AmdKernel(HipCompiler.SCALE, false));
        }
        assertThat(objects.get("gfx1100").read().metadataTarget()).isEqualTo("amdgcn-amd-amdhsa--gfx1100");
    }

    @Test
    void clangExplicitCodeObjectVersions() throws Exception {
        AmdCodeObject v5 = codeObject("clang-xnack+-v5", "gfx90a:xnack+");
        assertThat(v5.codeObjectVersion()).isEqualTo(5);
        assertThat(v5.targetId()).isEqualTo("gfx90a:xnack+");

        AmdCodeObject v4 = codeObject("clang-v4", "gfx942");
        assertThat(v4.codeObjectVersion()).isEqualTo(4);
        assertThat(v4.processor()).isEqualTo("gfx942");
    }

    @Test
    void clangCodeObjectV6ForGenericTargets() throws Exception {
        Map<String, Inspected> objects = builds.get("clang-v6-generic");
        assertThat(objects).containsOnlyKeys("gfx9-generic", "gfx11-generic");

        for (Inspected inspected : objects.values()) {
            AmdCodeObject co = inspected.read();
            assertThat(co.codeObjectVersion()).isEqualTo(6);
            assertThat(co.processor()).isEqualTo(inspected.bundleTarget());
            assertThat(co.kernels()).containsExactly(new AmdKernel(FILL, false));
            assertThat(inspected.readelf().features()).contains("generic_v1"); // version in bits 24-31, ignored
        }
    }

    // --- robustness on real code objects ------------------------------------------------------------------------

    @Test
    void mutatedRealCodeObjectsOnlyEverGiveIoExceptions() throws Exception {
        AmdCodeObjectReader reader = new AmdCodeObjectReader();
        for (String build : List.of("hipcc-printf", "clang-printf")) {
            for (Inspected inspected : builds.get(build).values()) {
                ElfSection note = ElfFile.of(ByteBuffer.wrap(inspected.image())).findSection(".note").orElseThrow();
                int accepted = AmdCodeObjectReaderTest.fuzz(reader, inspected.image(), 2000,
                        inspected.bundleTarget().hashCode(), (int) note.offset(), (int) note.size());
                assertThat(accepted).as("mutants outside what is read still read").isPositive();
            }
        }
    }

    // --- the cross-checks every code object goes through --------------------------------------------------------

    /**
     * Extracts every amdgcn code object from the object file's {@code .hip_fatbin} bundle, reads it, and
     * cross-checks it against llvm-readelf and the bundle entry's name.
     */
    private static Map<String, Inspected> inspect(Path object) throws Exception {
        Path dir = object.getParent();
        Path fatbin = dir.resolve("hip_fatbin.bin");
        try (ElfFile elf = ElfFile.open(object)) {
            ByteBuffer section = elf.section(".hip_fatbin").orElseThrow(
                    () -> new AssertionError(object + " has no .hip_fatbin section"));
            try (FileChannel out = FileChannel.open(fatbin, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE)) {
                while (section.hasRemaining()) {
                    out.write(section);
                }
            }
        }
        String list = HipCompiler.run(dir, List.of(hip.bundler().toString(), "--list", "--type=o",
                "--input=" + fatbin));
        List<String> entries = new ArrayList<>();
        for (String bundleEntry : list.strip().split("\\R")) {
            if (bundleEntry.matches("hip(v4)?-amdgcn-amd-amdhsa--.*")) { // not the host entry
                entries.add(bundleEntry);
            }
        }
        assertThat(entries).as("amdgcn entries of " + list).isNotEmpty();
        // All entries in one call: asked for a single entry, clang-offload-bundler-19 picks the first one it deems
        // compatible, and for --targets=...--gfx9-generic it returned the gfx11-generic code object (measured).
        List<String> unbundle = new ArrayList<>(List.of(hip.bundler().toString(), "--unbundle", "--type=o",
                "--input=" + fatbin, "--targets=" + String.join(",", entries)));
        for (int n = 0; n < entries.size(); n++) {
            unbundle.add("--output=" + dir.resolve("target" + n + ".co"));
        }
        HipCompiler.run(dir, unbundle);

        Map<String, Inspected> result = new LinkedHashMap<>();
        AmdCodeObjectReader reader = new AmdCodeObjectReader();
        for (int n = 0; n < entries.size(); n++) {
            String bundleEntry = entries.get(n);
            String bundleTarget = bundleEntry.substring(bundleEntry.indexOf("--") + 2);
            Path co = dir.resolve("target" + n + ".co");
            AmdCodeObject read = reader.read(co);
            Readelf readelf = readelf(co);
            crossCheck(bundleEntry, read, readelf);
            result.put(bundleTarget, new Inspected(bundleTarget, read, readelf, Files.readAllBytes(co)));
        }
        return result;
    }

    private static void crossCheck(String bundleEntry, AmdCodeObject read, Readelf readelf) {
        String what = bundleEntry + ": " + read + " vs readelf " + readelf;
        assertThat(read.processor()).as(what).isEqualTo(readelf.processor());
        assertThat(read.codeObjectVersion()).as(what).isEqualTo(readelf.abiVersion() + 2);
        assertThat(read.metadataTarget()).as(what).isEqualTo(readelf.target());
        assertThat(kernelMap(read)).as(what).isEqualTo(readelf.kernels());
        assertThat(read.kernels()).as(what).isNotEmpty();
        if (read.codeObjectVersion() >= 4) {
            // readelf names the V4+ fields xnack/xnack+/xnack- and sramecc/sramecc+/sramecc- (any/on/off)
            StringBuilder expected = new StringBuilder(readelf.processor());
            readelf.features().stream().filter(f -> f.startsWith("sramecc") && f.length() > 7)
                    .forEach(f -> expected.append(':').append(f));
            readelf.features().stream().filter(f -> f.startsWith("xnack") && f.length() > 5)
                    .forEach(f -> expected.append(':').append(f));
            assertThat(read.targetId()).as(what).isEqualTo(expected.toString());
            assertThat(read.targetId()).as(what).isEqualTo(bundleEntry.substring(bundleEntry.indexOf("--") + 2));
            assertThat(read.metadataTarget()).as(what).isEqualTo("amdgcn-amd-amdhsa--" + read.targetId());
        }
    }

    private static Map<String, Boolean> kernelMap(AmdCodeObject co) {
        Map<String, Boolean> map = new LinkedHashMap<>();
        co.kernels().forEach(k -> map.put(k.name(), k.needsHostcall()));
        return map;
    }

    private static final Pattern ABI_VERSION = Pattern.compile("(?m)^\\s*ABI Version:\\s+(\\d+)\\s*$");
    private static final Pattern FLAGS = Pattern.compile("(?m)^\\s*Flags:\\s+(.*)$");

    /** Runs {@code llvm-readelf-19 -h --notes} and parses the header's flags and the metadata YAML. */
    static Readelf readelf(Path codeObject) throws IOException, InterruptedException {
        String out = HipCompiler.run(codeObject.getParent(), List.of(hip.readelf().toString(), "-h", "--notes",
                codeObject.toString()));
        Matcher abi = ABI_VERSION.matcher(out);
        Matcher flags = FLAGS.matcher(out);
        assertThat(abi.find() && flags.find()).as("readelf output:\n" + out).isTrue();
        List<String> tokens = List.of(flags.group(1).trim().split(",\\s*"));
        assertThat(tokens).as("Flags: " + flags.group(1)).hasSizeGreaterThanOrEqualTo(2);

        String target = null;
        Map<String, Boolean> kernels = new LinkedHashMap<>();
        String kernel = null;
        boolean hostcall = false;
        boolean inYaml = false;
        boolean inKernels = false;
        for (String line : out.split("\\R")) {
            if (line.strip().equals("---")) {
                inYaml = true;
                continue;
            }
            if (!inYaml) {
                continue;
            }
            if (line.strip().equals("...")) {
                break;
            }
            if (!line.startsWith(" ")) { // a top-level key
                if (kernel != null) {
                    kernels.put(kernel, hostcall);
                    kernel = null;
                }
                inKernels = line.startsWith("amdhsa.kernels:");
                if (line.startsWith("amdhsa.target:")) {
                    target = unquote(line.substring("amdhsa.target:".length()).strip());
                }
                continue;
            }
            if (!inKernels) {
                continue;
            }
            if (line.startsWith("  - ")) { // the next kernel
                if (kernel != null) {
                    kernels.put(kernel, hostcall);
                }
                kernel = "";
                hostcall = false;
                line = "    " + line.substring(4);
            }
            if (line.startsWith("    .name:")) {
                kernel = unquote(line.substring("    .name:".length()).strip());
            }
            if (line.contains(".value_kind:") && line.strip().endsWith(" hidden_hostcall_buffer")) {
                hostcall = true;
            }
        }
        if (kernel != null) {
            kernels.put(kernel, hostcall);
        }
        return new Readelf(Integer.parseInt(abi.group(1)), tokens.get(1), new ArrayList<>(tokens.subList(2,
                tokens.size())), target, kernels);
    }

    private static String unquote(String s) {
        if (s.length() >= 2 && (s.startsWith("'") && s.endsWith("'") || s.startsWith("\"") && s.endsWith("\""))) {
            return s.substring(1, s.length() - 1);
        }
        return s;
    }
}
