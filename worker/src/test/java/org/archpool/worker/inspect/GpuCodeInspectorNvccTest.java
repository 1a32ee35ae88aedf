package org.archpool.worker.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;

import org.archpool.worker.inspect.FatbinEntry.Kind;
import org.archpool.worker.inspect.FatbinEntry.Variant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link GpuCodeInspector} on the CUDA fat binaries of binaries the real nvcc builds at test time. Skipped without
 * nvcc, failed without it when {@code CI=true} (see {@link org.archpool.testing.RequiredTool}). No GPU is needed.
 *
 * <p>Assertions about what nvcc chooses to emit (how many blobs, which images an option expands to, what is
 * compressed) were measured with CUDA 13.0 and only run with a CUDA 13 nvcc; the architecture names asked for
 * explicitly are checked with any nvcc.
 */
@Tag("process")
class GpuCodeInspectorNvccTest {

    private static final String SM_90 = "-gencode=arch=compute_90,code=sm_90";
    private static final String XCOMPILER = "-Xcompiler";
    private static final String FPIC = "-fPIC";
    private static final String SM_90_AND_PTX = "-gencode=arch=compute_90,code=[sm_90,compute_90]";

    /** Holds one subdirectory per binary built in {@link #buildAll()}. */
    @TempDir
    static Path buildRoot;

    /** For tests that modify a binary: they copy it here first. */
    @TempDir
    Path dir;

    private static Nvcc nvcc;
    private static ParallelBuilds<Path> builds;

    private final GpuCodeInspector inspector = new GpuCodeInspector();

    /**
     * Starts every nvcc build at once, a couple of seconds each, so the tests below mostly wait in parallel. Without
     * nvcc it does nothing, and {@link #requireNvcc()} skips or fails each test.
     */
    @BeforeAll
    static void buildAll() throws Exception {
        Optional<Nvcc> found = Nvcc.find();
        if (found.isEmpty()) {
            return;
        }
        nvcc = found.get();
        builds = new ParallelBuilds<>(buildRoot);
        builds.submit("sm90", d -> nvcc.sharedLibrary(d, SM_90));
        builds.submit("sm90a", d -> nvcc.sharedLibrary(d, "-arch=sm_90a"));
        builds.submit("all-major", d -> nvcc.sharedLibrary(d, "-arch=all-major"));
        builds.submit("80+90", d -> nvcc.sharedLibrary(d, "-gencode=arch=compute_80,code=sm_80", SM_90));
        builds.submit("90+ptx", d -> nvcc.sharedLibrary(d, SM_90_AND_PTX));
        builds.submit("object", d -> nvcc.compile(d, "k.cu", Nvcc.KERNEL_SOURCE, "k.o", "-c", SM_90));
        builds.submit("executable", d -> nvcc.compile(d, "main.cu", Nvcc.PROGRAM_SOURCE, "app", SM_90));
        builds.submit("default", d -> nvcc.sharedLibrary(d));
        builds.submit("two-units", d -> {
            Files.writeString(d.resolve("k.cu"), Nvcc.KERNEL_SOURCE);
            return nvcc.compile(d, "k2.cu", Nvcc.SECOND_KERNEL_SOURCE, "libk.so",
                    "-shared", XCOMPILER, FPIC, SM_90, "k.cu");
        });
        builds.submit("rdc", d -> nvcc.compile(d, "k.cu", Nvcc.KERNEL_SOURCE, "k.o", "-c", "-rdc=true", SM_90));
        builds.submit("lto", d -> nvcc.compile(d, "k.cu", Nvcc.KERNEL_SOURCE, "k.o",
                "-c", "-rdc=true", "-gencode=arch=compute_90,code=lto_90"));
        builds.submit("debug", d -> nvcc.compile(d, "k.cu", Nvcc.KERNEL_SOURCE, "k.o", "-c", "-G", SM_90));
        builds.submit("linked-for-other-arch", d -> {
            nvcc.compile(d, "k.cu", Nvcc.KERNEL_SOURCE, "k.o", "-c", XCOMPILER, FPIC,
                    "-gencode=arch=compute_80,code=sm_80");
            return nvcc.link(d, "libk.so", "-shared", SM_90, "k.o");
        });
        if (nvcc.atLeast(12, 8)) {
            builds.submit("sm100a", d -> nvcc.sharedLibrary(d, "-gencode=arch=compute_100a,code=sm_100a"));
            builds.submit("compress-none", d -> nvcc.compile(d, "k.cu", Nvcc.KERNEL_SOURCE, "k.o",
                    "-c", SM_90_AND_PTX, "--compress-mode=none"));
            builds.submit("compress-speed", d -> nvcc.compile(d, "k.cu", Nvcc.KERNEL_SOURCE, "k.o",
                    "-c", SM_90_AND_PTX, "--compress-mode=speed"));
        }
        if (nvcc.atLeast(12, 9)) {
            builds.submit("sm100f",
                    d -> nvcc.sharedLibrary(d, "-gencode=arch=compute_100f,code=[sm_100f,compute_100f]"));
        }
    }

    @BeforeEach
    void requireNvcc() throws Exception {
        Nvcc.require();
    }

    @AfterAll
    static void stopBuilding() {
        if (builds != null) {
            builds.close();
        }
    }

    /**
     * @return the CUDA images of a file, after checking that all of it was read and that every image came from
     *         the {@value GpuCodeInspector#CUDA_SECTION} section, the one the CUDA runtime loads
     */
    private List<FatbinEntry> entries(Path file) throws IOException {
        return entries(file, GpuCodeInspector.CUDA_SECTION);
    }

    /** @return the CUDA images of a file, after checking that all of it was read and that they came from one section */
    private List<FatbinEntry> entries(Path file, String section) throws IOException {
        GpuCode code = inspector.inspect(file);
        assertThat(code.problems()).as(file.toString()).isEmpty();
        assertThat(code.cuda()).as(file.toString()).allSatisfy(c -> assertThat(c.source()).isEqualTo(section));
        return code.cuda().stream().map(CudaCode::entry).toList();
    }

    /** @return the architectures a file holds code for, after checking that all of it was read */
    private List<String> archs(Path file) throws IOException {
        GpuCode code = inspector.inspect(file);
        assertThat(code.problems()).as(file.toString()).isEmpty();
        return code.archs();
    }

    /** @return a copy, in this test's own directory, of a built binary, to modify */
    private Path copyOf(String name) throws Exception {
        Path original = builds.get(name);
        return Files.copy(original, dir.resolve(name + "-" + original.getFileName()));
    }

    @Test
    void sharedLibraryForSm90Only() throws Exception {
        Path lib = builds.get("sm90");

        List<FatbinEntry> entries = entries(lib);

        assertThat(archs(lib)).containsExactly("sm_90");
        assertThat(entries).allSatisfy(e -> {
            assertThat(e.kind()).isEqualTo(Kind.CUBIN);
            assertThat(e.variant()).isEqualTo(Variant.NONE);
            assertThat(e.compressed()).isFalse();
            assertThat(e.cubinElfSm()).hasValue(90);
            assertThat(e.smMismatch()).isFalse();
        });
        if (nvcc.major() == 13) {
            // blob 0: the device-link output nvcc adds when linking, without code; blob 1: the cubin of k.cu
            assertThat(entries).extracting(FatbinEntry::blob).containsExactly(0, 1);
            assertThat(entries).extracting(FatbinEntry::isEmptyCubin).containsExactly(true, false);
            assertThat(entries.get(1).cubinCodeSections()).hasValue(1);
        }
    }

    @Test
    void archSm90aIsTheArchitectureSpecificVariant() throws Exception {
        Path lib = builds.get("sm90a");

        List<FatbinEntry> entries = entries(lib);

        assertThat(archs(lib)).contains("sm_90a", "compute_90a").doesNotContain("sm_90");
        assertThat(entries).filteredOn(e -> e.kind() == Kind.CUBIN).isNotEmpty().allSatisfy(e -> {
            assertThat(e.variant()).isEqualTo(Variant.A);
            assertThat(e.cubinElfSm()).hasValue(90); // e_flags has the number only, not the variant
        });
        if (nvcc.major() == 13) {
            // measured: -arch=sm_90a also embeds plain compute_90 PTX, before the sm_90a cubin
            assertThat(archs(lib)).containsExactly("compute_90", "sm_90a", "compute_90a"); // file order
            assertThat(entries).extracting(FatbinEntry::archName)
                    .containsExactly("sm_90a", "compute_90", "sm_90a", "compute_90a");
        }
    }

    /**
     * {@code all-major} builds the first architecture of each major version this nvcc knows (sm_75, sm_80, sm_90,
     * … on CUDA 13) and PTX for the last; the expectation is computed from {@code nvcc --list-gpu-code}, so it
     * follows the toolkit.
     */
    @Test
    void allMajorHoldsTheFirstArchitectureOfEachMajorVersion() throws Exception {
        Path lib = builds.get("all-major");

        TreeMap<Integer, Integer> firstOfMajor = new TreeMap<>();
        for (String code : nvcc.listGpuCode()) {
            int sm = Integer.parseInt(code.replaceAll("\\D", ""));
            firstOfMajor.merge(sm / 10, sm, Math::min);
        }
        List<String> expected = new ArrayList<>();
        firstOfMajor.values().forEach(sm -> expected.add("sm_" + sm));
        expected.add("compute_" + firstOfMajor.lastEntry().getValue());

        assertThat(archs(lib)).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void twoGencodesGiveTwoCubinsPerBlob() throws Exception {
        Path lib = builds.get("80+90");

        List<FatbinEntry> entries = entries(lib);

        assertThat(archs(lib)).containsExactlyInAnyOrder("sm_80", "sm_90");
        assertThat(entries).allSatisfy(e -> assertThat(e.cubinElfSm()).hasValue(e.sm()));
        if (nvcc.major() == 13) {
            assertThat(entries).extracting(FatbinEntry::archName).containsExactly("sm_80", "sm_90", "sm_80", "sm_90");
        }
    }

    @Test
    void realArchitecturePlusPtx() throws Exception {
        Path lib = builds.get("90+ptx");

        List<FatbinEntry> entries = entries(lib);

        assertThat(archs(lib)).containsExactlyInAnyOrder("compute_90", "sm_90");
        FatbinEntry ptx = entries.stream().filter(e -> e.kind() == Kind.PTX).findFirst().orElseThrow();
        assertThat(ptx.cubinElfSm()).isEmpty();
        if (nvcc.major() == 13) {
            assertThat(ptx.compressed()).as("CUDA 13 compresses PTX by default").isTrue();
            assertThat(entries).filteredOn(e -> e.kind() == Kind.CUBIN).extracting(FatbinEntry::compressed)
                    .containsOnly(false);
        }
    }

    @Test
    void compressModeDecidesWhetherPtxIsCompressed() throws Exception {
        assumeTrue(nvcc.atLeast(12, 8), "--compress-mode needs CUDA 12.8+, this is " + nvcc.release());
        Path none = builds.get("compress-none");
        Path speed = builds.get("compress-speed");

        assertThat(entries(none)).filteredOn(e -> e.kind() == Kind.PTX).extracting(FatbinEntry::compressed)
                .containsExactly(false);
        assertThat(entries(speed)).filteredOn(e -> e.kind() == Kind.PTX).extracting(FatbinEntry::compressed)
                .containsExactly(true); // flag 0x2000, LZ4
    }

    @Test
    void objectFileHasOneBlob() throws Exception {
        Path object = builds.get("object");

        try (ElfFile elf = ElfFile.open(object)) {
            assertThat(elf.type()).isEqualTo(ElfFile.ET_REL);
        }
        assertThat(entries(object)).containsExactly(
                new FatbinEntry(Kind.CUBIN, 90, Variant.NONE, false, OptionalInt.of(90), OptionalInt.of(1), 0, 0x10));
    }

    @Test
    void executable() throws Exception {
        Path exe = builds.get("executable");

        try (ElfFile elf = ElfFile.open(exe)) {
            assertThat(elf.type()).isIn(ElfFile.ET_EXEC, ElfFile.ET_DYN); // ET_DYN when PIE
        }
        assertThat(archs(exe)).containsExactly("sm_90");
    }

    @Test
    void noArchitectureOptionGivesTheToolkitDefault() throws Exception {
        assumeTrue(nvcc.major() == 13, "the default architecture was measured for CUDA 13, this is " + nvcc.release());
        Path lib = builds.get("default");

        assertThat(archs(lib)).containsExactlyInAnyOrder("compute_75", "sm_75");
    }

    @Test
    void familySpecificSm100f() throws Exception {
        assumeTrue(nvcc.atLeast(12, 9), "family-specific targets need CUDA 12.9+, this is " + nvcc.release());
        Path lib = builds.get("sm100f");

        List<FatbinEntry> entries = entries(lib);

        assertThat(archs(lib)).containsExactlyInAnyOrder("compute_100f", "sm_100f");
        assertThat(entries).extracting(FatbinEntry::variant).containsOnly(Variant.F);
        assertThat(entries).filteredOn(e -> e.kind() == Kind.CUBIN)
                .allSatisfy(e -> assertThat(e.cubinElfSm()).hasValue(100));
    }

    @Test
    void architectureSpecificSm100a() throws Exception {
        assumeTrue(nvcc.atLeast(12, 8), "sm_100a needs CUDA 12.8+, this is " + nvcc.release());
        Path lib = builds.get("sm100a");

        assertThat(archs(lib)).containsExactly("sm_100a");
    }

    @Test
    void libraryOfTwoTranslationUnitsHasABlobPerUnit() throws Exception {
        Path lib = builds.get("two-units");

        List<FatbinEntry> entries = entries(lib);

        assertThat(archs(lib)).containsExactly("sm_90");
        assertThat(entries.stream().mapToInt(FatbinEntry::blob).distinct().count()).isGreaterThanOrEqualTo(2);
        if (nvcc.major() == 13) {
            // the device link, then one blob per .cu file
            assertThat(entries).extracting(FatbinEntry::blob).containsExactly(0, 1, 2);
        }
    }

    @Test
    void theLinkStepsArchitectureAloneDoesNotCount() throws Exception {
        Path lib = builds.get("linked-for-other-arch");

        assertThat(entries(lib)).extracting(FatbinEntry::archName).contains("sm_80", "sm_90");
        assertThat(entries(lib)).filteredOn(e -> e.sm() == 90).extracting(FatbinEntry::isEmptyCubin)
                .containsOnly(true);
        assertThat(archs(lib)).containsExactly("sm_80");
    }

    @Test
    void relocatableDeviceCodeLivesInItsOwnSection() throws Exception {
        Path object = builds.get("rdc");

        try (ElfFile elf = ElfFile.open(object)) {
            assertThat(elf.findSection(GpuCodeInspector.CUDA_SECTION)).isEmpty();
        }
        List<FatbinEntry> entries = entries(object, GpuCodeInspector.CUDA_RDC_SECTION);
        assertThat(entries).extracting(FatbinEntry::archName).containsExactly("sm_90");
        if (nvcc.major() == 13) {
            assertThat(entries).extracting(FatbinEntry::compressed).containsExactly(true);
        }
    }

    @Test
    void ltoIntermediate() throws Exception {
        Path object = builds.get("lto");

        assertThat(entries(object, GpuCodeInspector.CUDA_RDC_SECTION))
                .extracting(FatbinEntry::kind, FatbinEntry::archName)
                .containsExactly(tuple(Kind.LTO_IR, "lto_90"));
    }

    @Test
    void debugCubinHasALargerEntryHeader() throws Exception {
        Path object = builds.get("debug");

        assertThat(entries(object)).extracting(FatbinEntry::archName).containsExactly("sm_90");
    }

    @Test
    void reportsADisagreeingCubinHeaderWithoutFailing() throws Exception {
        Path object = copyOf("object");
        long fatbinOffset = fatbinOffset(object);
        patch(object, fatbinOffset + 0x10 + 0x1C, 89); // the entry header's SM number

        FatbinEntry entry = entries(object).get(0);

        assertThat(entry.archName()).isEqualTo("sm_89");
        assertThat(entry.cubinElfSm()).hasValue(90);
        assertThat(entry.smMismatch()).isTrue();
    }

    @Test
    void aCorruptMagicNumberIsAProblem() throws Exception {
        Path object = copyOf("object");
        patch(object, fatbinOffset(object), 0xBA55ED51);

        GpuCode code = inspector.inspect(object);

        assertThat(code.cuda()).isEmpty();
        assertThat(code.problems()).singleElement().asString()
                .startsWith(".nv_fatbin: bad fat binary magic 0xba55ed51 at offset 0x0");
    }

    @Test
    void entrySizesPointingPastTheEndAreAProblem() throws Exception {
        Path object = copyOf("object");
        long fatbinOffset = fatbinOffset(object);
        Path blobTooLong = Files.copy(object, dir.resolve("blob.o"));
        patch(blobTooLong, fatbinOffset + 8, 0x7fff_0000); // the blob's payload size
        patch(object, fatbinOffset + 0x10 + 8, 0x7fff_0000); // the entry's payload size

        GpuCode entryTooLong = inspector.inspect(object);
        GpuCode blobTooLongCode = inspector.inspect(blobTooLong);

        assertThat(entryTooLong.cuda()).isEmpty();
        assertThat(entryTooLong.problems()).singleElement().asString()
                .startsWith(".nv_fatbin: ")
                .contains("entry at offset 0x10 has a payload of 2147418112 bytes")
                .contains("extends past the end of its blob");
        assertThat(blobTooLongCode.cuda()).isEmpty();
        assertThat(blobTooLongCode.problems()).singleElement().asString()
                .startsWith(".nv_fatbin: ")
                .contains("claims 2147418112 bytes of entries");
    }

    @Test
    void rejectsATruncatedLibrary() throws Exception {
        Path lib = copyOf("sm90");
        try (FileChannel channel = FileChannel.open(lib, StandardOpenOption.WRITE)) {
            channel.truncate(channel.size() / 2); // the section header table is at the end
        }

        assertThatThrownBy(() -> inspector.inspect(lib))
                .isInstanceOf(ElfFormatException.class)
                .hasMessageContaining("extends past the end");
    }

    private static long fatbinOffset(Path file) throws IOException {
        try (ElfFile elf = ElfFile.open(file)) {
            return elf.findSection(GpuCodeInspector.CUDA_SECTION).orElseThrow().offset();
        }
    }

    /** Overwrites the little-endian 32-bit value at {@code offset}. */
    private static void patch(Path file, long offset, int value) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ByteBuffer bytes = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, value);
            channel.write(bytes, offset);
        }
    }
}
