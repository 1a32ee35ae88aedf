package org.archpool.worker.inspect;

import static org.archpool.worker.inspect.MessagePackTest.concat;
import static org.archpool.worker.inspect.MessagePackTest.mapOf;
import static org.archpool.worker.inspect.MessagePackTest.pack;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link AmdCodeObjectReader} and {@link AmdProcessors} on synthetic code objects built with {@link TestElf}: every
 * combination of header fields that matters, note layouts, and corrupt input. Needs no compiler; see
 * {@link AmdCodeObjectReaderToolchainTest} for code objects from real ones.
 */
class AmdCodeObjectReaderTest {

    static final int GFX90A = 0x3f;
    static final int GFX900 = 0x2c;
    static final int GFX1030 = 0x36;
    static final int GFX942 = 0x4c;
    static final int GFX9_GENERIC = 0x51;
    static final int ABI_V2 = 0;
    static final int ABI_V3 = 1;
    static final int ABI_V4 = 2;
    static final int ABI_V5 = 3;
    static final int ABI_V6 = 4;
    static final int SHT_NOTE = 7;
    static final int NT_AMD_HSA_ISA_VERSION = 3;
    static final int NT_GNU_BUILD_ID = 3;

    @TempDir
    Path dir;

    private final AmdCodeObjectReader reader = new AmdCodeObjectReader();

    // --- header fields ----------------------------------------------------------------------------------------

    @Test
    void readsAV4CodeObject() throws Exception {
        byte[] image = codeObject(ABI_V4, 0x53f, metadata("amdgcn-amd-amdhsa--gfx90a",
                kernel("_Z5helloi", "by_value", "hidden_global_offset_x", "hidden_hostcall_buffer"),
                kernel("_Z5quietPf", "global_buffer")));

        AmdCodeObject co = read(image);

        assertThat(co).isEqualTo(new AmdCodeObject("gfx90a", "gfx90a", 4, "amdgcn-amd-amdhsa--gfx90a",
                List.of(new AmdKernel("_Z5helloi", true), new AmdKernel("_Z5quietPf", false))));
        assertThat(co.hostcallKernels()).containsExactly("_Z5helloi");
    }

    @ParameterizedTest(name = "V{0} e_flags 0x{1} -> {2}")
    @CsvSource({
        // xnack field 0x300 (0 unsupported, 0x100 any, 0x200 off, 0x300 on), sramecc field 0xc00 (0, 0x400, 0x800,
        // 0xc00), processor gfx90a = 0x3f
        "4, 03f, gfx90a",
        "4, 13f, gfx90a",
        "4, 53f, gfx90a",
        "4, 73f, gfx90a:xnack+",
        "4, 63f, gfx90a:xnack-",
        "4, b3f, gfx90a:sramecc-:xnack+",
        "4, 93f, gfx90a:sramecc-",
        "4, a3f, gfx90a:sramecc-:xnack-",
        "4, f3f, gfx90a:sramecc+:xnack+",
        "4, c3f, gfx90a:sramecc+",
        "4, 83f, gfx90a:sramecc-",
        "4, 43f, gfx90a",
        "5, 73f, gfx90a:xnack+",
        "5, e3f, gfx90a:sramecc+:xnack-",
        "5, 54c, gfx942",
        "6, a3f, gfx90a:sramecc-:xnack-",
        "6, 1000151, gfx9-generic",
        "6, 1000351, gfx9-generic:xnack+",
        "6, 3000054, gfx11-generic",
        "6, ff000054, gfx11-generic",
    })
    void targetIdFromV4PlusFlags(int version, String hexFlags, String targetId) throws Exception {
        int flags = Integer.parseUnsignedInt(hexFlags, 16);
        String processor = targetId.split(":")[0];
        byte[] image = codeObject(version - 2, flags, metadata("amdgcn-amd-amdhsa--" + targetId,
                kernel("k")));

        AmdCodeObject co = read(image);

        assertThat(co.processor()).isEqualTo(processor);
        assertThat(co.targetId()).isEqualTo(targetId);
        assertThat(co.codeObjectVersion()).isEqualTo(version);
        assertThat(co.metadataTarget()).isEqualTo("amdgcn-amd-amdhsa--" + targetId);
    }

    @ParameterizedTest(name = "V3 e_flags 0x{0} -> {1}")
    @CsvSource({
        // V3: 0x100 xnack on, 0x200 sramecc on; a clear bit is "-" where the processor supports the feature
        "33f, gfx90a:sramecc+:xnack+",
        "03f, gfx90a:sramecc-:xnack-",
        "13f, gfx90a:sramecc-:xnack+",
        "23f, gfx90a:sramecc+:xnack-",
        "02c, gfx900:xnack-",
        "12c, gfx900:xnack+",
        "036, gfx1030",
        "336, gfx1030:sramecc+:xnack+",
    })
    void targetIdFromV3Flags(String hexFlags, String targetId) throws Exception {
        byte[] image = codeObject(ABI_V3, Integer.parseInt(hexFlags, 16), metadataWithoutTarget(kernel("k")));

        AmdCodeObject co = read(image);

        assertThat(co.targetId()).isEqualTo(targetId);
        assertThat(co.codeObjectVersion()).isEqualTo(3);
        assertThat(co.metadataTarget()).isNull();
    }

    @Test
    void codeObjectV2IsReportedAsUnsupported() {
        byte[] isaNote = note("AMD", NT_AMD_HSA_ISA_VERSION, new byte[] {4, 0, 7, 0, 9, 0, 0, 0, 0, 0, 10, 0});
        byte[] image = new TestElf().machine(AmdCodeObjectReader.EM_AMDGPU).abi(64, ABI_V2).flags(GFX90A)
                .section(".note", SHT_NOTE, isaNote).build();

        assertThatThrownBy(() -> read(image)).isInstanceOf(AmdCodeObjectFormatException.class)
                .hasMessageContaining("code object v2").hasMessageContaining("not supported");
    }

    @Test
    void unknownCodeObjectVersionIsRejected() {
        assertThatThrownBy(() -> read(codeObject(5, GFX90A, metadata("amdgcn-amd-amdhsa--gfx90a"))))
                .isInstanceOf(AmdCodeObjectFormatException.class)
                .hasMessageContaining("EI_ABIVERSION is 5").hasMessageContaining("code object v7");
    }

    @ParameterizedTest(name = "EI_OSABI {0}")
    @ValueSource(ints = {0, 65, 66})
    void nonHsaOsAbiIsRejected(int osAbi) {
        byte[] image = new TestElf().machine(AmdCodeObjectReader.EM_AMDGPU).abi(osAbi, ABI_V4).flags(GFX90A).build();

        assertThatThrownBy(() -> read(image)).isInstanceOf(AmdCodeObjectFormatException.class)
                .hasMessageContaining("not an HSA code object").hasMessageContaining("EI_OSABI is " + osAbi);
    }

    @Test
    void aPalCodeObjectIsNamedAsOne() {
        byte[] pal = new TestElf().machine(AmdCodeObjectReader.EM_AMDGPU).abi(65, 0).flags(GFX90A).build();

        assertThatThrownBy(() -> read(pal)).hasMessageContaining("PAL");
    }

    @Test
    void otherMachinesAreNotAmdGpuCodeObjects() throws Exception {
        byte[] x86 = new TestElf().abi(64, ABI_V4).flags(GFX90A).build();
        byte[] amd = codeObject(ABI_V4, GFX90A, metadata("amdgcn-amd-amdhsa--gfx90a"));

        assertThat(AmdCodeObjectReader.isAmdGpu(ElfFile.of(ByteBuffer.wrap(x86)))).isFalse();
        assertThat(AmdCodeObjectReader.isAmdGpu(ElfFile.of(ByteBuffer.wrap(amd)))).isTrue();
        assertThatThrownBy(() -> read(x86)).isInstanceOf(AmdCodeObjectFormatException.class)
                .hasMessageContaining("e_machine is 62");
    }

    @Test
    void missingAndR600ProcessorsAreRejected() {
        assertThatThrownBy(() -> read(codeObject(ABI_V4, 0x500, null)))
                .isInstanceOf(AmdCodeObjectFormatException.class).hasMessageContaining("no processor");
        assertThatThrownBy(() -> read(codeObject(ABI_V4, 0x01, null)))
                .isInstanceOf(AmdCodeObjectFormatException.class).hasMessageContaining("R600 processor r600");
    }

    @ParameterizedTest(name = "EF_AMDGPU_MACH 0x{0}")
    @ValueSource(strings = {"27", "4d", "56", "60", "6a", "ff", "11"})
    void unknownProcessorsAreRejected(String hexMach) {
        int mach = Integer.parseInt(hexMach, 16);

        assertThatThrownBy(() -> read(codeObject(ABI_V4, 0x500 | mach, null)))
                .isInstanceOf(AmdCodeObjectFormatException.class)
                .hasMessageContaining("unknown AMD GPU processor")
                .hasMessageContaining("0x" + hexMach);
    }

    // --- metadata and its consistency with the header ---------------------------------------------------------

    @Test
    void metadataTargetForAnotherProcessorIsAContradiction() {
        byte[] image = codeObject(ABI_V5, 0x53f, metadata("amdgcn-amd-amdhsa--gfx942", kernel("k")));

        assertThatThrownBy(() -> read(image)).isInstanceOf(AmdCodeObjectFormatException.class)
                .hasMessageContaining("contradicts itself").hasMessageContaining("gfx90a")
                .hasMessageContaining("amdgcn-amd-amdhsa--gfx942");
    }

    @Test
    void metadataTargetWithOtherFeaturesIsAContradiction() {
        assertThatThrownBy(() -> read(codeObject(ABI_V4, 0x73f, metadata("amdgcn-amd-amdhsa--gfx90a"))))
                .isInstanceOf(AmdCodeObjectFormatException.class).hasMessageContaining("gfx90a:xnack+");
        assertThatThrownBy(() -> read(codeObject(ABI_V4, 0x53f, metadata("amdgcn-amd-amdhsa--gfx90a:xnack-"))))
                .isInstanceOf(AmdCodeObjectFormatException.class).hasMessageContaining("target ID gfx90a ");
        assertThatThrownBy(() -> read(codeObject(ABI_V4, 0x53f, metadata("amdgcn-amd-amdhsa--gfx90ab"))))
                .isInstanceOf(AmdCodeObjectFormatException.class);
    }

    @Test
    void metadataTargetWithAnotherTripleIsRejected() {
        assertThatThrownBy(() -> read(codeObject(ABI_V4, 0x53f, metadata("amdgcn-amd-amdpal--gfx90a"))))
                .isInstanceOf(AmdCodeObjectFormatException.class)
                .hasMessageContaining("does not start with \"amdgcn-amd-amdhsa--\"");
    }

    @Test
    void hostcallComesOnlyFromTheHostcallBufferValueKind() throws Exception {
        byte[] image = codeObject(ABI_V5, 0x54c, metadata("amdgcn-amd-amdhsa--gfx942",
                kernel("printf_buffer_only", "global_buffer", "hidden_printf_buffer"),
                kernel("hostcall", "hidden_block_count_x", "hidden_hostcall_buffer", "hidden_multigrid_sync_arg"),
                kernel("no_args"),
                pack(mapOf(".name", "no_args_key", ".symbol", "no_args_key.kd")),
                kernel("hostcall_first", "hidden_hostcall_buffer", "by_value")));

        AmdCodeObject co = read(image);

        assertThat(co.kernels()).extracting(AmdKernel::name).containsExactly("printf_buffer_only", "hostcall",
                "no_args", "no_args_key", "hostcall_first");
        assertThat(co.hostcallKernels()).containsExactly("hostcall", "hostcall_first");
    }

    @Test
    void argsWithoutValueKindDoNotCount() throws Exception {
        byte[] kernel = pack(mapOf(".name", "k", ".args", List.of(mapOf(".offset", 0L, ".size", 8L))));

        AmdCodeObject co = read(codeObject(ABI_V4, 0x53f, metadata("amdgcn-amd-amdhsa--gfx90a", kernel)));

        assertThat(co.kernels()).containsExactly(new AmdKernel("k", false));
    }

    @Test
    void metadataWithNeitherTargetNorKernelsReadsAsEmpty() throws Exception {
        byte[] desc = pack(mapOf("amdhsa.version", List.of(1L, 1L)));

        AmdCodeObject co = read(codeObject(ABI_V4, 0x53f, desc));

        assertThat(co.metadataTarget()).isNull();
        assertThat(co.kernels()).isEmpty();
    }

    /** Metadata that is valid MessagePack but not of the shape code objects have, and what the error says. */
    static Stream<Arguments> malformedMetadata() {
        return Stream.of(
                Arguments.of("does not hold a map", pack(List.of(1L))),
                Arguments.of("amdhsa.target in the metadata is not a string", pack(mapOf("amdhsa.target", 1L))),
                Arguments.of("amdhsa.kernels in the metadata is not an array", pack(mapOf("amdhsa.kernels", "k"))),
                Arguments.of("amdhsa.kernels[0] is not a map", pack(mapOf("amdhsa.kernels", List.of("k")))),
                Arguments.of("amdhsa.kernels[0] has no .name",
                        pack(mapOf("amdhsa.kernels", List.of(mapOf(".args", List.of()))))),
                Arguments.of(".name in amdhsa.kernels[0] is not a string",
                        pack(mapOf("amdhsa.kernels", List.of(mapOf(".name", List.of("k")))))),
                Arguments.of(".args in kernel k is not an array",
                        pack(mapOf("amdhsa.kernels", List.of(mapOf(".name", "k", ".args", mapOf()))))),
                Arguments.of("kernel k, .args[0]",
                        pack(mapOf("amdhsa.kernels", List.of(mapOf(".name", "k", ".args", List.of(1L)))))),
                Arguments.of(".value_kind", pack(mapOf("amdhsa.kernels",
                        List.of(mapOf(".name", "k", ".args", List.of(mapOf(".value_kind", true))))))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedMetadata")
    void malformedMetadataIsRejected(String message, byte[] desc) {
        assertThatThrownBy(() -> read(codeObject(ABI_V4, 0x53f, desc)))
                .isInstanceOf(AmdCodeObjectFormatException.class).hasMessageContaining(message);
    }

    @Test
    void corruptMessagePackNamesTheNote() {
        byte[] desc = metadata("amdgcn-amd-amdhsa--gfx90a", kernel("k"));
        byte[] truncated = Arrays.copyOf(desc, desc.length - 3);

        assertThatThrownBy(() -> read(codeObject(ABI_V4, 0x53f, truncated)))
                .isInstanceOf(AmdCodeObjectFormatException.class)
                .hasMessageContaining("corrupt metadata note in note section .note")
                .hasMessageContaining("truncated");
    }

    // --- notes -------------------------------------------------------------------------------------------------

    @Test
    void findsTheMetadataAmongOtherNotesWithPadding() throws Exception {
        byte[] desc = metadata("amdgcn-amd-amdhsa--gfx90a", kernel("k", "hidden_hostcall_buffer"));
        byte[] notes = concat(
                note("GNU", NT_GNU_BUILD_ID, new byte[] {1, 2, 3, 4, 5}), // desc padded from 5 to 8
                note("AMD", NT_AMD_HSA_ISA_VERSION, new byte[] {1, 2, 3}),
                note("AMDGPU", 31, new byte[] {(byte) 0xc1}), // wrong type: not parsed as MessagePack
                note("AMDGPUX", 32, new byte[] {(byte) 0xc1}), // wrong owner
                note("", 32, new byte[0]),
                note("AMDGPU", 32, desc), // "AMDGPU\0" is 7 bytes, padded to 8
                note("LLVMOMPOFFLOAD", 1, new byte[] {'1', '2'}));
        assertThat(desc.length % 4).as("test precondition: padding after the descriptor").isNotZero();

        AmdCodeObject co = read(codeObject(ABI_V4, 0x53f, notes, true));

        assertThat(co.kernels()).containsExactly(new AmdKernel("k", true));
    }

    @Test
    void readsMetadataFromAnyNoteSection() throws Exception {
        byte[] image = new TestElf().machine(AmdCodeObjectReader.EM_AMDGPU).abi(64, ABI_V5).flags(0x54c)
                .section(".note.gnu.build-id", SHT_NOTE, note("GNU", NT_GNU_BUILD_ID, new byte[20]))
                .section(".text", new byte[] {1, 2, 3})
                .section(".note.amdgpu", SHT_NOTE,
                        note("AMDGPU", 32, metadata("amdgcn-amd-amdhsa--gfx942", kernel("k"))))
                .build();

        assertThat(read(image).kernels()).extracting(AmdKernel::name).containsExactly("k");
    }

    @Test
    void metadataInAProgbitsSectionIsNotANote() throws Exception {
        byte[] image = new TestElf().machine(AmdCodeObjectReader.EM_AMDGPU).abi(64, ABI_V5).flags(0x54c)
                .section(".note", ElfSection.SHT_PROGBITS,
                        note("AMDGPU", 32, metadata("amdgcn-amd-amdhsa--gfx942", kernel("k"))))
                .build();

        assertThat(read(image).kernels()).isEmpty();
    }

    static Stream<Arguments> withoutAMetadataNote() {
        return Stream.of(
                Arguments.of("no note section", new TestElf().machine(AmdCodeObjectReader.EM_AMDGPU)
                        .abi(64, ABI_V4).flags(0x73f).section(".text", new byte[4]).build()),
                Arguments.of("other notes only",
                        codeObject(ABI_V4, 0x73f, note("GNU", NT_GNU_BUILD_ID, new byte[8]), true)),
                Arguments.of("an empty note section", codeObject(ABI_V4, 0x73f, new byte[0], true)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("withoutAMetadataNote")
    void missingMetadataNoteGivesNoKernelsAndNoTarget(String what, byte[] image) throws Exception {
        assertThat(read(image)).isEqualTo(new AmdCodeObject("gfx90a", "gfx90a:xnack+", 4, null, List.of()));
    }

    @Test
    void lastNoteMayLackItsPadding() throws Exception {
        byte[] desc = metadata("amdgcn-amd-amdhsa--gfx90a", kernel("k"));
        byte[] padded = note("AMDGPU", 32, desc);
        int unpadded = 12 + 8 + desc.length;
        assertThat(unpadded).as("test precondition").isLessThan(padded.length);

        AmdCodeObject co = read(codeObject(ABI_V4, 0x53f, Arrays.copyOf(padded, unpadded), true));

        assertThat(co.kernels()).extracting(AmdKernel::name).containsExactly("k");
    }

    @Test
    void twoMetadataNotesAreAmbiguous() {
        byte[] desc = metadata("amdgcn-amd-amdhsa--gfx90a", kernel("k"));
        byte[] notes = concat(note("AMDGPU", 32, desc), note("AMDGPU", 32, desc));

        assertThatThrownBy(() -> read(codeObject(ABI_V4, 0x53f, notes, true)))
                .isInstanceOf(AmdCodeObjectFormatException.class).hasMessageContaining("more than one");
    }

    /** Note sections whose sizes do not add up, and what the error says. */
    static Stream<Arguments> malformedNoteSizes() {
        byte[] good = note("AMDGPU", 32, metadata("amdgcn-amd-amdhsa--gfx90a", kernel("k")));
        List<Arguments> cases = new ArrayList<>();
        // a header cut short
        cases.add(Arguments.of("truncated note header at offset 0", Arrays.copyOf(good, 11)));
        cases.add(Arguments.of("truncated note header at offset " + good.length,
                concat(good, new byte[] {7, 0, 0, 0, 0})));
        // name size past the end, including sizes that overflow an int
        for (int nameSize : new int[] {good.length, 0x7fffffff, 0xfffffffc, 0xffffffff}) {
            byte[] bad = good.clone();
            le(bad, 0, nameSize);
            cases.add(Arguments.of("has a name of " + Integer.toUnsignedString(nameSize) + " bytes", bad));
        }
        // descriptor size past the end
        for (int descSize : new int[] {good.length - 19, 0x7ffffff0, 0xffffffff}) {
            byte[] bad = good.clone();
            le(bad, 4, descSize);
            cases.add(Arguments.of("has a descriptor of " + Integer.toUnsignedString(descSize) + " bytes", bad));
        }
        // a name that ends inside the section but whose padding does not
        cases.add(Arguments.of("has a descriptor of 0 bytes", concat(
                new byte[] {5, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0, 0}, "ABCDE".getBytes(StandardCharsets.US_ASCII))));
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedNoteSizes")
    void malformedNoteSizesAreRejected(String message, byte[] notes) {
        assertThatThrownBy(() -> read(codeObject(ABI_V4, 0x53f, notes, true)))
                .isInstanceOf(AmdCodeObjectFormatException.class)
                .hasMessageContaining(message).hasMessageContaining("note section .note");
    }

    @Test
    void noteSectionOutsideTheFileIsAnElfError() {
        byte[] image = codeObject(ABI_V4, 0x53f, metadata("amdgcn-amd-amdhsa--gfx90a"));
        int header = TestElf.sectionHeaderOffset(image, 2); // .text is 1, .note 2
        ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN).putLong(header + 32, image.length);

        assertThatThrownBy(() -> read(image)).isInstanceOf(ElfFormatException.class)
                .hasMessageContaining("extends past the end");
    }

    // --- entry points -------------------------------------------------------------------------------------------

    @Test
    void readsFilesAndBuffers() throws Exception {
        byte[] image = codeObject(ABI_V5, 0x54c, metadata("amdgcn-amd-amdhsa--gfx942", kernel("k")));
        Path file = Files.write(dir.resolve("k.co"), image);
        ByteBuffer shifted = ByteBuffer.allocate(image.length + 3).position(3).put(image).position(3);

        AmdCodeObject fromFile = reader.read(file);
        AmdCodeObject fromBuffer = reader.read(shifted);
        AmdCodeObject fromElf;
        try (ElfFile elf = ElfFile.open(file)) {
            fromElf = reader.read(elf);
        }

        assertThat(fromFile).isEqualTo(fromBuffer).isEqualTo(fromElf);
        assertThat(fromFile.targetId()).isEqualTo("gfx942");
        assertThat(shifted.position()).isEqualTo(3);
    }

    @Test
    void fileErrorsNameTheFile() throws Exception {
        Path file = Files.write(dir.resolve("v2.co"), codeObject(ABI_V2, GFX90A, null));
        Path notElf = Files.write(dir.resolve("not.co"), new byte[100]);

        assertThatThrownBy(() -> reader.read(file)).isInstanceOf(AmdCodeObjectFormatException.class)
                .hasMessageStartingWith(file.toString());
        assertThatThrownBy(() -> reader.read(notElf)).isInstanceOf(ElfFormatException.class);
    }

    @Test
    void codeObjectRecordCopiesKernels() {
        List<AmdKernel> kernels = new java.util.ArrayList<>(List.of(new AmdKernel("a", true)));
        AmdCodeObject co = new AmdCodeObject("gfx90a", "gfx90a", 4, null, kernels);
        kernels.add(new AmdKernel("b", true));

        assertThat(co.hostcallKernels()).containsExactly("a");
        assertThatThrownBy(() -> co.kernels().add(new AmdKernel("c", false)))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> new AmdKernel(null, false)).isInstanceOf(NullPointerException.class);
    }

    // --- mutation fuzz ------------------------------------------------------------------------------------------

    @Test
    void mutatedCodeObjectsOnlyEverGiveIoExceptions() {
        byte[] original = codeObject(ABI_V5, 0x54c, concat(
                note("GNU", NT_GNU_BUILD_ID, new byte[] {1, 2, 3}),
                note("AMDGPU", 32, metadata("amdgcn-amd-amdhsa--gfx942",
                        kernel("_Z5helloi", "by_value", "hidden_hostcall_buffer"), kernel("_Z5quietPf")))), true);
        fuzz(reader, original, 5000, 42);
    }

    /** {@link #fuzz(AmdCodeObjectReader, byte[], int, long, int, int)} with the whole image as the hot region. */
    static int fuzz(AmdCodeObjectReader reader, byte[] original, int rounds, long seed) {
        return fuzz(reader, original, rounds, seed, 0, original.length);
    }

    /**
     * Reads mutants of a code object and fails if anything but an {@link IOException} escapes. A tenth of the
     * mutants are truncations; the others have one to four bytes changed (a random value or one flipped bit): a
     * third of them in the ELF header, a third in the hot region (e.g. the note section), a third anywhere.
     *
     * @return how many mutants were read without an exception
     */
    static int fuzz(AmdCodeObjectReader reader, byte[] original, int rounds, long seed, int hotStart,
            int hotLength) {
        Random random = new Random(seed);
        int accepted = 0;
        Set<String> messages = new HashSet<>();
        for (int i = 0; i < rounds; i++) {
            byte[] mutant;
            if (i % 10 == 0) {
                mutant = Arrays.copyOf(original, random.nextInt(original.length));
            } else {
                mutant = original.clone();
                for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
                    int at = switch (i % 3) {
                        case 0 -> random.nextInt(Math.min(64, mutant.length));
                        case 1 -> hotStart + random.nextInt(hotLength);
                        default -> random.nextInt(mutant.length);
                    };
                    mutant[at] = (byte) (random.nextInt(4) == 0 ? mutant[at] ^ (1 << random.nextInt(8))
                            : random.nextInt(256));
                }
            }
            try {
                reader.read(ByteBuffer.wrap(mutant));
                accepted++;
            } catch (IOException expected) {
                assertThat(expected.getMessage()).isNotBlank();
                messages.add(expected.getClass().getSimpleName());
            } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
                fail("mutant " + i + " (seed " + seed + ") threw " + e, e);
            }
        }
        assertThat(messages).as("the mutants exercised the checks").isNotEmpty();
        return accepted;
    }

    // --- AmdProcessors ------------------------------------------------------------------------------------------

    @ParameterizedTest(name = "0x{0} is {1}")
    @CsvSource({
        "3f, gfx90a", "4c, gfx942", "40, gfx940", "4b, gfx941", "4f, gfx950", "41, gfx1100", "4e, gfx1201",
        "20, gfx600", "51, gfx9-generic", "5f, gfx9-4-generic", "52, gfx10-1-generic", "53, gfx10-3-generic",
        "54, gfx11-generic", "59, gfx12-generic", "01, r600", "10, turks",
    })
    void processorTableSpotChecks(String hexMach, String name) {
        assertThat(AmdProcessors.name(Integer.parseInt(hexMach, 16))).hasValue(name);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(ints = {0, 0x11, 0x1f, 0x27, 0x4d, 0x56, 0x60, 0x61, 0x64, 0xff, 0x100, -1})
    void processorTableHasNoNameForOtherNumbers(int unknown) {
        assertThat(AmdProcessors.name(unknown)).isEmpty();
    }

    @Test
    void processorTableKnowsEachProcessorsFeatures() {
        assertThat(AmdProcessors.mach("gfx942")).hasValue(0x4c);
        assertThat(AmdProcessors.mach("gfx942:xnack+")).isEmpty();
        assertThat(AmdProcessors.isR600(0x10)).isTrue();
        assertThat(AmdProcessors.isR600(0x20)).isFalse();
        assertThat(AmdProcessors.supportsXnack(0x3f)).isTrue();
        assertThat(AmdProcessors.supportsSramecc(0x2c)).isFalse();
    }

    @Test
    void processorTableIsABijection() {
        Map<Integer, String> all = AmdProcessors.all();
        assertThat(new HashSet<>(all.values())).hasSameSizeAs(all.values());
        all.forEach((mach, name) -> {
            assertThat(AmdProcessors.name(mach)).hasValue(name);
            assertThat(AmdProcessors.mach(name)).hasValue(mach);
            assertThat(mach).isBetween(1, 0xff);
            assertThat(name).matches(AmdProcessors.isR600(mach) ? "[a-z0-9]+" : "gfx[0-9a-f]+(-[0-9]+)*(-generic)?");
        });
        assertThat(all).hasSize(16 + 63);
    }

    // --- builders, also used by the toolchain tests ------------------------------------------------------------

    /** A code object with one {@code .note} section holding one AMDGPU metadata note, or none when desc is null. */
    static byte[] codeObject(int abiVersion, int flags, byte[] desc) {
        return codeObject(abiVersion, flags, desc == null ? null : note("AMDGPU", 32, desc), true);
    }

    /** A code object with one {@code .note} section of the given contents, or no note section when null. */
    static byte[] codeObject(int abiVersion, int flags, byte[] notes, boolean raw) {
        TestElf elf = new TestElf().machine(AmdCodeObjectReader.EM_AMDGPU).abi(64, abiVersion).flags(flags)
                .section(".text", new byte[] {0, 0, (byte) 0x81, (byte) 0xbf});
        if (notes != null) {
            elf.section(".note", SHT_NOTE, notes);
        }
        return elf.build();
    }

    /** One ELF note: header, owner name with its NUL padded to 4, descriptor padded to 4. */
    static byte[] note(String owner, int type, byte[] desc) {
        byte[] name = owner.getBytes(StandardCharsets.US_ASCII);
        int nameSize = name.length + 1;
        ByteBuffer note = ByteBuffer.allocate(12 + pad(nameSize) + pad(desc.length)).order(ByteOrder.LITTLE_ENDIAN);
        note.putInt(nameSize).putInt(desc.length).putInt(type).put(name);
        note.position(12 + pad(nameSize));
        note.put(desc);
        return note.array();
    }

    private static int pad(int size) {
        return (size + 3) & ~3;
    }

    /** The MessagePack metadata of code object V4 and later: version, target, and the given packed kernels. */
    static byte[] metadata(String target, byte[]... kernels) {
        return concat(MessagePackTest.bytes(0x83), pack("amdhsa.version"), pack(List.of(1L, 1L)),
                pack("amdhsa.target"), pack(target), pack("amdhsa.kernels"), packedArray(kernels));
    }

    /** The metadata of code object V3, which has no amdhsa.target. */
    static byte[] metadataWithoutTarget(byte[]... kernels) {
        return concat(MessagePackTest.bytes(0x82), pack("amdhsa.version"), pack(List.of(1L, 0L)),
                pack("amdhsa.kernels"), packedArray(kernels));
    }

    private static byte[] packedArray(byte[]... elements) {
        return concat(MessagePackTest.bytes(0xdc, elements.length >> 8, elements.length), concat(elements));
    }

    /** A packed kernel map with the given {@code .value_kind}s as its {@code .args}. */
    static byte[] kernel(String name, String... valueKinds) {
        List<Object> args = new java.util.ArrayList<>();
        long offset = 0;
        for (String kind : valueKinds) {
            args.add(mapOf(".offset", offset, ".size", 8L, ".value_kind", kind));
            offset += 8;
        }
        return pack(mapOf(".args", args, ".kernarg_segment_size", offset, ".name", name, ".symbol", name + ".kd",
                ".wavefront_size", 64L));
    }

    private AmdCodeObject read(byte[] image) throws IOException {
        return reader.read(ByteBuffer.wrap(image));
    }

    private static void le(byte[] bytes, int offset, int value) {
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(offset, value);
    }
}
