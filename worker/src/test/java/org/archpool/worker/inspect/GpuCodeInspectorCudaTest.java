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

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link GpuCodeInspector} on the CUDA fat binaries of synthetic ELF files, and on the JVM's launcher; needs no
 * nvcc.
 */
class GpuCodeInspectorCudaTest {

    private static final byte[] FATBIN = concat(
            blob(entry(CUBIN, 90, BASE_FLAGS | A, cubin(90))),
            blob(entry(PTX, 90, BASE_FLAGS | ZSTD, new byte[40], 0x50),
                    entry(CUBIN, 90, BASE_FLAGS | A, cubin(90)),
                    entry(PTX, 90, BASE_FLAGS | A | ZSTD, new byte[40], 0x50)));

    @TempDir
    Path dir;

    private final GpuCodeInspector inspector = new GpuCodeInspector();

    @Test
    void readsTheFatbinSection() throws IOException {
        Path lib = write("lib.so", new TestElf().section(".text", new byte[16]).section(".nv_fatbin", FATBIN).build());

        GpuCode code = inspector.inspect(lib);

        assertThat(code.problems()).isEmpty();
        assertThat(code.cuda()).extracting(CudaCode::source).containsOnly(GpuCodeInspector.CUDA_SECTION);
        assertThat(entries(code)).extracting(FatbinEntry::archName)
                .containsExactly("sm_90a", "compute_90", "sm_90a", "compute_90a");
        assertThat(code.archs()).containsExactly("sm_90a", "compute_90", "compute_90a"); // file order
    }

    @Test
    void archsLeaveOutCubinsWithoutCode() throws IOException {
        byte[] fatbin = concat(
                blob(entry(CUBIN, 90, BASE_FLAGS, cubin(90, ".nv.callgraph", ".nv.rel.action"))), // device-link stub
                blob(entry(CUBIN, 80, BASE_FLAGS, cubin(80))));
        Path lib = write("lib.so", new TestElf().section(".nv_fatbin", fatbin).build());

        GpuCode code = inspector.inspect(lib);

        assertThat(entries(code)).extracting(FatbinEntry::archName).containsExactly("sm_90", "sm_80");
        assertThat(code.archs()).containsExactly("sm_80");
    }

    @Test
    void readsTheRelocatableFatbinSectionOfAnObject() throws IOException {
        Path object = write("k.o", new TestElf().section("__nv_relfatbin", FATBIN).type(ElfFile.ET_REL).build());

        GpuCode code = inspector.inspect(object);

        assertThat(code.problems()).isEmpty();
        assertThat(code.cuda()).hasSize(4).extracting(CudaCode::source)
                .containsOnly(GpuCodeInspector.CUDA_RDC_SECTION);
    }

    /** A library linked from {@code -rdc=true} objects keeps a copy of their code; what runs is the other. */
    @Test
    void aFileWithBothSectionsIsReadFromTheOneThatRuns() throws IOException {
        byte[] relocatable = blob(entry(CUBIN, 80, BASE_FLAGS, cubin(80)));
        Path lib = write("lib.so", new TestElf().section("__nv_relfatbin", relocatable)
                .section(".nv_fatbin", FATBIN).build());

        GpuCode code = inspector.inspect(lib);

        assertThat(code.cuda()).hasSize(4).extracting(CudaCode::source).containsOnly(GpuCodeInspector.CUDA_SECTION);
        assertThat(code.archs()).doesNotContain("sm_80");
    }

    @Test
    void elfWithoutFatbinHasNoGpuCode() throws IOException {
        Path lib = write("plain.so", new TestElf().section(".text", new byte[16]).build());
        Path launcherCopy = Files.copy(ElfFileTest.javaLauncher(), dir.resolve("java-copy"));

        assertThat(inspector.inspect(lib)).isEqualTo(GpuCode.NONE);
        assertThat(inspector.inspect(launcherCopy)).isEqualTo(GpuCode.NONE);
    }

    @Test
    void aLinkerScriptNamedLikeALibraryHoldsNoGpuCode() throws IOException {
        Path text = dir.resolve("libk.so");
        Files.writeString(text, "INPUT(-lk_real)\n", StandardCharsets.US_ASCII); // a linker script, not a library

        assertThat(GpuCodeInspector.container(text)).isEqualTo(GpuCodeInspector.Container.NONE);
        assertThat(inspector.inspect(text)).isEqualTo(GpuCode.NONE);
    }

    @Test
    void aCorruptFatbinIsAProblemThatNamesTheSection() throws IOException {
        byte[] badMagic = FATBIN.clone();
        badMagic[0] = 0;
        badMagic[1] = 0;
        badMagic[2] = 0x11;
        byte[] pastEnd = FATBIN.clone();
        ByteBuffer.wrap(pastEnd).order(ByteOrder.LITTLE_ENDIAN).putLong(0x10 + 8, 1L << 33);
        Path magicLib = write("magic.so", new TestElf().section(".nv_fatbin", badMagic).build());
        Path pastEndLib = write("past.so", new TestElf().section(".nv_fatbin", pastEnd).build());

        GpuCode magic = inspector.inspect(magicLib);
        GpuCode past = inspector.inspect(pastEndLib);

        assertThat(magic.cuda()).isEmpty();
        assertThat(magic.problems()).singleElement().asString()
                .startsWith(".nv_fatbin: bad fat binary magic 0xba110000 at offset 0x0");
        assertThat(past.archs()).isEmpty();
        assertThat(past.problems()).singleElement().asString()
                .startsWith(".nv_fatbin: ")
                .contains("extends past the end of its blob");
    }

    private static List<FatbinEntry> entries(GpuCode code) {
        return code.cuda().stream().map(CudaCode::entry).toList();
    }

    private Path write(String name, byte[] bytes) throws IOException {
        return Files.write(dir.resolve(name), bytes);
    }
}
