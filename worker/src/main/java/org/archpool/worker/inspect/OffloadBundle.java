package org.archpool.worker.inspect;

import static org.archpool.worker.inspect.Bytes.MAX_ARRAY;
import static org.archpool.worker.inspect.Bytes.hex;
import static org.archpool.worker.inspect.Bytes.startsWith;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A clang offload bundle: the container in which hipcc and clang store the device code of a HIP program, one entry
 * per offload target, in the {@code .hip_fatbin} section of an object, library or executable (and in the files
 * {@code clang-offload-bundler} writes). Pure Java: no ROCm, LLVM or GPU is needed to read one.
 *
 * <h2>Layout</h2>
 * All integers are little-endian; offsets are relative to the start of the bundle.
 *
 * <p><b>Uncompressed bundle</b>:
 * <pre>
 *   +0x00 24 bytes  magic "__CLANG_OFFLOAD_BUNDLE__"
 *   +0x18 u64       number of entries
 *   then per entry: u64 offset of its code, u64 size of its code, u64 id length, the id (no terminator)
 * </pre>
 * The code of each entry lies at its offset, after the table; hipcc and clang align it to 4096 bytes. The id is
 * {@code <offload kind>-<triple>[-<target id>]}; {@link OffloadBundleEntry} documents how it is split.
 *
 * <p><b>Compressed bundle</b> ({@code --offload-compress}, or {@code OFFLOAD_BUNDLER_COMPRESS=1}): a header, then
 * the compressed bytes of an uncompressed bundle.
 * <pre>
 *   +0x00 4 bytes magic "CCOB"
 *   +0x04 u16     version: 1, 2 or 3
 *   +0x06 u16     method: 0 = zlib, 1 = zstd
 *   version 1: +0x08 u32 uncompressed size, +0x0C u64 hash, data from +0x14 to the end of the input
 *   version 2: +0x08 u32 total size (header included), +0x0C u32 uncompressed size, +0x10 u64 hash, data from +0x18
 *   version 3: +0x08 u64 total size (header included), +0x10 u64 uncompressed size, +0x18 u64 hash, data from +0x20
 * </pre>
 * The hash is the first 8 bytes of the MD5 digest of the uncompressed bundle, read as a little-endian u64; this
 * reader checks it (LLVM only prints it in verbose mode). LLVM 19 writes version 2 with zstd and cannot read
 * version 3; LLVM 20 and later write version 3.
 *
 * <h2>What real compilers emit (measured)</h2>
 * <ul>
 *   <li>hipcc (clang 14) and clang 19 both put the host entry first, empty (size 0, at the offset of the first
 *       device entry, 0x1000), then the device entries, each at a multiple of 4096. clang 19 orders the device
 *       entries by target name ({@code gfx1100} before {@code gfx90a}).</li>
 *   <li>The {@code .hip_fatbin} section is 4096-aligned. clang 14 adds one zero byte after the bundle (the
 *       section is 1 byte longer than the bundle's last entry end); clang 19 adds none, neither uncompressed nor
 *       compressed (the section is exactly the compressed bundle's total size).</li>
 *   <li>A library or executable linked from several translation units has <em>one bundle per unit</em> in its
 *       {@code .hip_fatbin} section, each starting at a multiple of 4096 with zero padding in between; the same
 *       holds for compressed bundles. {@link #readAll(ByteBuffer, long)} reads them all; {@link #read} rejects the
 *       section with a message that says so. {@code clang-offload-bundler-19 --list} only sees the first
 *       uncompressed bundle and fails on such a compressed section.</li>
 *   <li>{@code clang++-19 --offload-compress} writes version 2 with zstd; the zstd frame has a single segment (no
 *       window: the decoder must keep the whole content) and states the content size.</li>
 *   <li>{@code -fgpu-rdc -c} objects have no {@code .hip_fatbin} section but one section per entry, named
 *       {@value #SECTION_PREFIX} and the id, holding LLVM bitcode; {@link #readObjectSections} reads them.</li>
 *   <li>Given no target and no GPU to ask, hipcc builds for gfx803 without a word.</li>
 * </ul>
 *
 * <h2>Bounds and limits</h2>
 * Every offset, size and count is checked against the bytes that are really there before it is used, and the only
 * exceptions thrown for malformed input are {@link OffloadBundleFormatException}s. No allocation is sized by an
 * unchecked field:
 * <ul>
 *   <li>the code of an entry larger than the {@code maxCodeBytes} a caller passes is not kept ({@code code} is
 *       null), and buffers for the others grow with the data that actually arrives;</li>
 *   <li>an uncompressed bundle's code is a view of the input; a compressed bundle is decompressed once, in offset
 *       order, and exactly its declared size is accepted: data that decompresses to more or less is rejected;</li>
 *   <li>at most {@value #MAX_ENTRIES} entries and ids of at most {@value #MAX_ID_LENGTH} bytes;</li>
 *   <li>zlib is streamed ({@link ZlibDecoder}); zstd is decoded by {@link BoundedZstd}, in pure Java. A zstd frame
 *       with a single segment (what LLVM writes for bundles up to 128 MiB) has no window, so it is decoded whole, at
 *       most {@value #MAX_SINGLE_SEGMENT_BYTES} bytes (or the {@code maxDecodedBytes} a caller passes). LLVM
 *       compresses bundles over 128 MiB with a 128 MiB window, more than {@link BoundedZstd} supports: those are
 *       rejected as unsupported.</li>
 * </ul>
 *
 * @param compression how the bundle was stored
 * @param entries     the entries, in the order of the bundle's table
 */
public record OffloadBundle(Compression compression, List<OffloadBundleEntry> entries) {

    /** The magic string an uncompressed bundle starts with. */
    public static final String MAGIC = "__CLANG_OFFLOAD_BUNDLE__";
    /** The prefix of the names of the sections that hold the entries of a bundled object ({@code -fgpu-rdc -c}). */
    public static final String SECTION_PREFIX = "__CLANG_OFFLOAD_BUNDLE__";
    /** The magic string a compressed bundle starts with. */
    public static final String COMPRESSED_MAGIC = "CCOB";
    /** The most entries a bundle may have; real ones have one per target plus the host's. */
    static final int MAX_ENTRIES = 1 << 16;
    /** The longest entry id accepted, in bytes; real ones are under 100. */
    static final int MAX_ID_LENGTH = 4096;
    /** The largest single-segment zstd frame accepted: LLVM's largest (128 MiB). */
    static final long MAX_SINGLE_SEGMENT_BYTES = 128L << 20;

    private static final byte[] MAGIC_BYTES = MAGIC.getBytes(StandardCharsets.US_ASCII);
    private static final byte[] COMPRESSED_MAGIC_BYTES = COMPRESSED_MAGIC.getBytes(StandardCharsets.US_ASCII);
    /** The size of an uncompressed bundle's header: magic and entry count. */
    static final int HEADER_SIZE = 32;
    /** Offset, size and id length of one entry. */
    private static final int ENTRY_HEADER_SIZE = 24;

    /**
     * Checks that neither component is null and keeps an unmodifiable copy of the entries.
     *
     * @param compression how the bundle was stored
     * @param entries     its entries
     */
    public OffloadBundle {
        Objects.requireNonNull(compression, "compression");
        entries = List.copyOf(entries);
    }

    /** How a bundle was stored. */
    public enum Compression {
        /** An uncompressed bundle ({@value OffloadBundle#MAGIC}). */
        NONE,
        /** A compressed bundle ({@value OffloadBundle#COMPRESSED_MAGIC}), method 0: zlib. */
        ZLIB,
        /** A compressed bundle ({@value OffloadBundle#COMPRESSED_MAGIC}), method 1: zstd. */
        ZSTD
    }

    /**
     * @param data bytes, from their position; neither position nor limit is changed
     * @return whether they start with the magic string of an uncompressed or of a compressed bundle
     */
    public static boolean hasMagic(ByteBuffer data) {
        return startsWith(data, data.position(), MAGIC_BYTES)
                || startsWith(data, data.position(), COMPRESSED_MAGIC_BYTES);
    }

    /**
     * Reads the one bundle that the bytes from the buffer's position to its limit hold, such as a bundle file or
     * the {@code .hip_fatbin} section of an object built from one translation unit. Zero bytes may follow the
     * bundle (sections are padded); anything else after it is rejected, because a section linked from several
     * translation units holds several bundles, which {@link #readAll(ByteBuffer, long)} reads. The buffer's
     * position, limit and byte order are not changed.
     *
     * @param data         the bundle, e.g. from {@link ElfFile#section(String)}
     * @param maxCodeBytes the largest entry whose code is kept; larger entries get a null {@code code}. 0 keeps
     *                     only empty entries' code; entries over 2 GiB are never kept. Decoding a single-segment
     *                     zstd bundle still needs its whole uncompressed size (at most 128 MiB) for a while, see
     *                     the class comment and {@link #readAll(ByteBuffer, long, long)}
     * @return the bundle
     * @throws OffloadBundleFormatException if the bytes are not one well-formed bundle, or use a zstd frame this
     *                                      reader cannot decompress
     * @throws IOException                  never for in-memory data other than as the subclass above; declared
     *                                      for callers that read a file first
     * @throws IllegalArgumentException     if {@code maxCodeBytes} is negative
     */
    public static OffloadBundle read(ByteBuffer data, long maxCodeBytes) throws IOException {
        checkLimit(maxCodeBytes);
        ByteBuffer d = Bytes.view(data);
        Parsed parsed = readAt(d, 0, maxCodeBytes, MAX_SINGLE_SEGMENT_BYTES);
        int next = Bytes.skipZeros(d, parsed.end());
        if (next < d.limit()) {
            String why = startsWith(d, next, MAGIC_BYTES) || startsWith(d, next, COMPRESSED_MAGIC_BYTES)
                    ? ": another bundle starts there (a section linked from several translation units holds one"
                            + " bundle per unit; read it with readAll)"
                    : "";
            throw new OffloadBundleFormatException("unexpected byte " + hex(d.get(next) & 0xff) + " at offset "
                    + hex(next) + " after the offload bundle that ends at offset " + hex(parsed.end()) + why);
        }
        return parsed.bundle();
    }

    /**
     * Reads every bundle of a section: the first starts at the buffer's position, and each may be followed by zero
     * padding and then the next one (hipcc and clang start each at a multiple of 4096). A library or executable
     * linked from several HIP translation units has one bundle per unit. The buffer's position, limit and byte
     * order are not changed.
     *
     * @param section      the section's data, e.g. from {@link ElfFile#section(String)}
     * @param maxCodeBytes as for {@link #read(ByteBuffer, long)}
     * @return the bundles in section order; empty for an empty section
     * @throws OffloadBundleFormatException if the section does not start with a bundle, a bundle is malformed,
     *                                      or something other than zeros or a bundle follows one
     * @throws IOException                  declared as for {@link #read(ByteBuffer, long)}
     * @throws IllegalArgumentException     if {@code maxCodeBytes} is negative
     */
    public static List<OffloadBundle> readAll(ByteBuffer section, long maxCodeBytes) throws IOException {
        return readAll(section, maxCodeBytes, MAX_SINGLE_SEGMENT_BYTES);
    }

    /**
     * As {@link #readAll(ByteBuffer, long)}, with a bound on what may be held in memory at once to decode a
     * compressed bundle: a single-segment zstd frame is decoded whole, so one larger than {@code maxDecodedBytes}
     * is rejected instead. Callers with a small heap (a worker JVM) pass a fraction of it.
     *
     * @param section         the section's data
     * @param maxCodeBytes    as for {@link #read(ByteBuffer, long)}
     * @param maxDecodedBytes the largest single-segment zstd bundle decoded (never more than 128 MiB), and the most
     *                        decoded code a compressed bundle keeps for all its entries together (entries past
     *                        it get a null {@code code}, as entries over {@code maxCodeBytes} do)
     * @return the bundles in section order
     * @throws OffloadBundleFormatException as for {@link #readAll(ByteBuffer, long)}, and for a single-segment
     *                                      zstd bundle larger than {@code maxDecodedBytes}
     * @throws IOException                  declared as for {@link #read(ByteBuffer, long)}
     * @throws IllegalArgumentException     if a limit is negative
     */
    public static List<OffloadBundle> readAll(ByteBuffer section, long maxCodeBytes, long maxDecodedBytes)
            throws IOException {
        checkLimit(maxCodeBytes);
        checkLimit(maxDecodedBytes);
        ByteBuffer d = Bytes.view(section);
        List<OffloadBundle> bundles = new ArrayList<>();
        int pos = 0;
        long entries = 0;
        while (pos < d.limit()) {
            Parsed parsed = readAt(d, pos, maxCodeBytes, maxDecodedBytes);
            entries += parsed.bundle().entries().size();
            InspectLimits.check(entries, InspectLimits.MAX_BUNDLE_ENTRIES, "bundle entries in all", "the section");
            bundles.add(parsed.bundle());
            pos = Bytes.skipZeros(d, parsed.end());
        }
        return List.copyOf(bundles);
    }

    /**
     * Reads the entries of a <em>bundled object</em>: what {@code -fgpu-rdc -c} (relocatable device code) writes
     * instead of a {@code .hip_fatbin} section. Such an object holds one section per entry, named
     * {@value #SECTION_PREFIX} followed by the entry's id (e.g.
     * {@code __CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx90a}), whose contents are the entry's code: LLVM
     * bitcode for the device entries (offload kind {@code hip}, never compressed, even with
     * {@code --offload-compress}), and a single zero byte for the host's. These sections are only in objects: the
     * device link of {@code -fgpu-rdc} code puts a regular {@code .hip_fatbin} bundle into the library or
     * executable.
     *
     * @param elf          an object file
     * @param maxCodeBytes as for {@link #read(ByteBuffer, long)}; larger sections are not even read
     * @return the entries, in section order, as an uncompressed bundle; empty when the file has no such section
     * @throws OffloadBundleFormatException if a section name holds an id that cannot be split
     * @throws IOException                  if a section lies outside the file, or the file cannot be read
     * @throws IllegalArgumentException     if {@code maxCodeBytes} is negative
     */
    public static Optional<OffloadBundle> readObjectSections(ElfFile elf, long maxCodeBytes) throws IOException {
        checkLimit(maxCodeBytes);
        List<OffloadBundleEntry> entries = new ArrayList<>();
        for (ElfSection section : elf.sections()) {
            if (!section.name().startsWith(SECTION_PREFIX) || section.name().length() == SECTION_PREFIX.length()) {
                continue;
            }
            String id = section.name().substring(SECTION_PREFIX.length());
            long size = section.hasFileData() ? section.size() : 0;
            ByteBuffer code = size <= Math.min(maxCodeBytes, MAX_ARRAY) ? elf.contents(section) : null;
            try {
                entries.add(OffloadBundleEntry.parse(id, size, code));
            } catch (OffloadBundleFormatException e) {
                throw new OffloadBundleFormatException("section " + section.index() + ": " + e.getMessage(), e);
            }
        }
        return entries.isEmpty() ? Optional.empty() : Optional.of(new OffloadBundle(Compression.NONE, entries));
    }

    /** @return the entries that are not the host's */
    public List<OffloadBundleEntry> deviceEntries() {
        return entries.stream().filter(e -> !e.isHost()).toList();
    }

    // ---------------------------------------------------------------------------------------------------------

    /** A bundle and the offset just past it. */
    private record Parsed(OffloadBundle bundle, int end) {
    }

    /** An entry as read from the table: its id already split and checked, no code yet. */
    private record Raw(int index, OffloadBundleEntry entry, long offset, long size) {
    }

    /** The table of a bundle and the offset just past it. */
    private record Table(List<Raw> entries, long end) {
    }

    /** Reads bytes in order; a view of a buffer, or a decompressor. */
    private interface Input {
        void readFully(byte[] b, int off, int len) throws IOException;
    }

    private static Parsed readAt(ByteBuffer d, int start, long maxCodeBytes, long maxDecodedBytes)
            throws IOException {
        if (startsWith(d, start, MAGIC_BYTES)) {
            return readUncompressed(d, start, maxCodeBytes);
        }
        if (startsWith(d, start, COMPRESSED_MAGIC_BYTES)) {
            return readCompressed(d, start, maxCodeBytes, maxDecodedBytes);
        }
        StringBuilder found = new StringBuilder();
        for (int i = start; i < d.limit() && i < start + 8; i++) {
            found.append(String.format("%02x", d.get(i) & 0xff));
        }
        throw new OffloadBundleFormatException("no offload bundle at offset " + hex(start) + ": expected \""
                + MAGIC + "\" or \"" + COMPRESSED_MAGIC + "\", found "
                + (found.length() == 0 ? "the end of the data" : "bytes " + found));
    }

    private static Parsed readUncompressed(ByteBuffer d, int start, long maxCodeBytes) throws IOException {
        String where = "offload bundle at offset " + hex(start);
        long length = d.limit() - start;
        ByteBuffer view = d.duplicate().position(start);
        Table table = readTable(view::get, length, where);
        long end = table.end();
        List<OffloadBundleEntry> entries = new ArrayList<>(table.entries().size());
        for (Raw raw : table.entries()) {
            end = Math.max(end, raw.offset() + raw.size());
            ByteBuffer code = raw.size() <= Math.min(maxCodeBytes, MAX_ARRAY)
                    ? d.slice(start + (int) raw.offset(), (int) raw.size())
                    : null;
            entries.add(withCode(raw, code));
        }
        return new Parsed(new OffloadBundle(Compression.NONE, entries), start + (int) end);
    }

    private static Parsed readCompressed(ByteBuffer d, int start, long maxCodeBytes, long maxDecodedBytes)
            throws IOException {
        String where = "compressed offload bundle at offset " + hex(start);
        CompressedBundleHeader header = CompressedBundleHeader.parse(d, start, where);
        ByteBuffer compressed = d.slice(start + header.headerSize(), (int) header.totalSize() - header.headerSize());
        long size = header.uncompressedSize();
        MessageDigest md5 = CompressedBundleHeader.newDigest();
        List<OffloadBundleEntry> entries;
        try (BoundedDecoder decoder = header.compression() == Compression.ZLIB
                ? new ZlibDecoder(compressed, size, md5, where)
                : BoundedZstd.decoder(compressed, size, Math.min(MAX_SINGLE_SEGMENT_BYTES, maxDecodedBytes), md5,
                        where)) {
            entries = readDecompressed(decoder, maxCodeBytes, maxDecodedBytes, where);
            decoder.finish();
        } catch (OffloadBundleFormatException e) {
            throw e; // the decompressed bundle's table
        } catch (MalformedBinaryException e) { // the decompression's: corrupt data, or not of the declared size
            throw new OffloadBundleFormatException(e.getMessage(), e);
        }
        header.checkHash(md5, where);
        return new Parsed(new OffloadBundle(header.compression(), entries), start + (int) header.totalSize());
    }

    /** Reads the table, then the entries' code in offset order, then the rest up to the declared size. */
    private static List<OffloadBundleEntry> readDecompressed(BoundedDecoder decoder, long maxCodeBytes,
                                                             long maxKeptBytes, String where) throws IOException {
        String inside = where + " (decompressed)";
        Table table = readTable(decoder::readFully, decoder.size, inside);
        List<Raw> byOffset = new ArrayList<>(table.entries());
        byOffset.removeIf(raw -> raw.size() == 0);
        byOffset.sort(Comparator.comparingLong(Raw::offset));
        ByteBuffer[] codes = new ByteBuffer[table.entries().size()];
        long limit = Math.min(maxCodeBytes, MAX_ARRAY);
        long kept = 0; // the decoded code of all entries together stays within maxKeptBytes
        for (Raw raw : byOffset) {
            decoder.skipTo(raw.offset());
            if (raw.size() <= limit && raw.size() <= maxKeptBytes - kept) {
                kept += raw.size();
                codes[raw.index()] = ByteBuffer.wrap(decoder.readBytes((int) raw.size()));
            } else {
                decoder.skipTo(raw.offset() + raw.size());
            }
        }
        decoder.skipTo(decoder.size);
        List<OffloadBundleEntry> entries = new ArrayList<>(codes.length);
        for (Raw raw : table.entries()) {
            ByteBuffer code = raw.size() == 0 ? ByteBuffer.allocate(0) : codes[raw.index()];
            entries.add(withCode(raw, code));
        }
        return entries;
    }

    /**
     * Reads and checks the header and table of an uncompressed bundle.
     *
     * @param in     the bundle's bytes from its start
     * @param length how many bytes the bundle may have: what is left of the input, or the declared uncompressed
     *               size
     */
    private static Table readTable(Input in, long length, String where) throws IOException {
        if (length < HEADER_SIZE) {
            throw new OffloadBundleFormatException(where + " is truncated: " + length + " bytes, its header needs "
                    + HEADER_SIZE);
        }
        byte[] header = new byte[HEADER_SIZE];
        in.readFully(header, 0, HEADER_SIZE);
        if (!Arrays.equals(header, 0, MAGIC_BYTES.length, MAGIC_BYTES, 0, MAGIC_BYTES.length)) {
            throw new OffloadBundleFormatException(where + " does not start with \"" + MAGIC + "\"");
        }
        long count = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).getLong(24);
        if (count < 0 || count > MAX_ENTRIES || count > (length - HEADER_SIZE) / ENTRY_HEADER_SIZE) {
            throw new OffloadBundleFormatException(where + " claims " + Long.toUnsignedString(count)
                    + " entries; at most " + Math.min(MAX_ENTRIES, (length - HEADER_SIZE) / ENTRY_HEADER_SIZE)
                    + " fit (" + length + " bytes, " + ENTRY_HEADER_SIZE + " per entry, at most " + MAX_ENTRIES + ")");
        }
        long pos = HEADER_SIZE;
        List<Raw> entries = new ArrayList<>((int) count);
        byte[] fields = new byte[ENTRY_HEADER_SIZE];
        ByteBuffer fieldView = ByteBuffer.wrap(fields).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < count; i++) {
            if (length - pos < ENTRY_HEADER_SIZE) {
                throw new OffloadBundleFormatException(where + " is truncated in the header of entry " + i
                        + " at offset " + hex(pos) + ": " + (length - pos) + " bytes left, " + ENTRY_HEADER_SIZE
                        + " needed");
            }
            in.readFully(fields, 0, ENTRY_HEADER_SIZE);
            long offset = fieldView.getLong(0);
            long size = fieldView.getLong(8);
            long idLength = fieldView.getLong(16);
            pos += ENTRY_HEADER_SIZE;
            if (idLength <= 0 || idLength > MAX_ID_LENGTH || idLength > length - pos) {
                throw new OffloadBundleFormatException(where + ": entry " + i + " at offset "
                        + hex(pos - ENTRY_HEADER_SIZE) + " has an id of " + Long.toUnsignedString(idLength)
                        + " bytes, outside 1.." + Math.min(MAX_ID_LENGTH, length - pos)
                        + (idLength > length - pos ? " (the bytes left)" : ""));
            }
            byte[] id = new byte[(int) idLength];
            in.readFully(id, 0, id.length);
            pos += idLength;
            OffloadBundleEntry parsed;
            try {
                parsed = OffloadBundleEntry.parse(new String(id, StandardCharsets.ISO_8859_1), 0, null);
            } catch (OffloadBundleFormatException e) {
                throw new OffloadBundleFormatException(where + ": entry " + i + ": " + e.getMessage(), e);
            }
            entries.add(new Raw(i, parsed, offset, size));
        }
        checkLayout(entries, pos, length, where);
        return new Table(entries, pos);
    }

    /**
     * Each entry must lie inside the bundle, and code (non-empty entries) must lie after the table and must not
     * overlap other code.
     */
    private static void checkLayout(List<Raw> entries, long tableEnd, long length, String where)
            throws OffloadBundleFormatException {
        for (Raw raw : entries) {
            long offset = raw.offset();
            long size = raw.size();
            if (!Bytes.inBounds(offset, size, length)) {
                throw new OffloadBundleFormatException(where + ": " + describe(raw) + " at offset "
                        + hex(offset) + " of " + Long.toUnsignedString(size)
                        + " bytes extends past the end of the bundle (" + length + " bytes)");
            }
            if (size > 0 && offset < tableEnd) {
                throw new OffloadBundleFormatException(where + ": " + describe(raw) + " starts at offset "
                        + hex(offset) + ", inside the bundle's header and table, which end at offset "
                        + hex(tableEnd));
            }
        }
        List<Raw> sorted = new ArrayList<>(entries);
        sorted.removeIf(raw -> raw.size() == 0);
        sorted.sort(Comparator.comparingLong(Raw::offset));
        for (int i = 1; i < sorted.size(); i++) {
            Raw a = sorted.get(i - 1);
            Raw b = sorted.get(i);
            if (b.offset() < a.offset() + a.size()) {
                throw new OffloadBundleFormatException(where + ": " + describe(b) + " at offset " + hex(b.offset())
                        + " overlaps " + describe(a) + " at offset " + hex(a.offset()) + " of " + a.size()
                        + " bytes");
            }
        }
    }

    private static String describe(Raw raw) {
        return "entry " + raw.index() + " ('" + raw.entry().id() + "')";
    }

    private static OffloadBundleEntry withCode(Raw raw, ByteBuffer code) {
        OffloadBundleEntry e = raw.entry();
        return new OffloadBundleEntry(e.id(), e.kind(), e.triple(), e.targetId(), raw.size(), code);
    }

    private static void checkLimit(long maxCodeBytes) {
        if (maxCodeBytes < 0) {
            throw new IllegalArgumentException("maxCodeBytes must not be negative: " + maxCodeBytes);
        }
    }
}
