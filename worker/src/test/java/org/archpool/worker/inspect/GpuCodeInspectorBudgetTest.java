package org.archpool.worker.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files whose headers claim gigabytes while a few bytes are on disk (sparse files): the inspector reads them
 * within its memory budget, whatever they claim, and says when a file is too large to inspect.
 */
class GpuCodeInspectorBudgetTest {

    @TempDir
    Path dir;

    private final GpuCodeInspector inspector = new GpuCodeInspector();

    @Test
    void aSectionCountOfMillionsIsRefusedAsTooLargeNotRead() throws IOException {
        long count = 30_000_000;
        Path file = SparseElf.write(dir.resolve("libsparse.so"), count, 64, 64 + count * 64);
        assertThat(Files.size(file)).isGreaterThan(1L << 30);
        assertTimeoutPreemptively(Duration.ofSeconds(10), () ->
                assertThatThrownBy(() -> inspector.inspect(file)).isInstanceOf(TooLargeToInspectException.class)
                        .hasMessageContaining(file.toString())
                        .hasMessageContaining("claims 30000000 sections, more than the 262144"));
    }

    @Test
    void aSectionHeaderTableOfGigabytesIsReadEntryByEntryNotCopiedWhole() throws IOException {
        long count = 10_000;
        int entrySize = 0xffff;
        Path file = SparseElf.write(dir.resolve("libwide.so"), count, entrySize, 64 + count * entrySize);
        Runtime runtime = Runtime.getRuntime();
        long before = runtime.totalMemory() - runtime.freeMemory();
        GpuCode code = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> inspector.inspect(file));
        assertThat(code.archs()).isEmpty();
        try (ElfFile elf = ElfFile.open(file)) {
            assertThat(elf.sections()).hasSize((int) count);
            long used = runtime.totalMemory() - runtime.freeMemory() - before;
            assertThat(used).as("heap taken by a table of " + count * entrySize + " bytes").isLessThan(256L << 20);
        }
    }

    @Test
    void aLongSectionNameIsRefusedAsTooLarge() throws IOException {
        ByteBuffer names = ByteBuffer.allocate(8192);
        for (int i = 1; i < 8191; i++) {
            names.put(i, (byte) 'a');
        }
        // a name table whose one name runs for 8 KiB, built by hand (TestElf names the sections itself)
        ByteBuffer file = ByteBuffer.allocate(64 + 8192 + 2 * 64).order(ByteOrder.LITTLE_ENDIAN);
        file.putInt(0, ElfFile.MAGIC).put(4, (byte) 2).put(5, (byte) 1).put(6, (byte) 1);
        file.putShort(16, (short) ElfFile.ET_REL).putShort(18, (short) ElfFile.EM_X86_64);
        long shoff = 64 + 8192;
        file.putLong(40, shoff).putShort(52, (short) 64).putShort(58, (short) 64).putShort(60, (short) 2)
                .putShort(62, (short) 1);
        file.put(64, names.array(), 0, 8192);
        int strtab = (int) shoff + 64;
        file.putInt(strtab, 1).putInt(strtab + 4, 3).putLong(strtab + 24, 64).putLong(strtab + 32, 8192);
        Path path = Files.write(dir.resolve("names.o"), file.array());
        assertThatThrownBy(() -> inspector.inspect(path)).isInstanceOf(TooLargeToInspectException.class)
                .hasMessageContaining("longer than 4096 bytes");
    }
}
