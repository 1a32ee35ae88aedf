package org.archpool.worker.inspect;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Builds synthetic CUDA fat binary blobs and entries for tests, in the layout documented in {@link CudaFatbin}. */
final class TestFatbin {

    static final int PTX = 1;
    static final int CUBIN = 2;
    static final int LTO_IR = 8;
    /** Flags nvcc 13.0 sets on every entry for 64-bit Linux device code. */
    static final long BASE_FLAGS = 0x11;
    static final long A = 0x100000;
    static final long F = 0x200000;
    static final long ZSTD = 0x8000;
    static final long LZ4 = 0x2000;

    private TestFatbin() {
    }

    /** An entry with a 0x40-byte header. */
    static byte[] entry(int kind, int sm, long flags, byte[] payload) {
        return entry(kind, sm, flags, payload, 0x40);
    }

    /** An entry with the given header size; the payload is zero-padded to a multiple of 8. */
    static byte[] entry(int kind, int sm, long flags, byte[] payload, int headerSize) {
        int padded = (payload.length + 7) & ~7;
        ByteBuffer b = ByteBuffer.allocate(headerSize + padded).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort(0, (short) kind);
        b.putShort(2, (short) 0x0101);
        b.putInt(4, headerSize);
        b.putLong(8, padded);
        if ((flags & (ZSTD | LZ4)) != 0) {
            b.putInt(0x10, payload.length);
        }
        b.putInt(0x18, kind == PTX ? 0x90000 : 0x10008);
        b.putInt(0x1C, sm);
        b.putLong(0x28, flags);
        b.put(headerSize, payload);
        return b.array();
    }

    /** A blob: the 16-byte header followed by the entries. */
    static byte[] blob(byte[]... entries) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (byte[] e : entries) {
            body.writeBytes(e);
        }
        ByteBuffer header = ByteBuffer.allocate(CudaFatbin.BLOB_HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        header.putInt(0, CudaFatbin.MAGIC);
        header.putShort(4, (short) 1);
        header.putShort(6, (short) CudaFatbin.BLOB_HEADER_SIZE);
        header.putLong(8, body.size());
        return concat(header.array(), body.toByteArray());
    }

    /**
     * A 64-byte cubin ELF header with {@code e_machine = EM_CUDA} and the given ABI version and {@code e_flags}.
     */
    static byte[] cubinHeader(int abiVersion, int eflags) {
        ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        b.put(0, (byte) 0x7f).put(1, (byte) 'E').put(2, (byte) 'L').put(3, (byte) 'F');
        b.put(4, (byte) 2).put(5, (byte) 1).put(6, (byte) 1).put(7, (byte) 0x41).put(8, (byte) abiVersion);
        b.putShort(16, (short) ElfFile.ET_EXEC);
        b.putShort(18, (short) ElfFile.EM_CUDA);
        b.putInt(48, eflags);
        return b.array();
    }

    /** A cubin header as nvcc 13.0 writes it for the given SM (ABI version 8, SM in bits 8-15), and no sections. */
    static byte[] cubinHeader(int sm) {
        return cubinHeader(8, eflags(sm));
    }

    /** A cubin as nvcc 13.0 writes it for the given SM, with one function's code section. */
    static byte[] cubin(int sm) {
        return cubin(sm, ".text._Z5scalePf");
    }

    /** A cubin as nvcc 13.0 writes it for the given SM, with the given sections (of 16 bytes each). */
    static byte[] cubin(int sm, String... sectionNames) {
        TestElf elf = new TestElf().machine(ElfFile.EM_CUDA).abi(0x41, 8).flags(eflags(sm)).type(ElfFile.ET_EXEC);
        for (String name : sectionNames) {
            elf.section(name, new byte[16]);
        }
        return elf.build();
    }

    private static int eflags(int sm) {
        return 0x06000004 | (sm << 8);
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    static ByteBuffer buffer(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }
}
