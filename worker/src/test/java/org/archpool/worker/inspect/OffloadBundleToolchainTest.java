package org.archpool.worker.inspect;

import static org.archpool.worker.inspect.OffloadBundleTest.buffer;
import static org.archpool.worker.inspect.OffloadBundleTest.ccob;
import static org.archpool.worker.inspect.OffloadBundleTest.md5;
import static org.archpool.worker.inspect.OffloadBundleTest.zlib;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.archpool.worker.inspect.OffloadBundle.Compression;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link OffloadBundle} on what hipcc (clang 14) and clang++-19 really emit, each bundle cross-checked against
 * {@code clang-offload-bundler-19}: the same set of ids from {@code --list}, and for every entry the same bytes
 * from {@code --unbundle}. Skipped without the compilers, failed without them when {@code CI=true} (see
 * {@link HipCompiler} and {@link org.archpool.testing.RequiredTool}). No GPU is needed.
 */
@Tag("process")
class OffloadBundleToolchainTest {

    private static final String HIP_FATBIN = ".hip_fatbin";
    private static final String GFX90A = "--offload-arch=gfx90a";
    private static final String HIPCC_HOST = "host-x86_64-unknown-linux";
    private static final String CLANG_HOST = "host-x86_64-unknown-linux--";
    private static final String CLANG_ARCHS = "--offload-arch=gfx90a,gfx942,gfx1100";
    private static final int EM_AMDGPU = 224;
    private static final long ALL = Long.MAX_VALUE;
    private static final String SECOND_SOURCE = HipCompiler.KERNEL_SOURCE.replace("scale", "twice");
    private static final String PROGRAM_SOURCE = HipCompiler.KERNEL_SOURCE
            + "int main() { float *x = nullptr; launch_scale(x); return 0; }\n";

    /** Holds one subdirectory per binary built in {@link #buildAll()}. */
    @TempDir
    static Path buildRoot;

    /** For files the tests write. */
    @TempDir
    Path dir;

    private static HipCompiler hip;
    private static ParallelBuilds<Path> builds;

    /** Starts every build at once (a few seconds each), so that the tests mostly wait in parallel. */
    @BeforeAll
    static void buildAll() throws Exception {
        hip = HipCompiler.require();
        builds = new ParallelBuilds<>(buildRoot);
        builds.submit("hipcc-object", d -> hip.hipcc(d, HipCompiler.KERNEL_SOURCE, "k.o", "-c", GFX90A));
        builds.submit("hipcc-library", d -> hip.hipcc(d, HipCompiler.KERNEL_SOURCE, "libk.so", "-shared", "-fPIC",
                GFX90A));
        builds.submit("hipcc-executable", d -> hip.hipcc(d, PROGRAM_SOURCE, "app", GFX90A));
        builds.submit("hipcc-two-archs", d -> hip.hipcc(d, HipCompiler.KERNEL_SOURCE, "k.o", "-c",
                "--offload-arch=gfx906", "--offload-arch=gfx90a:xnack+"));
        builds.submit("hipcc-default", d -> hip.hipcc(d, HipCompiler.KERNEL_SOURCE, "k.o", "-c"));
        builds.submit("hipcc-two-units", d -> {
            Files.writeString(d.resolve("k2.hip"), SECOND_SOURCE);
            return hip.hipcc(d, HipCompiler.KERNEL_SOURCE, "libk.so", "-shared", "-fPIC", GFX90A, "k2.hip");
        });
        builds.submit("hipcc-rdc", d -> hip.hipcc(d, HipCompiler.KERNEL_SOURCE, "k.o", "-c", "-fgpu-rdc", GFX90A));
        builds.submit("clang-three-archs", d -> hip.clang(d, HipCompiler.KERNEL_SOURCE, "k.o", "-c", CLANG_ARCHS));
        builds.submit("clang-compressed", d -> hip.clang(d, HipCompiler.KERNEL_SOURCE, "k.o", "-c", CLANG_ARCHS,
                "--offload-compress"));
        builds.submit("clang-compressed-two-units", d -> {
            Files.writeString(d.resolve("k2.hip"), SECOND_SOURCE);
            return hip.clang(d, HipCompiler.KERNEL_SOURCE, "libk.so", "-shared", "-fPIC", GFX90A,
                    "--offload-compress", "k2.hip");
        });
        builds.submit("clang-rdc", d -> hip.clang(d, HipCompiler.KERNEL_SOURCE, "k.o", "-c", "-fgpu-rdc",
                "--offload-arch=gfx90a,gfx942", "--offload-compress"));
    }

    @AfterAll
    static void stopBuilding() {
        if (builds != null) {
            builds.close();
        }
    }

    private static ByteBuffer fatbin(Path binary) throws IOException {
        try (ElfFile elf = ElfFile.open(binary)) {
            return elf.section(HIP_FATBIN).orElseThrow(() -> new AssertionError("no " + HIP_FATBIN + " in " + binary));
        }
    }

    // -------------------------------------------------------------------------------------------------------

    @Test
    void hipccObject() throws Exception {
        OffloadBundle bundle = crossChecked(fatbin(builds.get("hipcc-object")));

        assertThat(bundle.compression()).isEqualTo(Compression.NONE);
        assertThat(bundle.entries()).extracting(OffloadBundleEntry::id)
                .containsExactly(HIPCC_HOST, "hipv4-amdgcn-amd-amdhsa--gfx90a");
        OffloadBundleEntry host = bundle.entries().get(0);
        assertThat(host.isHost()).isTrue();
        assertThat(host.size()).isZero();
        assertThat(host.triple()).isEqualTo("x86_64-unknown-linux-");
        assertThat(host.targetId()).isEmpty();
        OffloadBundleEntry device = bundle.entries().get(1);
        assertThat(device.kind()).isEqualTo("hipv4");
        assertThat(device.triple()).isEqualTo("amdgcn-amd-amdhsa-");
        assertThat(device.targetId()).isEqualTo("gfx90a");
    }

    @Test
    void hipccSharedLibraryAndExecutable() throws Exception {
        for (String name : List.of("hipcc-library", "hipcc-executable")) {
            OffloadBundle bundle = crossChecked(fatbin(builds.get(name)));

            assertThat(bundle.deviceEntries()).extracting(OffloadBundleEntry::targetId).containsExactly("gfx90a");
        }
    }

    @Test
    void hipccTwoArchsWithAFeature() throws Exception {
        OffloadBundle bundle = crossChecked(fatbin(builds.get("hipcc-two-archs")));

        assertThat(bundle.deviceEntries()).extracting(OffloadBundleEntry::targetId)
                .containsExactly("gfx906", "gfx90a:xnack+");
    }

    /** With no --offload-arch (and no GPU for rocm_agent_enumerator to find) hipcc silently builds for gfx803. */
    @Test
    void hipccWithoutAnArchBuildsGfx803() throws Exception {
        OffloadBundle bundle = crossChecked(fatbin(builds.get("hipcc-default")));

        assertThat(bundle.deviceEntries()).extracting(OffloadBundleEntry::id)
                .containsExactly("hipv4-amdgcn-amd-amdhsa--gfx803");
    }

    @Test
    void clang19ThreeArchs() throws Exception {
        ByteBuffer section = fatbin(builds.get("clang-three-archs"));
        OffloadBundle bundle = crossChecked(section);

        assertThat(bundle.entries()).extracting(OffloadBundleEntry::id).containsExactly(CLANG_HOST,
                "hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx90a",
                "hipv4-amdgcn-amd-amdhsa--gfx942");
        assertThat(bundle.entries().get(0).triple()).isEqualTo("x86_64-unknown-linux-");
        assertThat(bundle.entries().get(0).size()).isZero();
    }

    @Test
    void sectionPaddingAsMeasured() throws Exception {
        ByteBuffer hipcc = fatbin(builds.get("hipcc-object"));
        ByteBuffer clang = fatbin(builds.get("clang-three-archs"));

        assertThat(hipcc.remaining() - bundleEnd(hipcc)).as("clang 14: one zero byte after the bundle").isEqualTo(1);
        assertThat(hipcc.get(hipcc.limit() - 1)).isZero();
        assertThat(clang.remaining() - bundleEnd(clang)).as("clang 19: nothing after the bundle").isZero();
    }

    @Test
    void clang19CompressedObjectIsZstdVersion2() throws Exception {
        ByteBuffer section = fatbin(builds.get("clang-compressed"));
        ByteBuffer le = section.duplicate().order(ByteOrder.LITTLE_ENDIAN);

        OffloadBundle bundle = crossChecked(section);

        assertThat(bundle.compression()).isEqualTo(Compression.ZSTD);
        assertThat(le.getShort(4)).as("version").isEqualTo((short) 2);
        assertThat(le.getShort(6)).as("method").isEqualTo((short) 1);
        assertThat(Integer.toUnsignedLong(le.getInt(8))).as("total size = section size").isEqualTo(section.remaining());
        assertThat(le.getInt(24)).as("zstd magic").isEqualTo(0xFD2FB528);
        assertThat(section.get(28) & 0x20).as("single-segment frame").isNotZero();
        assertThat(bundle.deviceEntries()).extracting(OffloadBundleEntry::targetId)
                .containsExactly("gfx1100", "gfx90a", "gfx942");
        assertThat(OffloadBundle.read(section, 0).deviceEntries()).extracting(OffloadBundleEntry::code)
                .containsOnlyNulls();
    }

    /**
     * A library linked from two translation units holds two bundles, each at a multiple of 4096, and
     * clang-offload-bundler-19 only sees the first (uncompressed) or fails (compressed): each is cross-checked on
     * its own.
     */
    @Test
    void librariesOfTwoUnitsHoldTwoBundles() throws Exception {
        for (String name : List.of("hipcc-two-units", "clang-compressed-two-units")) {
            ByteBuffer section = fatbin(builds.get(name));

            List<OffloadBundle> bundles = OffloadBundle.readAll(section, ALL);

            assertThat(bundles).as(name).hasSize(2);
            List<ByteBuffer> pieces = splitAtBundles(section);
            assertThat(pieces).hasSize(2);
            for (int i = 0; i < 2; i++) {
                assertThat(crossChecked(pieces.get(i)).entries()).isEqualTo(bundles.get(i).entries());
                assertThat(bundles.get(i).deviceEntries()).extracting(OffloadBundleEntry::targetId)
                        .containsExactly("gfx90a");
            }
            assertThatThrownBy(() -> OffloadBundle.read(section, ALL))
                    .isInstanceOf(OffloadBundleFormatException.class)
                    .hasMessageContaining("at offset 0x")
                    .hasMessageContaining("readAll");
        }
    }

    /** A zlib bundle made here from clang's uncompressed one: clang-offload-bundler-19 reads versions 1 and 2. */
    @Test
    void zlibBundlesMadeFromARealOneAreAcceptedByTheBundler() throws Exception {
        byte[] plain = bytes(fatbin(builds.get("clang-three-archs")));
        OffloadBundle expected = OffloadBundle.read(buffer(plain), ALL);
        byte[] payload = zlib(plain);

        for (int version = 1; version <= 2; version++) {
            byte[] zlib = ccob(version, 0, payload, plain.length, md5(plain));

            OffloadBundle bundle = crossChecked(buffer(zlib));

            assertThat(bundle.compression()).isEqualTo(Compression.ZLIB);
            assertThat(bundle.entries()).isEqualTo(expected.entries());
        }
        // version 3 is LLVM 20's: the 19 bundler takes its 64-bit sizes for version 2 fields and fails
        Path v3 = dir.resolve("v3.bundle");
        Files.write(v3, ccob(3, 0, payload, plain.length, md5(plain)));
        assertThat(OffloadBundle.read(buffer(Files.readAllBytes(v3)), ALL).entries()).isEqualTo(expected.entries());
        assertThat(exitCode(List.of(hip.bundler().toString(), "--list", "--type=o", "--input=" + v3))).isNotZero();
    }

    /**
     * {@code -fgpu-rdc -c} writes no {@code .hip_fatbin}: one {@code __CLANG_OFFLOAD_BUNDLE__<id>} section per
     * entry instead, holding LLVM bitcode, uncompressed even with {@code --offload-compress}. clang 14 uses the old
     * id form without an environment.
     */
    @Test
    void relocatableDeviceCodeObjectsHoldOneSectionPerEntry() throws Exception {
        for (String name : List.of("hipcc-rdc", "clang-rdc")) {
            Path object = builds.get(name);
            OffloadBundle bundle;
            try (ElfFile elf = ElfFile.open(object)) {
                assertThat(elf.findSection(HIP_FATBIN)).isEmpty();
                bundle = OffloadBundle.readObjectSections(elf, ALL).orElseThrow();
            }

            assertThat(listIds(object)).as(name).isEqualTo(ids(bundle));
            List<OffloadBundleEntry> devices = bundle.deviceEntries();
            assertThat(devices).allSatisfy(e -> {
                assertThat(e.kind()).isEqualTo("hip");
                assertThat(e.triple()).isEqualTo("amdgcn-amd-amdhsa-");
                assertThat(e.code().getInt(0)).as("bitcode magic BC C0DE").isEqualTo(0xdec04342);
            });
            assertUnbundlesTo(object, devices);
            OffloadBundleEntry host = bundle.entries().stream().filter(OffloadBundleEntry::isHost).findFirst()
                    .orElseThrow();
            assertThat(host.size()).isEqualTo(1);
            if (name.equals("hipcc-rdc")) {
                assertThat(ids(bundle)).containsExactly("hip-amdgcn-amd-amdhsa-gfx90a", "host-x86_64-pc-linux-gnu");
            } else {
                assertThat(ids(bundle)).containsExactly("hip-amdgcn-amd-amdhsa--gfx90a",
                        "hip-amdgcn-amd-amdhsa--gfx942", "host-x86_64-pc-linux-gnu-");
            }
            assertThat(devices).extracting(OffloadBundleEntry::targetId).startsWith("gfx90a");
        }
        try (ElfFile plain = ElfFile.open(builds.get("hipcc-object"))) {
            assertThat(OffloadBundle.readObjectSections(plain, ALL)).isEmpty();
        }
    }

    // -------------------------------------------------------------------------------------------------------

    /**
     * Reads a bundle and checks it against clang-offload-bundler-19: the same set of ids, and for each device entry
     * the same bytes as --unbundle writes, which must be an AMDGPU ELF code object. Host entries must be empty.
     */
    private OffloadBundle crossChecked(ByteBuffer data) throws Exception {
        OffloadBundle bundle = OffloadBundle.read(data, ALL);
        Path file = Files.createTempFile(dir, "bundle", ".bin");
        Files.write(file, bytes(data));

        assertThat(listIds(file)).isEqualTo(ids(bundle));
        // only device entries: the 19 bundler cannot find the (empty) host entries of these bundles by their id
        assertUnbundlesTo(file, bundle.deviceEntries());
        for (OffloadBundleEntry entry : bundle.entries()) {
            if (entry.isHost()) {
                assertThat(entry.size()).as(entry.id()).isZero();
            } else {
                assertThat(ElfFile.of(entry.code()).machine()).as(entry.id()).isEqualTo(EM_AMDGPU);
            }
        }
        return bundle;
    }

    private Set<String> listIds(Path file) throws Exception {
        String out = HipCompiler.run(dir, List.of(hip.bundler().toString(), "--list", "--type=o", "--input=" + file));
        return new LinkedHashSet<>(new ArrayList<>(out.lines().filter(l -> !l.isBlank()).sorted().toList()));
    }

    private static Set<String> ids(OffloadBundle bundle) {
        return new LinkedHashSet<>(bundle.entries().stream().map(OffloadBundleEntry::id).sorted().toList());
    }

    /** Unbundles every given entry with one bundler call and compares the bytes. */
    private void assertUnbundlesTo(Path file, List<OffloadBundleEntry> entries) throws Exception {
        List<String> command = new ArrayList<>(List.of(hip.bundler().toString(), "--unbundle", "--type=o",
                "--input=" + file));
        command.add("--targets=" + String.join(",", entries.stream().map(OffloadBundleEntry::id).toList()));
        List<Path> outputs = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            Path out = dir.resolve(file.getFileName() + ".out" + i);
            outputs.add(out);
            command.add("--output=" + out);
        }
        HipCompiler.run(dir, command);
        for (int i = 0; i < entries.size(); i++) {
            assertThat(bytes(entries.get(i).code())).as("bytes of %s", entries.get(i).id())
                    .isEqualTo(Files.readAllBytes(outputs.get(i)));
        }
    }

    /** @return the end of the bundle at the start of a section: the end of its table or its last entry */
    private static long bundleEnd(ByteBuffer section) {
        ByteBuffer le = section.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        long count = le.getLong(24);
        int pos = 32;
        long end = 0;
        for (int i = 0; i < count; i++) {
            end = Math.max(end, le.getLong(pos) + le.getLong(pos + 8));
            pos += 24 + (int) le.getLong(pos + 16);
        }
        return Math.max(end, pos);
    }

    /**
     * Cuts a section into its bundles, found at multiples of 4096: an uncompressed one runs to the next (the bundler
     * ignores the zero padding), a compressed one is cut at its total size (the 19 bundler rejects zstd data
     * followed by padding).
     */
    private static List<ByteBuffer> splitAtBundles(ByteBuffer section) {
        byte[] all = bytes(section);
        List<Integer> starts = new ArrayList<>();
        for (int at = 0; at < all.length; at += 4096) {
            if (startsWith(all, at, OffloadBundle.MAGIC) || startsWith(all, at, OffloadBundle.COMPRESSED_MAGIC)) {
                starts.add(at);
            }
        }
        List<ByteBuffer> pieces = new ArrayList<>();
        for (int i = 0; i < starts.size(); i++) {
            int start = starts.get(i);
            int end = i + 1 < starts.size() ? starts.get(i + 1) : all.length;
            if (startsWith(all, start, OffloadBundle.COMPRESSED_MAGIC)) {
                end = start + ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN).getInt(start + 8);
            }
            pieces.add(ByteBuffer.wrap(Arrays.copyOfRange(all, start, end)));
        }
        return pieces;
    }

    private static boolean startsWith(byte[] data, int at, String magic) {
        byte[] m = magic.getBytes(StandardCharsets.US_ASCII);
        return data.length - at >= m.length && Arrays.equals(data, at, at + m.length, m, 0, m.length);
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private int exitCode(List<String> command) throws Exception {
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("exit-code.log").toFile()).start();
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("timed out: " + command);
        }
        return process.exitValue();
    }
}
