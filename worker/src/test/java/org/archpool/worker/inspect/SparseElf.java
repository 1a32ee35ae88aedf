package org.archpool.worker.inspect;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;

/** Sparse ELF files for tests: a few bytes on disk, headers that claim gigabytes. */
public final class SparseElf {

    private SparseElf() {
    }

    /**
     * A sparse 64-bit ELF file of {@code length} bytes, of which only the header is written: its section header
     * table at offset 64 has {@code count} entries of {@code entrySize} bytes ({@code count} over 0xffff through
     * extended numbering, in section 0's {@code sh_size}).
     */
    public static Path write(Path file, long count, int entrySize, long length) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(128).order(ByteOrder.LITTLE_ENDIAN);
        header.putInt(0, ElfFile.MAGIC).put(4, (byte) 2).put(5, (byte) 1).put(6, (byte) 1);
        header.putShort(16, (short) ElfFile.ET_DYN).putShort(18, (short) ElfFile.EM_X86_64);
        header.putLong(40, 64).putShort(52, (short) 64).putShort(58, (short) entrySize);
        header.putShort(60, (short) (count > 0xffff ? 0 : count));
        if (count > 0xffff) {
            header.putLong(64 + 32, count);
        }
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.write(header.array());
            raf.setLength(length);
        }
        return file;
    }

}
