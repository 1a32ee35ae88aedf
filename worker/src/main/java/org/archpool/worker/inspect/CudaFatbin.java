package org.archpool.worker.inspect;

import static org.archpool.worker.inspect.Bytes.hex;
import static org.archpool.worker.inspect.Bytes.inBounds;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The parsed contents of a CUDA fat binary section ({@code .nv_fatbin}, or {@code __nv_relfatbin} in objects built
 * with {@code -rdc=true}): the list of images it holds and, for each, its kind and target architecture.
 *
 * <h2>Layout</h2>
 * The layout is not documented by NVIDIA. What follows was measured on output of nvcc 13.0 (V13.0.88) for x86-64
 * Linux; all integers are little-endian, offsets are relative to the start of the structure.
 *
 * <p><b>Section.</b> A section holds one or more <em>blobs</em> back to back: a relocatable object has one per
 * translation unit, and a linked library or executable has one per linked object plus, because nvcc always runs a
 * device-link step when it links, one more at the front for the device-link output (see below). A library built
 * from one {@code .cu} file therefore has two blobs. Each blob starts 8-byte aligned (the section's alignment, and
 * every size measured is a multiple of 8, so blobs were always contiguous); zero bytes after a blob, up to the
 * next 8-byte boundary and in whole 8-byte words beyond it, are taken as padding and skipped. A blob must start
 * where the padding ends.
 *
 * <p><b>Blob header</b> (16 bytes):
 * <pre>
 *   +0x00 u32 magic 0xBA55ED50
 *   +0x04 u16 version, always 1 (other versions are rejected)
 *   +0x06 u16 header size, always 0x10; entries start right after it
 *   +0x08 u64 size of the entries that follow; the next blob starts after header + this size
 * </pre>
 *
 * <p><b>Entry header</b> (0x40 bytes or more: 0x40 for a plain cubin, 0x48 with {@code -G}, 0x50 for PTX, 0x60 or
 * 0x70 for sm_100 cubins, 0x78 for LTO IR):
 * <pre>
 *   +0x00 u16 kind: 1 = PTX, 2 = ELF cubin, 8 = LTO IR (code=lto_NN, in __nv_relfatbin)
 *   +0x02 u16 unknown, always 0x0101
 *   +0x04 u32 entry header size
 *   +0x08 u64 payload size, padded to 8; the next entry starts at entry + header size + this size
 *   +0x10 u32 compressed payload size, 0 when not compressed
 *   +0x14 u32 offset of an extension area inside the entry header (0x40), or 0; set for PTX, LTO IR, sm_100 cubins
 *   +0x18 u16 minor, +0x1A u16 major version of the payload format (PTX: the PTX ISA, 9.0; cubin: 1.8)
 *   +0x1C u32 SM number, e.g. 90 (authoritative)
 *   +0x20 u32 offset inside the entry header of the source file name, +0x24 u32 its length (with -G), or 0
 *   +0x28 u64 flags:
 *           0x000001 64-bit device code      0x000002 debug (-G)         0x000010 Linux host
 *           0x002000 compressed, LZ4 block   (nvcc --compress-mode=speed)
 *           0x008000 compressed, zstd        (the default, and --compress-mode=size or balance)
 *           0x010000 seen on LTO IR          0x100000 "a" variant        0x200000 "f" variant
 *           0x1000000 seen on sm_100 cubins (meaning unknown)
 *   +0x38 u64 uncompressed payload size, when compressed
 * </pre>
 * The payload follows the entry header. An uncompressed cubin payload is an ELF image whose own header names the
 * same SM number (see {@link CubinElf}); this is recorded in {@link FatbinEntry#cubinElfSm()}, and a disagreement
 * shows in {@link FatbinEntry#smMismatch()} rather than failing the parse. Its {@code .text.*} sections are counted
 * in {@link FatbinEntry#cubinCodeSections()}: the device-link cubin of a non-rdc link has none.
 *
 * <h2>What nvcc 13.0 emits</h2>
 * <ul>
 *   <li>PTX is compressed by default; cubins are not, except with {@code -G}, in {@code -rdc=true} objects, or with
 *       {@code --compress-mode=size} / {@code -Xfatbin -compress-all}.</li>
 *   <li>{@code -arch=sm_90a} means PTX {@code compute_90}, cubin {@code sm_90a} and PTX {@code compute_90a};
 *       likewise {@code -arch=sm_100f} gives {@code compute_100}, {@code sm_100f} and {@code compute_100f}.</li>
 *   <li>Linking always adds the device-link blob, built for the link step's architectures (the default sm_75 when
 *       the link command names none), even for a library with no device code at all. Unless the code is
 *       relocatable ({@code -rdc=true}), its cubin holds no code: a library whose kernels were compiled for sm_80
 *       only but linked with {@code -arch=sm_90} has an sm_90 cubin without a single kernel.</li>
 *   <li>No architecture at all means cubin {@code sm_75} and PTX {@code compute_75}.</li>
 *   <li>{@code -gencode=arch=compute_100f,code=sm_100f} is accepted and sets the "f" flag.</li>
 *   <li>The "a"/"f" flags are set on PTX entries too ({@code compute_90a}, {@code compute_100f}).</li>
 * </ul>
 *
 * <p>Parsing reads headers only (of blobs, entries, and the ELF images of uncompressed cubins), never copies
 * payloads, and checks every size against the section's end, so it is cheap for sections of hundreds of megabytes
 * (about 0.4 s for a 400 MB section of 20,000 cubins) and fails with a {@link FatbinFormatException} naming the
 * offset for corrupt ones.
 */
public final class CudaFatbin {

    /** The magic number that starts every fat binary blob. */
    public static final int MAGIC = 0xBA55ED50;

    static final int BLOB_HEADER_SIZE = 16;
    /** Blobs start at multiples of this offset from the start of the section. */
    static final int ALIGNMENT = 8;
    /** Entry header bytes this parser reads (through the flags at +0x28). */
    static final int MIN_ENTRY_HEADER_SIZE = 0x30;
    static final long FLAG_COMPRESSED_LZ4 = 0x2000;
    static final long FLAG_COMPRESSED_ZSTD = 0x8000;
    static final long FLAG_VARIANT_A = 0x100000;
    static final long FLAG_VARIANT_F = 0x200000;
    private static final int SUPPORTED_VERSION = 1;
    /** Larger SM numbers are taken as a sign of corruption; real ones are below 200. */
    private static final int MAX_SM = 0xffff;

    private final List<FatbinEntry> entries;
    private final int blobCount;

    private CudaFatbin(List<FatbinEntry> entries, int blobCount) {
        this.entries = Collections.unmodifiableList(entries);
        this.blobCount = blobCount;
    }

    /**
     * Parses the data of a fat binary section. The buffer's position and limit delimit the section; neither is
     * changed.
     *
     * @param section the section data, e.g. from {@link ElfFile#section(String)}
     * @return the parsed fat binary; an empty or all-zero buffer gives no blobs and no entries
     * @throws FatbinFormatException if a blob or entry header is bad or a size points past the end of its blob or
     *                               of the section
     * @throws IOException           {@link TooLargeToInspectException} if it has more entries than the
     *                               inspector's budget
     */
    public static CudaFatbin parse(ByteBuffer section) throws IOException {
        ByteBuffer data = Bytes.view(section);
        int end = data.limit();
        List<FatbinEntry> entries = new ArrayList<>();
        int blobIndex = 0;
        int pos = 0;
        while (true) {
            pos = skipPadding(data, pos);
            if (pos >= end) {
                break;
            }
            pos = parseBlob(data, pos, blobIndex, entries);
            blobIndex++;
        }
        return new CudaFatbin(entries, blobIndex);
    }

    /** @return every entry of every blob, in section order */
    public List<FatbinEntry> entries() {
        return entries;
    }

    /** @return how many fat binary blobs the section holds */
    public int blobCount() {
        return blobCount;
    }

    @Override
    public String toString() {
        return "CudaFatbin[blobs=" + blobCount + ", entries=" + entries + "]";
    }

    /**
     * Skips the zero padding that may follow a blob: zero bytes up to the next 8-byte boundary, then whole zero
     * 8-byte words, then a zero tail shorter than 8 bytes at the end of the section.
     *
     * @return where the next blob must start, or the section's end
     */
    private static int skipPadding(ByteBuffer data, int start) throws FatbinFormatException {
        int end = data.limit();
        int pos = start;
        while (pos < end && pos % ALIGNMENT != 0) {
            if (data.get(pos) != 0) {
                throw new FatbinFormatException("non-zero byte " + hex(data.get(pos) & 0xff)
                        + " in the padding after the fat binary that ends at offset " + hex(start));
            }
            pos++;
        }
        while (end - pos >= ALIGNMENT && data.getLong(pos) == 0) {
            pos += ALIGNMENT;
        }
        return Bytes.skipZeros(data, pos) == end ? end : pos;
    }

    /** Parses the blob at {@code start} into {@code out}; returns the offset just past it. */
    private static int parseBlob(ByteBuffer data, int start, int blobIndex, List<FatbinEntry> out)
            throws IOException {
        int end = data.limit();
        if (end - start < BLOB_HEADER_SIZE) {
            throw new FatbinFormatException("truncated fat binary header at offset " + hex(start) + ": "
                    + (end - start) + " bytes left, " + BLOB_HEADER_SIZE + " needed");
        }
        int magic = data.getInt(start);
        if (magic != MAGIC) {
            throw new FatbinFormatException("bad fat binary magic " + hex(magic) + " at offset " + hex(start)
                    + " (expected " + hex(MAGIC) + ")");
        }
        int version = Short.toUnsignedInt(data.getShort(start + 4));
        if (version != SUPPORTED_VERSION) {
            throw new FatbinFormatException("unsupported fat binary version " + version + " at offset "
                    + hex(start) + " (only " + SUPPORTED_VERSION + " is known)");
        }
        int headerSize = Short.toUnsignedInt(data.getShort(start + 6));
        long payloadSize = data.getLong(start + 8);
        if (headerSize < BLOB_HEADER_SIZE || headerSize > end - start) {
            throw new FatbinFormatException("fat binary at offset " + hex(start) + " has header size "
                    + headerSize + ", outside " + BLOB_HEADER_SIZE + ".." + (end - start));
        }
        int entriesStart = start + headerSize;
        if (!inBounds(entriesStart, payloadSize, end)) {
            throw new FatbinFormatException("fat binary at offset " + hex(start) + " claims "
                    + Long.toUnsignedString(payloadSize) + " bytes of entries but only " + (end - entriesStart)
                    + " bytes are left in the section");
        }
        int blobEnd = entriesStart + (int) payloadSize;
        int pos = entriesStart;
        while (pos < blobEnd) {
            pos = parseEntry(data, pos, blobEnd, blobIndex, out);
        }
        return blobEnd;
    }

    /** Parses the entry at {@code start} into {@code out}; returns the offset of the next entry. */
    private static int parseEntry(ByteBuffer data, int start, int blobEnd, int blobIndex, List<FatbinEntry> out)
            throws IOException {
        InspectLimits.check(out.size() + 1L, InspectLimits.MAX_FATBIN_ENTRIES, "entries or more", "the fat binary");
        int left = blobEnd - start;
        if (left < MIN_ENTRY_HEADER_SIZE) {
            throw new FatbinFormatException("truncated fat binary entry header at offset " + hex(start) + ": "
                    + left + " bytes left in the blob, " + MIN_ENTRY_HEADER_SIZE + " needed");
        }
        int kindCode = Short.toUnsignedInt(data.getShort(start));
        long headerSize = Integer.toUnsignedLong(data.getInt(start + 4));
        long payloadSize = data.getLong(start + 8);
        if (headerSize < MIN_ENTRY_HEADER_SIZE || headerSize > left) {
            throw new FatbinFormatException("fat binary entry at offset " + hex(start) + " has header size "
                    + headerSize + ", outside " + MIN_ENTRY_HEADER_SIZE + ".." + left);
        }
        if (!inBounds(headerSize, payloadSize, left)) {
            throw new FatbinFormatException("fat binary entry at offset " + hex(start) + " has a payload of "
                    + Long.toUnsignedString(payloadSize) + " bytes, which extends past the end of its blob at offset "
                    + hex(blobEnd));
        }
        int sm = data.getInt(start + 0x1C);
        if (sm <= 0 || sm > MAX_SM) {
            throw new FatbinFormatException("fat binary entry at offset " + hex(start)
                    + " has an implausible SM number " + Integer.toUnsignedString(sm));
        }
        long flags = data.getLong(start + 0x28);
        FatbinEntry.Variant variant = variant(flags, start);
        boolean compressed = (flags & (FLAG_COMPRESSED_LZ4 | FLAG_COMPRESSED_ZSTD)) != 0;
        FatbinEntry.Kind kind = FatbinEntry.Kind.ofCode(kindCode);
        int payloadStart = start + (int) headerSize;
        OptionalInt cubinSm = OptionalInt.empty();
        OptionalInt codeSections = OptionalInt.empty();
        if (kind == FatbinEntry.Kind.CUBIN && !compressed) {
            Optional<ElfFile> cubin = CubinElf.open(data.slice(payloadStart, (int) payloadSize));
            if (cubin.isPresent()) {
                cubinSm = CubinElf.sm(cubin.get());
                codeSections = OptionalInt.of(CubinElf.codeSections(cubin.get()));
            }
        }
        out.add(new FatbinEntry(kind, sm, variant, compressed, cubinSm, codeSections, blobIndex, start));
        return payloadStart + (int) payloadSize;
    }

    private static FatbinEntry.Variant variant(long flags, int entryOffset) throws FatbinFormatException {
        boolean a = (flags & FLAG_VARIANT_A) != 0;
        boolean f = (flags & FLAG_VARIANT_F) != 0;
        if (a && f) {
            throw new FatbinFormatException("fat binary entry at offset " + hex(entryOffset)
                    + " has both the 'a' and the 'f' variant flag set (flags " + hex(flags) + ")");
        }
        return a ? FatbinEntry.Variant.A : f ? FatbinEntry.Variant.F : FatbinEntry.Variant.NONE;
    }
}
