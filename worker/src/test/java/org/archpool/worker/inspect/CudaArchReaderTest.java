package org.archpool.worker.inspect;

import static org.archpool.worker.inspect.TestFatbin.A;
import static org.archpool.worker.inspect.TestFatbin.BASE_FLAGS;
import static org.archpool.worker.inspect.TestFatbin.CUBIN;
import static org.archpool.worker.inspect.TestFatbin.PTX;
import static org.archpool.worker.inspect.TestFatbin.ZSTD;
import static org.archpool.worker.inspect.TestFatbin.blob;
import static org.archpool.worker.inspect.TestFatbin.concat;
import static org.archpool.worker.inspect.TestFatbin.cubin;
import static org.archpool.worker.inspect.TestFatbin.entry;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link CudaArchReader} on synthetic ELF files and on the JVM's launcher; needs no nvcc. */
class CudaArchReaderTest {

    private static final byte[] FATBIN = concat(
            blob(entry(CUBIN, 90, BASE_FLAGS | A, cubin(90))),
            blob(entry(PTX, 90, BASE_FLAGS | ZSTD, new byte[40], 0x50),
                    entry(CUBIN, 90, BASE_FLAGS | A, cubin(90)),
                    entry(PTX, 90, BASE_FLAGS | A | ZSTD, new byte[40], 0x50)));

    @TempDir
    Path dir;

    private final CudaArchReader reader = new CudaArchReader();

    @Test
    void readsTheFatbinSection() throws IOException {
        Path lib = write("lib.so", new TestElf().section(".text", new byte[16]).section(".nv_fatbin", FATBIN).build());

        assertThat(reader.read(lib)).extracting(FatbinEntry::archName)
                .containsExactly("sm_90a", "compute_90", "sm_90a", "compute_90a");
        assertThat(reader.archNames(lib)).containsExactly("sm_90a", "compute_90", "compute_90a"); // file order
    }

    @Test
    void archNamesLeaveOutCubinsWithoutCode() throws IOException {
        byte[] fatbin = concat(
                blob(entry(CUBIN, 90, BASE_FLAGS, cubin(90, ".nv.callgraph", ".nv.rel.action"))), // device-link stub
                blob(entry(CUBIN, 80, BASE_FLAGS, cubin(80))));
        Path lib = write("lib.so", new TestElf().section(".nv_fatbin", fatbin).build());

        assertThat(reader.read(lib)).extracting(FatbinEntry::archName).containsExactly("sm_90", "sm_80");
        assertThat(reader.archNames(lib)).containsExactly("sm_80");
    }

    @Test
    void readsTheRelocatableFatbinSectionSeparately() throws IOException {
        Path object = write("k.o", new TestElf().section("__nv_relfatbin", FATBIN).type(ElfFile.ET_REL).build());

        assertThat(reader.read(object)).isEmpty();
        assertThat(reader.readRelocatable(object)).hasSize(4);
    }

    @Test
    void elfWithoutFatbinHasNoEntries() throws IOException {
        Path lib = write("plain.so", new TestElf().section(".text", new byte[16]).build());
        Path launcherCopy = Files.copy(ElfFileTest.javaLauncher(), dir.resolve("java-copy"));

        assertThat(reader.read(lib)).isEmpty();
        assertThat(reader.archNames(lib)).isEmpty();
        assertThat(reader.read(launcherCopy)).isEmpty();
        assertThat(reader.readRelocatable(launcherCopy)).isEmpty();
    }

    @Test
    void rejectsANonElfFile() throws IOException {
        Path text = dir.resolve("libk.so");
        Files.writeString(text, "INPUT(-lk_real)\n", StandardCharsets.US_ASCII); // a linker script, not a library

        assertThatThrownBy(() -> reader.read(text))
                .isInstanceOf(ElfFormatException.class)
                .hasMessageContaining("not an ELF file");
    }

    @Test
    void namesTheFileAndSectionWhenTheFatbinIsCorrupt() throws IOException {
        byte[] badMagic = FATBIN.clone();
        badMagic[0] = 0;
        badMagic[1] = 0;
        badMagic[2] = 0x11;
        byte[] pastEnd = FATBIN.clone();
        ByteBuffer.wrap(pastEnd).order(ByteOrder.LITTLE_ENDIAN).putLong(0x10 + 8, 1L << 33);
        Path magicLib = write("magic.so", new TestElf().section(".nv_fatbin", badMagic).build());
        Path pastEndLib = write("past.so", new TestElf().section(".nv_fatbin", pastEnd).build());

        assertThatThrownBy(() -> reader.read(magicLib))
                .isInstanceOf(FatbinFormatException.class)
                .hasMessageContaining(magicLib.toString())
                .hasMessageContaining("section .nv_fatbin")
                .hasMessageContaining("bad fat binary magic 0xba110000 at offset 0x0");
        assertThatThrownBy(() -> reader.archNames(pastEndLib))
                .isInstanceOf(FatbinFormatException.class)
                .hasMessageContaining("extends past the end of its blob");
    }

    private Path write(String name, byte[] bytes) throws IOException {
        return Files.write(dir.resolve(name), bytes);
    }
}
