package org.archpool.worker.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ElfFileTest {

    @TempDir
    Path dir;

    @Test
    void listsSectionsAndHeaderFields() throws IOException {
        byte[] text = {1, 2, 3, 4, 5};
        Path file = write("lib.so", new TestElf()
                .section(".text", text)
                .section(".bss", ElfSection.SHT_NOBITS, new byte[32])
                .section(".nv_fatbin", new byte[24])
                .machine(ElfFile.EM_AARCH64).flags(0x1234).type(ElfFile.ET_REL)
                .build());

        try (ElfFile elf = ElfFile.open(file)) {
            assertThat(elf.machine()).isEqualTo(ElfFile.EM_AARCH64);
            assertThat(elf.flags()).isEqualTo(0x1234);
            assertThat(elf.type()).isEqualTo(ElfFile.ET_REL);
            assertThat(elf.fileSize()).isEqualTo(Files.size(file));
            assertThat(elf.sections()).extracting(ElfSection::name)
                    .containsExactly("", ".text", ".bss", ".nv_fatbin", ".shstrtab");
            assertThat(elf.sections()).extracting(ElfSection::index).containsExactly(0, 1, 2, 3, 4);
            ElfSection textSection = elf.findSection(".text").orElseThrow();
            assertThat(textSection.type()).isEqualTo(ElfSection.SHT_PROGBITS);
            assertThat(textSection.offset()).isEqualTo(ElfFile.EHDR_SIZE);
            assertThat(textSection.size()).isEqualTo(5);
            assertThat(elf.findSection(".bss").orElseThrow().hasFileData()).isFalse();
            assertThat(elf.findSection(".data")).isEmpty();
        }
    }

    @Test
    void readsSectionContentsAsReadOnlyLittleEndianBuffers() throws IOException {
        Path file = write("lib.so", new TestElf()
                .section(".text", new byte[] {9, 8, 7})
                .section(".bss", ElfSection.SHT_NOBITS, new byte[32])
                .build());

        try (ElfFile elf = ElfFile.open(file)) {
            ByteBuffer text = elf.section(".text").orElseThrow();
            assertThat(bytes(text)).containsExactly(9, 8, 7);
            assertThat(text.isReadOnly()).isTrue();
            assertThat(text.order()).isEqualTo(ByteOrder.LITTLE_ENDIAN);
            assertThat(elf.section(".bss").orElseThrow().remaining()).isZero();
            assertThat(elf.section(".nv_fatbin")).isEmpty();
        }
    }

    @Test
    void mapsLargeSectionsWithTheSameContents() throws IOException {
        byte[] big = new byte[3 << 20];
        new Random(1).nextBytes(big);
        Path file = write("big.so", new TestElf().section(".big", big).build());

        ByteBuffer contents;
        try (ElfFile elf = ElfFile.open(file)) {
            contents = elf.section(".big").orElseThrow();
        }

        assertThat(contents.isReadOnly()).isTrue();
        assertThat(contents.order()).isEqualTo(ByteOrder.LITTLE_ENDIAN);
        assertThat(contents.remaining()).isEqualTo(big.length);
        assertThat(Arrays.equals(bytes(contents), big)).as("mapped contents equal the written ones").isTrue();
    }

    @Test
    void readsAnElfImageInMemory() throws IOException {
        byte[] image = new TestElf().machine(ElfFile.EM_CUDA).abi(0x41, 8).flags(0x06005a04)
                .section(".text._Z1fv", new byte[] {4, 5, 6}).build();
        byte[] framed = TestFatbin.concat(new byte[5], image, new byte[3]);
        ByteBuffer buffer = ByteBuffer.wrap(framed).position(5).limit(5 + image.length);

        ElfFile elf = ElfFile.of(buffer);

        assertThat(elf.fileSize()).isEqualTo(image.length);
        assertThat(elf.machine()).isEqualTo(ElfFile.EM_CUDA);
        assertThat(elf.osAbi()).isEqualTo(0x41);
        assertThat(elf.abiVersion()).isEqualTo(8);
        assertThat(elf.flags()).isEqualTo(0x06005a04);
        assertThat(bytes(elf.section(".text._Z1fv").orElseThrow())).containsExactly(4, 5, 6);
        assertThat(buffer.position()).isEqualTo(5);
        assertThatThrownBy(() -> ElfFile.of(ByteBuffer.wrap(image, 0, 40)))
                .isInstanceOf(ElfFormatException.class).hasMessageContaining("truncated ELF header");
    }

    @Test
    void supportsExtendedSectionNumbering() throws IOException {
        Path file = write("ext.o", new TestElf().section(".text", new byte[4]).extendedNumbering().build());

        try (ElfFile elf = ElfFile.open(file)) {
            assertThat(elf.sections()).extracting(ElfSection::name).containsExactly("", ".text", ".shstrtab");
        }
    }

    @Test
    void fileWithoutSectionHeaderTableHasNoSections() throws IOException {
        byte[] bytes = new TestElf().section(".text", new byte[4]).build();
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putLong(TestElf.E_SHOFF, 0);

        try (ElfFile elf = ElfFile.open(write("stripped", bytes))) {
            assertThat(elf.sections()).isEmpty();
            assertThat(elf.section(".nv_fatbin")).isEmpty();
        }
    }

    @Test
    void rejectsAFileThatIsNotElf() throws IOException {
        Path text = dir.resolve("notes.txt");
        Files.writeString(text, "This is a plain text file, long enough to have a header.\n", StandardCharsets.UTF_8);
        Path empty = Files.createFile(dir.resolve("empty"));

        assertThatThrownBy(() -> ElfFile.open(text))
                .isInstanceOf(ElfFormatException.class).hasMessageContaining("not an ELF file");
        assertThatThrownBy(() -> ElfFile.open(empty))
                .isInstanceOf(ElfFormatException.class).hasMessageContaining("not an ELF file");
    }

    @Test
    void rejects32BitAndBigEndianElf() throws IOException {
        byte[] elf32 = new TestElf().build();
        elf32[4] = 1;
        byte[] bigEndian = new TestElf().build();
        bigEndian[5] = 2;
        byte[] badClass = new TestElf().build();
        badClass[4] = 7;

        assertThatThrownBy(() -> ElfFile.open(write("elf32", elf32)))
                .isInstanceOf(ElfFormatException.class).hasMessageContaining("32-bit ELF not supported");
        assertThatThrownBy(() -> ElfFile.open(write("be", bigEndian)))
                .isInstanceOf(ElfFormatException.class).hasMessageContaining("big-endian ELF not supported");
        assertThatThrownBy(() -> ElfFile.open(write("class7", badClass)))
                .isInstanceOf(ElfFormatException.class).hasMessageContaining("invalid ELF class 7");
    }

    @Test
    void rejectsATruncatedHeader() throws IOException {
        byte[] bytes = Arrays.copyOf(new TestElf().build(), 40);

        assertThatThrownBy(() -> ElfFile.open(write("short", bytes)))
                .isInstanceOf(ElfFormatException.class).hasMessageContaining("truncated ELF header");
    }

    @Test
    void rejectsASectionHeaderTablePastTheEndOfTheFile() throws IOException {
        byte[] whole = new TestElf().section(".text", new byte[4]).build();
        byte[] truncated = Arrays.copyOf(whole, whole.length - 10);

        assertThatThrownBy(() -> ElfFile.open(write("truncated", truncated)))
                .isInstanceOf(ElfFormatException.class)
                .hasMessageContaining("section header table of 3 entries")
                .hasMessageContaining("extends past the end");
    }

    @Test
    void rejectsSectionDataPastTheEndOfTheFileWhenItIsRead() throws IOException {
        byte[] bytes = new TestElf().section(".text", new byte[4]).section(".nv_fatbin", new byte[8]).build();
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN)
                .putLong(TestElf.sectionHeaderOffset(bytes, 2) + 32, 1L << 40);

        try (ElfFile elf = ElfFile.open(write("lib.so", bytes))) {
            assertThat(elf.section(".text")).isPresent();
            assertThatThrownBy(() -> elf.section(".nv_fatbin"))
                    .isInstanceOf(ElfFormatException.class)
                    .hasMessageContaining("section .nv_fatbin")
                    .hasMessageContaining("extends past the end");
        }
    }

    @Test
    void rejectsCorruptSectionNames() throws IOException {
        byte[] badName = new TestElf().section(".text", new byte[4]).build();
        ByteBuffer.wrap(badName).order(ByteOrder.LITTLE_ENDIAN).putInt(TestElf.sectionHeaderOffset(badName, 1), 9999);
        byte[] badIndex = new TestElf().section(".text", new byte[4]).build();
        ByteBuffer.wrap(badIndex).order(ByteOrder.LITTLE_ENDIAN).putShort(TestElf.E_SHSTRNDX, (short) 7);

        assertThatThrownBy(() -> ElfFile.open(write("badname", badName)))
                .isInstanceOf(ElfFormatException.class)
                .hasMessageContaining("name of section 1 starts at 9999");
        assertThatThrownBy(() -> ElfFile.open(write("badindex", badIndex)))
                .isInstanceOf(ElfFormatException.class)
                .hasMessageContaining("section name table index 7 is out of range");
    }

    @Test
    void rejectsAnImpossibleSectionHeaderEntrySize() throws IOException {
        byte[] bytes = new TestElf().section(".text", new byte[4]).build();
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putShort(58, (short) 40);

        assertThatThrownBy(() -> ElfFile.open(write("entsize", bytes)))
                .isInstanceOf(ElfFormatException.class)
                .hasMessageContaining("invalid section header entry size 40");
    }

    /** The JVM's own launcher: a real ELF file that any Linux test run has, with no CUDA code in it. */
    @Test
    void readsARealElfFile() throws IOException {
        Path launcher = javaLauncher();

        try (ElfFile elf = ElfFile.open(launcher)) {
            assertThat(elf.type()).isIn(ElfFile.ET_EXEC, ElfFile.ET_DYN);
            assertThat(elf.sections()).extracting(ElfSection::name).contains(".text", ".dynsym", ".shstrtab");
            assertThat(elf.section(".nv_fatbin")).isEmpty();
            assertThat(elf.section(".text").orElseThrow().remaining())
                    .isEqualTo(elf.findSection(".text").orElseThrow().size());
        }
    }

    /** Every truncation and random corruption of a real ELF file gives a result or an ElfFormatException. */
    @Test
    void truncationOrCorruptionNeverEscapesAsAnUncheckedException() throws IOException {
        byte[] real = Files.readAllBytes(javaLauncher());
        long shoff = ByteBuffer.wrap(real).order(ByteOrder.LITTLE_ENDIAN).getLong(TestElf.E_SHOFF);
        Random random = new Random(7);
        Path file = dir.resolve("mutant");
        for (int i = 0; i < 600; i++) {
            byte[] mutant;
            if (i < 200) {
                mutant = Arrays.copyOf(real, i < 100 ? i : random.nextInt(real.length));
            } else {
                mutant = real.clone();
                for (int f = 0; f < 4; f++) {
                    boolean inHeader = random.nextBoolean() || shoff <= 0 || shoff >= real.length;
                    int at = inHeader
                            ? random.nextInt(ElfFile.EHDR_SIZE)
                            : (int) shoff + random.nextInt((int) (real.length - shoff));
                    mutant[at] = (byte) random.nextInt(256);
                }
            }
            Files.write(file, mutant);
            try (ElfFile elf = ElfFile.open(file)) {
                for (ElfSection section : elf.sections()) {
                    try {
                        elf.contents(section);
                    } catch (ElfFormatException expected) {
                        assertThat(expected.getMessage()).isNotBlank();
                    }
                }
            } catch (ElfFormatException expected) {
                assertThat(expected.getMessage()).isNotBlank();
            } catch (RuntimeException e) {
                fail("iteration " + i + " (" + mutant.length + " bytes) threw " + e, e);
            }
        }
    }

    static Path javaLauncher() throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        assumeTrue(Files.isRegularFile(java), "no java launcher at " + java);
        byte[] magic = Arrays.copyOf(Files.readAllBytes(java), 6);
        assumeTrue(Arrays.equals(magic, new byte[] {0x7f, 'E', 'L', 'F', 2, 1}),
                "the java launcher is not a 64-bit little-endian ELF file on this platform");
        return java;
    }

    private Path write(String name, byte[] bytes) throws IOException {
        return Files.write(dir.resolve(name), bytes);
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }
}
