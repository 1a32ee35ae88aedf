package org.archpool.worker.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import java.util.zip.Deflater;

import org.archpool.worker.inspect.OffloadBundle.Compression;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import io.airlift.compress.zstd.ZstdCompressor;
import io.airlift.compress.zstd.ZstdOutputStream;

/** {@link OffloadBundle} on synthetic bundles built in the test to the documented layout; needs no compiler. */
class OffloadBundleTest {

    static final String HOST = "host-x86_64-unknown-linux--";
    static final String GFX90A = "hipv4-amdgcn-amd-amdhsa--gfx90a";
    static final String GFX942_XNACK = "hipv4-amdgcn-amd-amdhsa--gfx942:xnack+";
    static final String GFX1100 = "hipv4-amdgcn-amd-amdhsa--gfx1100";
    private static final long ALL = Long.MAX_VALUE;

    // -------------------------------------------------------------------------------------------------------
    // Builders, also used by OffloadBundleToolchainTest

    /** An entry to build: its id and code. */
    record Part(String id, byte[] code) {
    }

    static Part part(String id, int size, int seed) {
        byte[] code = new byte[size];
        new Random(seed).nextBytes(code);
        return new Part(id, code);
    }

    /**
     * Builds an uncompressed bundle the way clang does: header, table, then each entry's code at the next multiple
     * of {@code alignment}; an empty entry gets the offset where the next code would go.
     */
    static byte[] bundle(int alignment, Part... parts) {
        long tableEnd = 32;
        for (Part p : parts) {
            tableEnd += 24 + p.id().length();
        }
        long[] offsets = new long[parts.length];
        long pos = align(tableEnd, alignment);
        long end = tableEnd;
        for (int i = 0; i < parts.length; i++) {
            offsets[i] = pos;
            if (parts[i].code().length > 0) {
                end = pos + parts[i].code().length;
                pos = align(end, alignment);
            }
        }
        ByteBuffer b = le(ByteBuffer.allocate((int) end));
        b.put(OffloadBundle.MAGIC.getBytes(StandardCharsets.US_ASCII)).putLong(parts.length);
        for (int i = 0; i < parts.length; i++) {
            byte[] id = parts[i].id().getBytes(StandardCharsets.ISO_8859_1);
            b.putLong(offsets[i]).putLong(parts[i].code().length).putLong(id.length).put(id);
        }
        for (int i = 0; i < parts.length; i++) {
            b.put((int) offsets[i], parts[i].code());
        }
        return b.array();
    }

    /** The test bundle most tests use: a host entry and three devices, unaligned sizes. */
    static byte[] sample() {
        return bundle(16, new Part(HOST, new byte[0]), part(GFX90A, 301, 1), part(GFX942_XNACK, 77, 2),
                part(GFX1100, 1000, 3));
    }

    /** A compressed bundle around already compressed data, with the declared sizes and hash given. */
    static byte[] ccob(int version, int method, byte[] payload, long uncompressedSize, long hash) {
        int header = switch (version) {
            case 1 -> 20;
            case 2 -> 24;
            default -> 32;
        };
        ByteBuffer b = le(ByteBuffer.allocate(header + payload.length));
        b.put(OffloadBundle.COMPRESSED_MAGIC.getBytes(StandardCharsets.US_ASCII));
        b.putShort((short) version).putShort((short) method);
        long total = header + payload.length;
        switch (version) {
            case 1 -> b.putInt((int) uncompressedSize);
            case 2 -> b.putInt((int) total).putInt((int) uncompressedSize);
            default -> b.putLong(total).putLong(uncompressedSize);
        }
        b.putLong(hash).put(payload);
        return b.array();
    }

    /** Compresses a bundle with zlib (method 0) or zstd (method 1, aircompressor's one-shot compressor). */
    static byte[] compress(int version, int method, byte[] bundle) {
        byte[] payload = method == 0 ? zlib(bundle) : zstd(bundle);
        return ccob(version, method, payload, bundle.length, md5(bundle));
    }

    static byte[] zlib(byte[] data) {
        Deflater deflater = new Deflater();
        deflater.setInput(data);
        deflater.finish();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] chunk = new byte[4096];
        while (!deflater.finished()) {
            out.write(chunk, 0, deflater.deflate(chunk));
        }
        deflater.end();
        return out.toByteArray();
    }

    /** One-shot zstd: for small data, a single-segment frame that states its content size. */
    static byte[] zstd(byte[] data) {
        ZstdCompressor compressor = new ZstdCompressor();
        byte[] out = new byte[compressor.maxCompressedLength(data.length)];
        int n = compressor.compress(data, 0, data.length, out, 0, out.length);
        return Arrays.copyOf(out, n);
    }

    /** Streaming zstd: for data over a few MB, a frame with a window. */
    static byte[] zstdStream(byte[] data) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZstdOutputStream zstd = new ZstdOutputStream(out)) {
            zstd.write(data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /**
     * A zstd frame of raw (stored) blocks, with a 128 KiB window or a single segment, with or without the content
     * size, so that tests control exactly what the decoder is told.
     */
    static byte[] zstdRaw(byte[] data, boolean singleSegment, boolean withContentSize) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer header = le(ByteBuffer.allocate(14));
        header.putInt(0xFD2FB528);
        boolean fcs = withContentSize || singleSegment;
        header.put((byte) ((fcs ? 0xC0 : 0) | (singleSegment ? 0x20 : 0)));
        if (!singleSegment) {
            header.put((byte) ((17 - 10) << 3)); // 128 KiB
        }
        if (fcs) {
            header.putLong(data.length);
        }
        out.write(header.array(), 0, header.position());
        int pos = 0;
        do {
            int n = Math.min(128 << 10, data.length - pos);
            boolean last = pos + n == data.length;
            int block = (n << 3) | (last ? 1 : 0);
            out.write(block & 0xff);
            out.write((block >> 8) & 0xff);
            out.write((block >> 16) & 0xff);
            out.write(data, pos, n);
            pos += n;
        } while (pos < data.length);
        return out.toByteArray();
    }

    /** The hash a compressed bundle's header holds: the first 8 bytes of the MD5 digest, little-endian. */
    static long md5(byte[] data) {
        try {
            return le(ByteBuffer.wrap(MessageDigest.getInstance("MD5").digest(data))).getLong(0);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    static ByteBuffer buffer(byte[] data) {
        return ByteBuffer.wrap(data);
    }

    private static ByteBuffer le(ByteBuffer b) {
        return b.order(ByteOrder.LITTLE_ENDIAN);
    }

    private static long align(long value, int alignment) {
        return (value + alignment - 1) / alignment * alignment;
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    // -------------------------------------------------------------------------------------------------------
    // Uncompressed bundles

    @Test
    void readsEntriesInTableOrderWithTheirCode() throws Exception {
        Part host = new Part(HOST, new byte[0]);
        Part a = part(GFX90A, 301, 1);
        Part b = part(GFX942_XNACK, 77, 2);
        byte[] data = bundle(4096, host, a, b);

        OffloadBundle bundle = OffloadBundle.read(buffer(data), ALL);

        assertThat(bundle.compression()).isEqualTo(Compression.NONE);
        assertThat(bundle.entries()).extracting(OffloadBundleEntry::id).containsExactly(HOST, GFX90A, GFX942_XNACK);
        assertThat(bundle.entries()).extracting(OffloadBundleEntry::size).containsExactly(0L, 301L, 77L);
        assertThat(bundle.entries()).extracting(OffloadBundleEntry::isHost).containsExactly(true, false, false);
        assertThat(bundle.deviceEntries()).extracting(OffloadBundleEntry::targetId)
                .containsExactly("gfx90a", "gfx942:xnack+");
        assertThat(bytes(bundle.entries().get(1).code())).isEqualTo(a.code());
        assertThat(bytes(bundle.entries().get(2).code())).isEqualTo(b.code());
        assertThat(bundle.entries().get(0).code().remaining()).isZero();
        assertThat(data.length).isEqualTo(2 * 4096 + 77); // the host entry sits at 0x1000, like clang's
    }

    @Test
    void codeIsAReadOnlyLittleEndianViewThatCallersCannotDisturb() throws Exception {
        byte[] data = sample();

        OffloadBundleEntry entry = OffloadBundle.read(buffer(data), ALL).entries().get(1);
        ByteBuffer first = entry.code();
        first.position(100).order(ByteOrder.BIG_ENDIAN);
        ByteBuffer second = entry.code();

        assertThat(second.isReadOnly()).isTrue();
        assertThat(second.order()).isEqualTo(ByteOrder.LITTLE_ENDIAN);
        assertThat(second.position()).isZero();
        assertThat(second.remaining()).isEqualTo(301);
        data[(int) le(buffer(data)).getLong(32 + 24 + HOST.length())] ^= 1; // zero-copy: a view of the input
        assertThat(second.get(0)).isEqualTo(data[(int) le(buffer(data)).getLong(32 + 24 + HOST.length())]);
    }

    @Test
    void readsCodeStoredInAnOrderOtherThanTheTables() throws Exception {
        byte[] a = part(GFX90A, 40, 1).code();
        byte[] b = part(GFX1100, 24, 2).code();
        int tableEnd = 32 + 2 * 24 + GFX90A.length() + GFX1100.length();
        ByteBuffer data = le(ByteBuffer.allocate(tableEnd + 32 + a.length));
        data.put(OffloadBundle.MAGIC.getBytes(StandardCharsets.US_ASCII)).putLong(2);
        data.putLong(tableEnd + 32).putLong(a.length).putLong(GFX90A.length()).put(GFX90A.getBytes(StandardCharsets.US_ASCII));
        data.putLong(tableEnd).putLong(b.length).putLong(GFX1100.length()).put(GFX1100.getBytes(StandardCharsets.US_ASCII));
        data.put(tableEnd + 32, a).put(tableEnd, b);

        for (byte[] bytes : List.of(data.array(), compress(2, 0, data.array()), compress(3, 1, data.array()))) {
            OffloadBundle bundle = OffloadBundle.read(buffer(bytes), ALL);

            assertThat(bundle.entries()).extracting(OffloadBundleEntry::targetId).containsExactly("gfx90a", "gfx1100");
            assertThat(bytes(bundle.entries().get(0).code())).isEqualTo(a);
            assertThat(bytes(bundle.entries().get(1).code())).isEqualTo(b);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "hipv4-amdgcn-amd-amdhsa--gfx90a            | hipv4  | amdgcn-amd-amdhsa-        | gfx90a",
        "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+     | hipv4  | amdgcn-amd-amdhsa-        | gfx90a:xnack+",
        "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack- | hipv4 | amdgcn-amd-amdhsa-   | gfx90a:sramecc+:xnack-",
        "hipv4-amdgcn-amd-amdhsa--gfx10-3-generic   | hipv4  | amdgcn-amd-amdhsa-        | gfx10-3-generic",
        "hip-amdgcn-amd-amdhsa-gfx906               | hip    | amdgcn-amd-amdhsa-        | gfx906",
        "hip-amdgcn-amd-amdhsa-gfx90a:xnack-        | hip    | amdgcn-amd-amdhsa-        | gfx90a:xnack-",
        "hip-amdgcn-amd-amdhsa--gfx942              | hip    | amdgcn-amd-amdhsa-        | gfx942",
        "hip-nvptx64-nvidia-cuda--sm_90             | hip    | nvptx64-nvidia-cuda-      | sm_90",
        "hip-nvptx64-nvidia-cuda-sm_90a             | hip    | nvptx64-nvidia-cuda-      | sm_90a",
        "openmp-amdgcn-amd-amdhsa--gfx90a           | openmp | amdgcn-amd-amdhsa-        | gfx90a",
        "openmp-x86_64-pc-linux-gnu                 | openmp | x86_64-pc-linux-gnu       | ''",
        "host-x86_64-unknown-linux-gnu-             | host   | x86_64-unknown-linux-gnu  | ''",
        "host-x86_64-unknown-linux--                | host   | x86_64-unknown-linux-     | ''",
        "host-x86_64-unknown-linux                  | host   | x86_64-unknown-linux-     | ''",
        "host-x86_64-pc-linux-gnu                   | host   | x86_64-pc-linux-gnu       | ''",
        "host-x86_64                                | host   | x86_64---                 | ''",
    })
    void splitsEveryFormOfId(String id, String kind, String triple, String targetId) throws Exception {
        byte[] data = bundle(8, part(id, 5, 1));

        OffloadBundleEntry entry = OffloadBundle.read(buffer(data), ALL).entries().get(0);

        assertThat(entry.id()).isEqualTo(id);
        assertThat(entry.kind()).isEqualTo(kind);
        assertThat(entry.triple()).isEqualTo(triple);
        assertThat(entry.targetId()).isEqualTo(targetId);
        assertThat(entry.isHost()).isEqualTo(kind.equals("host"));
    }

    @ParameterizedTest(name = "[{0}]")
    @CsvSource(delimiter = '|', value = {
        "nodash                   | it has no dash",
        "-amdgcn-amd-amdhsa       | its offload kind is empty",
        "hip--amd-amdhsa--gfx90a  | empty architecture",
        "hip-amdgcn-amd:xnack+    | target features but no processor",
        "hip-amdgcn amd           | not printable ASCII",
        "hip-amdgcn-amd-amdhsa--gfx90a\u00e9 | not printable ASCII",
    })
    void rejectsIdsThatCannotBeSplit(String id, String why) {
        byte[] data = bundle(8, part(id, 5, 1));

        assertThatThrownBy(() -> OffloadBundle.read(buffer(data), ALL))
                .isInstanceOf(OffloadBundleFormatException.class)
                .hasMessageContaining("entry 0")
                .hasMessageContaining(why);
    }

    @Test
    void readsABundleWithNoEntries() throws Exception {
        byte[] empty = bundle(8);

        assertThat(empty).hasSize(32);
        assertThat(OffloadBundle.read(buffer(empty), ALL).entries()).isEmpty();
        assertThat(OffloadBundle.read(buffer(concat(empty, new byte[4064])), ALL).entries()).isEmpty();
        assertThat(OffloadBundle.read(buffer(compress(2, 1, empty)), ALL).entries()).isEmpty();
    }

    @Test
    void skipsTheZeroPaddingThatFollowsABundleInASection() throws Exception {
        byte[] data = sample();

        for (int padding : new int[] {1, 7, 4096 - data.length % 4096}) {
            assertThat(OffloadBundle.read(buffer(concat(data, new byte[padding])), ALL).entries()).hasSize(4);
        }
    }

    @Test
    void rejectsDataAfterTheBundleAndPointsToReadAllForASecondBundle() {
        byte[] data = sample();
        byte[] garbage = concat(data, new byte[] {0, 0, 5});
        byte[] two = concat(data, new byte[(int) align(data.length, 4096) - data.length], data);

        assertThatThrownBy(() -> OffloadBundle.read(buffer(garbage), ALL))
                .isInstanceOf(OffloadBundleFormatException.class)
                .hasMessage("unexpected byte 0x5 at offset 0x" + Integer.toHexString(data.length + 2)
                        + " after the offload bundle that ends at offset 0x" + Integer.toHexString(data.length));
        assertThatThrownBy(() -> OffloadBundle.read(buffer(two), ALL))
                .isInstanceOf(OffloadBundleFormatException.class)
                .hasMessageContaining("at offset 0x1000")
                .hasMessageContaining("another bundle starts there")
                .hasMessageContaining("readAll");
    }

    @Test
    void readAllReadsEveryBundleOfASectionCompressedOrNot() throws Exception {
        byte[] first = sample();
        byte[] second = compress(2, 1, bundle(64, new Part(HOST, new byte[0]), part(GFX1100, 50, 9)));
        byte[] third = compress(3, 0, bundle(64, part(GFX90A, 10, 10)));
        byte[] section = concat(first, new byte[4096 - first.length], second, new byte[4096 - second.length], third,
                new byte[3]);

        List<OffloadBundle> bundles = OffloadBundle.readAll(buffer(section), ALL);

        assertThat(bundles).extracting(OffloadBundle::compression)
                .containsExactly(Compression.NONE, Compression.ZSTD, Compression.ZLIB);
        assertThat(bundles.get(1).entries()).extracting(OffloadBundleEntry::id).containsExactly(HOST, GFX1100);
        assertThat(bundles.get(2).entries()).extracting(OffloadBundleEntry::targetId).containsExactly("gfx90a");
        assertThat(OffloadBundle.readAll(buffer(first), ALL)).hasSize(1);
        assertThat(OffloadBundle.readAll(buffer(new byte[0]), ALL)).isEmpty();
    }

    @Test
    void readAllRejectsGarbageBetweenBundlesAndASectionThatDoesNotStartWithOne() {
        byte[] data = sample();

        assertThatThrownBy(() -> OffloadBundle.readAll(buffer(concat(data, new byte[5], new byte[] {1})), ALL))
                .isInstanceOf(OffloadBundleFormatException.class)
                .hasMessageContaining("no offload bundle at offset 0x" + Integer.toHexString(data.length + 5))
                .hasMessageContaining("found bytes 01");
        assertThatThrownBy(() -> OffloadBundle.readAll(buffer(new byte[16]), ALL))
                .isInstanceOf(OffloadBundleFormatException.class)
                .hasMessageContaining("no offload bundle at offset 0x0");
        assertThatThrownBy(() -> OffloadBundle.read(buffer(new byte[0]), ALL))
                .isInstanceOf(OffloadBundleFormatException.class)
                .hasMessageContaining("found the end of the data");
    }

    @Test
    void hasMagicLooksAtThePosition() {
        ByteBuffer data = buffer(concat(new byte[] {9}, sample()));
        ByteBuffer compressed = buffer(compress(2, 1, sample()));

        assertThat(OffloadBundle.hasMagic(data)).isFalse();
        assertThat(OffloadBundle.hasMagic(data.position(1))).isTrue();
        assertThat(OffloadBundle.hasMagic(compressed)).isTrue();
        assertThat(OffloadBundle.hasMagic(buffer("CCO".getBytes(StandardCharsets.US_ASCII)))).isFalse();
        assertThat(OffloadBundle.hasMagic(buffer(new byte[0]))).isFalse();
        assertThat(data.position()).isEqualTo(1);
    }

    @Test
    void honoursTheBufferPositionLimitAndOrder() throws Exception {
        byte[] data = sample();
        ByteBuffer framed = ByteBuffer.wrap(concat(new byte[] {1, 2, 3}, data, new byte[] {7, 7}));
        framed.position(3).limit(3 + data.length);

        OffloadBundle bundle = OffloadBundle.read(framed, ALL);

        assertThat(bundle.entries()).hasSize(4);
        assertThat(framed.position()).isEqualTo(3);
        assertThat(framed.limit()).isEqualTo(3 + data.length);
        assertThat(framed.order()).isEqualTo(ByteOrder.BIG_ENDIAN);
    }

    @Test
    void keepsOnlyCodeUpToTheLimit() throws Exception {
        byte[] data = sample(); // 0, 301, 77 and 1000 bytes

        for (byte[] bytes : List.of(data, compress(1, 0, data), compress(2, 1, data), compress(3, 0, data))) {
            List<OffloadBundleEntry> capped = OffloadBundle.read(buffer(bytes), 301).entries();
            List<OffloadBundleEntry> none = OffloadBundle.read(buffer(bytes), 0).entries();

            assertThat(capped).extracting(e -> e.code() == null).containsExactly(false, false, false, true);
            assertThat(capped.get(3).size()).isEqualTo(1000);
            assertThat(none).extracting(e -> e.code() == null).containsExactly(false, true, true, true);
        }
        assertThatThrownBy(() -> OffloadBundle.read(buffer(data), -1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rejectsEntriesOutsideTheBundleOverlappingOrInsideTheTable() {
        byte[] data = sample();
        int tableEnd = 32 + 4 * 24 + HOST.length() + GFX90A.length() + GFX942_XNACK.length() + GFX1100.length();
        int second = 32 + 24 + HOST.length(); // the gfx90a entry's fields
        int third = second + 24 + GFX90A.length();

        byte[] past = data.clone();
        le(buffer(past)).putLong(second + 8, data.length);
        byte[] overlap = data.clone();
        le(buffer(overlap)).putLong(third, le(buffer(data)).getLong(second) + 300);
        byte[] inTable = data.clone();
        le(buffer(inTable)).putLong(second, tableEnd - 1);

        for (boolean compressed : new boolean[] {false, true}) {
            assertThatThrownBy(() -> OffloadBundle.read(buffer(compressed ? compress(2, 0, past) : past), ALL))
                    .isInstanceOf(OffloadBundleFormatException.class)
                    .hasMessageContaining("entry 1 ('" + GFX90A + "')")
                    .hasMessageContaining("extends past the end of the bundle (" + data.length + " bytes)");
            assertThatThrownBy(() -> OffloadBundle.read(buffer(compressed ? compress(3, 1, overlap) : overlap), ALL))
                    .isInstanceOf(OffloadBundleFormatException.class)
                    .hasMessageContaining("entry 2 ('" + GFX942_XNACK + "')")
                    .hasMessageContaining("overlaps entry 1");
            assertThatThrownBy(() -> OffloadBundle.read(buffer(compressed ? compress(1, 1, inTable) : inTable), ALL))
                    .isInstanceOf(OffloadBundleFormatException.class)
                    .hasMessageContaining("inside the bundle's header and table");
        }
    }

    /** A field of the sample bundle's header or of its first (host) entry's fields, and a value it cannot have. */
    static Stream<Arguments> hugeOrImpossibleFields() {
        int count = 24;
        int offset = 32;
        int size = offset + 8;
        int idLength = offset + 16;
        return Stream.of(
                Arguments.of("entry count", count, Long.MAX_VALUE),
                Arguments.of("entry count", count, -1L),
                Arguments.of("entry count", count, 1L << 40),
                Arguments.of("entry count", count, OffloadBundle.MAX_ENTRIES + 1L),
                Arguments.of("entry count", count, 5L), // one more than the sample has
                Arguments.of("first entry's offset", offset, Long.MAX_VALUE),
                Arguments.of("first entry's offset", offset, -1L),
                Arguments.of("first entry's size", size, Long.MAX_VALUE),
                Arguments.of("first entry's size", size, -1L),
                Arguments.of("first entry's size", size, Long.MAX_VALUE - 4000),
                Arguments.of("first entry's id length", idLength, Long.MAX_VALUE),
                Arguments.of("first entry's id length", idLength, -1L),
                Arguments.of("first entry's id length", idLength, 0L),
                Arguments.of("first entry's id length", idLength, 1L << 31),
                Arguments.of("first entry's id length", idLength, OffloadBundle.MAX_ID_LENGTH + 1L),
                Arguments.of("first entry's id length", idLength, (long) sample().length));
    }

    @ParameterizedTest(name = "{0} = {2}")
    @MethodSource("hugeOrImpossibleFields")
    void rejectsHugeCountsOffsetsSizesAndIdLengthsWithoutAllocating(String field, int at, long value) {
        byte[] mutated = sample();
        le(buffer(mutated)).putLong(at, value);

        for (byte[] bytes : List.of(mutated, compress(2, 0, mutated), compress(2, 1, mutated))) {
            assertThatThrownBy(() -> OffloadBundle.read(buffer(bytes), ALL))
                    .isInstanceOf(OffloadBundleFormatException.class);
        }
    }

    /** Every prefix of a valid bundle, uncompressed or not, is rejected with a format exception. */
    @Test
    void rejectsTruncationAtEveryByte() {
        byte[] data = sample();
        List<byte[]> valid = List.of(data, compress(1, 0, data), compress(2, 0, data), compress(3, 0, data),
                compress(1, 1, data), compress(2, 1, data), compress(3, 1, data),
                ccob(2, 1, zstdRaw(data, false, false), data.length, md5(data)));
        for (byte[] bytes : valid) {
            for (int length = 0; length < bytes.length; length++) {
                byte[] prefix = Arrays.copyOf(bytes, length);
                assertThatThrownBy(() -> OffloadBundle.read(buffer(prefix), ALL))
                        .as("prefix of %d of %d bytes", length, bytes.length)
                        .isInstanceOf(OffloadBundleFormatException.class);
            }
        }
    }

    /** Compressed data cut short while the header's total size is adjusted to match, so the decoder sees it. */
    @Test
    void rejectsTruncatedCompressedDataInsideAConsistentHeader() {
        byte[] data = sample();
        List<byte[]> payloads = List.of(zlib(data), zstd(data), zstdRaw(data, false, false), zstdRaw(data, true, true));
        for (int p = 0; p < payloads.size(); p++) {
            byte[] payload = payloads.get(p);
            int method = p == 0 ? 0 : 1;
            for (int length = 0; length < payload.length; length++) {
                byte[] bytes = ccob(2, method, Arrays.copyOf(payload, length), data.length, md5(data));
                assertThatThrownBy(() -> OffloadBundle.read(buffer(bytes), ALL))
                        .as("payload %d cut to %d of %d bytes", p, length, payload.length)
                        .isInstanceOf(OffloadBundleFormatException.class);
            }
        }
    }

    @Test
    void namesWhereAZstdFrameIsCut() {
        byte[] data = sample();
        byte[] frame = zstdRaw(data, false, false); // 6-byte header: magic, descriptor, window
        byte[] cut = ccob(2, 1, Arrays.copyOf(frame, 6 + 3 + 10), data.length, md5(data));

        assertThatThrownBy(() -> OffloadBundle.read(buffer(cut), ALL))
                .isInstanceOf(OffloadBundleFormatException.class)
                .hasMessage("compressed offload bundle at offset 0x0: truncated zstd frame: the block at offset 0x6"
                        + " of the compressed data extends past its end (19 bytes)");
    }

    // -------------------------------------------------------------------------------------------------------
    // Compressed bundles

    @ParameterizedTest(name = "version {0}, {2} (method {1})")
    @CsvSource({"1, 0, ZLIB", "1, 1, ZSTD", "2, 0, ZLIB", "2, 1, ZSTD", "3, 0, ZLIB", "3, 1, ZSTD"})
    void readsEveryCompressedVersionWithBothMethods(int version, int method, Compression compression)
            throws Exception {
        byte[] data = sample();
        OffloadBundle plain = OffloadBundle.read(buffer(data), ALL);
        byte[] bytes = compress(version, method, data);

        OffloadBundle bundle = OffloadBundle.read(buffer(bytes), ALL);

        assertThat(bundle.compression()).isEqualTo(compression);
        assertThat(bundle.entries()).isEqualTo(plain.entries());
        ByteBuffer direct = ByteBuffer.allocateDirect(bytes.length).put(bytes).flip().asReadOnlyBuffer();
        assertThat(OffloadBundle.read(direct, ALL).entries()).as("direct").isEqualTo(plain.entries());
        for (OffloadBundleEntry entry : bundle.entries()) {
            assertThat(entry.code().isReadOnly()).isTrue();
            assertThat(entry.code().order()).isEqualTo(ByteOrder.LITTLE_ENDIAN);
        }
    }

    @Test
    void streamsZstdFramesWithAWindowAndDecodesSingleSegmentOnesWhole() throws Exception {
        Part big = part(GFX90A, 3 << 20, 5);
        for (int i = 0; i < big.code().length; i++) {
            big.code()[i] &= 0x0f; // compressible, so that the frame has real compressed blocks
        }
        byte[] data = bundle(4096, new Part(HOST, new byte[0]), big, part(GFX1100, 1000, 6));
        byte[] windowed = zstdStream(data);
        byte[] single = zstd(sample());

        assertThat(windowed[4] & 0x20).as("single-segment flag").isZero();
        assertThat(single[4] & 0x20).as("single-segment flag").isNotZero();
        OffloadBundle bundle = OffloadBundle.read(buffer(ccob(2, 1, windowed, data.length, md5(data))), ALL);
        assertThat(bytes(bundle.entries().get(1).code())).isEqualTo(big.code());
        assertThat(bundle.entries().get(2).size()).isEqualTo(1000);
        OffloadBundle capped = OffloadBundle.read(buffer(ccob(3, 1, windowed, data.length, md5(data))), 1 << 20);
        assertThat(capped.entries()).extracting(e -> e.code() == null).containsExactly(false, true, false);
        assertThat(OffloadBundle.read(buffer(ccob(2, 1, single, sample().length, md5(sample()))), ALL).entries())
                .hasSize(4);
    }

    @Test
    void acceptsRawZstdFramesWithAndWithoutAWindowOrContentSize() throws Exception {
        byte[] data = bundle(4096, part(GFX90A, 300_000, 8)); // several 128 KiB blocks
        for (boolean single : new boolean[] {false, true}) {
            for (boolean size : new boolean[] {false, true}) {
                byte[] bytes = ccob(2, 1, zstdRaw(data, single, size), data.length, md5(data));
                assertThat(bytes(OffloadBundle.read(buffer(bytes), ALL).entries().get(0).code()))
                        .isEqualTo(Arrays.copyOfRange(data, 4096, data.length));
            }
        }
    }

    /** A hand-made frame with a raw block (header and table) and an RLE block (the code, one byte repeated). */
    @Test
    void readsZstdFramesWithRunLengthBlocks() throws Exception {
        byte[] code = new byte[5000];
        Arrays.fill(code, (byte) 0x41);
        byte[] data = bundle(8, new Part(GFX90A, code));
        int table = data.length - code.length;
        ByteArrayOutputStream frame = new ByteArrayOutputStream();
        frame.writeBytes(new byte[] {0x28, (byte) 0xb5, 0x2f, (byte) 0xfd, 0x20 | (byte) 0x40}); // single, 2-byte size
        frame.writeBytes(new byte[] {(byte) (data.length - 256), (byte) ((data.length - 256) >> 8)});
        frame.writeBytes(new byte[] {(byte) (table << 3), (byte) (table >> 5), (byte) (table >> 13)}); // raw block
        frame.write(data, 0, table);
        int rle = (code.length << 3) | (1 << 1) | 1; // RLE, last
        frame.writeBytes(new byte[] {(byte) rle, (byte) (rle >> 8), (byte) (rle >> 16), 0x41});

        for (int version = 2; version <= 3; version++) {
            OffloadBundle bundle = OffloadBundle.read(buffer(ccob(version, 1, frame.toByteArray(), data.length,
                    md5(data))), ALL);
            assertThat(bytes(bundle.entries().get(0).code())).isEqualTo(code);
        }
    }

    @Test
    void rejectsADeclaredUncompressedSizeThatLies() {
        byte[] data = sample();
        byte[] longer = concat(data, new byte[16]); // decompresses to 16 more bytes than the bundle needs

        // zlib, and zstd frames without a content size: the decoder finds out
        for (int method = 0; method <= 1; method++) {
            byte[] tooBig = ccob(2, method, method == 0 ? zlib(data) : zstdRaw(data, false, false),
                    data.length + 16, md5(data));
            byte[] tooSmall = ccob(3, method, method == 0 ? zlib(longer) : zstdRaw(longer, false, false),
                    data.length, md5(data));

            assertThatThrownBy(() -> OffloadBundle.read(buffer(tooBig), ALL))
                    .isInstanceOf(OffloadBundleFormatException.class)
                    .hasMessageContaining("decompresses to only " + data.length + " bytes, but its header declares "
                            + (data.length + 16));
            assertThatThrownBy(() -> OffloadBundle.read(buffer(tooSmall), ALL))
                    .isInstanceOf(OffloadBundleFormatException.class)
                    .hasMessageContaining("decompresses to more than the " + data.length + " bytes its header"
                            + " declares");
        }
        // zstd frames that state their content size: the frame header gives it away
        assertThatThrownBy(() -> OffloadBundle.read(buffer(ccob(2, 1, zstd(data), data.length + 1, 0)), ALL))
                .isInstanceOf(OffloadBundleFormatException.class)
                .hasMessageContaining("its zstd frame declares " + data.length + " bytes of content, its header "
                        + (data.length + 1));
        assertThatThrownBy(() -> OffloadBundle.read(buffer(ccob(2, 1, zstd(longer), data.length, 0)), ALL))
                .isInstanceOf(OffloadBundleFormatException.class)
                .hasMessageContaining("its zstd frame declares " + longer.length + " bytes of content");
    }

    @Test
    void rejectsAHashThatDoesNotMatch() {
        byte[] data = sample();

        for (int method = 0; method <= 1; method++) {
            byte[] bytes = ccob(2, method, method == 0 ? zlib(data) : zstd(data), data.length, md5(data) ^ 1);
            assertThatThrownBy(() -> OffloadBundle.read(buffer(bytes), ALL))
                    .isInstanceOf(OffloadBundleFormatException.class)
                    .hasMessageContaining("MD5 hash")
                    .hasMessageContaining("does not match");
        }
    }

    /** Compressed bundles with an impossible header field, and what the error says. */
    static Stream<Arguments> impossibleCompressedHeaders() {
        byte[] data = sample();
        byte[] v4 = compress(2, 1, data);
        v4[4] = 4;
        byte[] lz4 = compress(2, 1, data);
        lz4[6] = 2;
        byte[] total = compress(2, 0, data);
        le(buffer(total)).putInt(8, total.length + 1);
        byte[] tinyTotal = compress(3, 0, data);
        le(buffer(tinyTotal)).putLong(8, 31);
        byte[] hugeTotal = compress(3, 1, data);
        le(buffer(hugeTotal)).putLong(8, -1);
        byte[] hugeV3 = compress(3, 0, data);
        le(buffer(hugeV3)).putLong(16, -1);
        return Stream.of(
                Arguments.of("unsupported version 4", v4),
                Arguments.of("unknown compression method 2 (0 = zlib, 1 = zstd)", lz4),
                Arguments.of("declares a total size of " + (total.length + 1) + " bytes", total),
                Arguments.of("declares a total size of 31 bytes, outside 32..", tinyTotal),
                Arguments.of("declares a total size of 18446744073709551615 bytes", hugeTotal),
                Arguments.of("uncompressed size of 8 bytes, which cannot hold a bundle header",
                        ccob(2, 0, zlib(new byte[8]), 8, md5(new byte[8]))),
                Arguments.of("uncompressed size of 18446744073709551615 bytes", hugeV3));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("impossibleCompressedHeaders")
    void rejectsUnknownVersionsAndMethodsAndImpossibleSizes(String message, byte[] bytes) {
        assertThatThrownBy(() -> OffloadBundle.read(buffer(bytes), ALL))
                .isInstanceOf(OffloadBundleFormatException.class)
                .hasMessageContaining(message);
    }

    /**
     * A zlib bundle that declares almost 4 GiB, with a last entry of 1 GiB and a cap that allows it: the buffer for
     * the entry only grows with the data that really arrives, so the truncation is found without allocating 1 GiB.
     */
    @Test
    void aHugeDeclaredSizeOnlyCostsWhatTheDataReallyHolds() {
        byte[] data = sample();
        int lastSize = 32 + 3 * 24 + HOST.length() + GFX90A.length() + GFX942_XNACK.length() + 8;
        for (long size : new long[] {1L << 30, 0xffff_0000L}) {
            le(buffer(data)).putLong(lastSize, size);
            byte[] bytes = ccob(2, 0, zlib(data), 0xffff_ffffL, md5(data));

            assertThatThrownBy(() -> OffloadBundle.read(buffer(bytes), ALL))
                    .isInstanceOf(OffloadBundleFormatException.class)
                    .hasMessageContaining("decompresses to only " + data.length + " bytes");
        }
    }

    @Test
    void rejectsZstdFramesTheDecoderCannotHoldWithAClearMessage() throws Exception {
        long huge = 200L << 20;
        byte[] emptyLastBlock = {1, 0, 0};
        ByteBuffer single = le(ByteBuffer.allocate(16)).putInt(0xFD2FB528).put((byte) 0xE0).putLong(huge)
                .put(emptyLastBlock);
        ByteBuffer window = le(ByteBuffer.allocate(9)).putInt(0xFD2FB528).put((byte) 0).put((byte) ((27 - 10) << 3))
                .put(emptyLastBlock);
        byte[] notZstd = "definitely not zstd".getBytes(StandardCharsets.US_ASCII);

        assertThatThrownBy(() -> OffloadBundle.read(buffer(ccob(3, 1, single.array(), huge, 0)), ALL))
                .isInstanceOf(OffloadBundleFormatException.class)
                .hasMessageContaining("was not read: its zstd frame has a single segment of 209715200 bytes")
                .hasMessageContaining("at most 134217728 are");
        byte[] real = sample();
        byte[] compressed = compress(2, 1, real);
        assertThat(OffloadBundle.readAll(buffer(compressed), ALL, real.length)).hasSize(1);
        assertThatThrownBy(() -> OffloadBundle.readAll(buffer(compressed), ALL, real.length - 1))
                .isInstanceOf(OffloadBundleFormatException.class)
                .hasMessageContaining("at most " + (real.length - 1) + " are");
        assertThatThrownBy(() -> OffloadBundle.read(buffer(ccob(3, 1, window.array(), huge, 0)), ALL))
                .isInstanceOf(OffloadBundleFormatException.class)
                .hasMessageContaining("uses a window of 128 MiB")
                .hasMessageContaining("at most 8 MiB");
        assertThatThrownBy(() -> OffloadBundle.read(buffer(ccob(2, 1, notZstd, 100, 0)), ALL))
                .isInstanceOf(OffloadBundleFormatException.class)
                .hasMessageContaining("does not start with a zstd frame");
    }

    @Test
    void rejectsDataAfterTheCompressedStreamInsideTheBundle() {
        byte[] data = sample();

        for (byte[] trailing : List.of(new byte[] {0}, new byte[] {0, 0, 0, 0}, new byte[] {0x28, (byte) 0xb5})) {
            for (int method = 0; method <= 1; method++) {
                byte[] payload = concat(method == 0 ? zlib(data) : zstd(data), trailing);
                byte[] bytes = ccob(2, method, payload, data.length, md5(data));
                assertThatThrownBy(() -> OffloadBundle.read(buffer(bytes), ALL))
                        .isInstanceOf(OffloadBundleFormatException.class);
                byte[] raw = ccob(2, 1, concat(zstdRaw(data, false, false), trailing), data.length, md5(data));
                assertThatThrownBy(() -> OffloadBundle.read(buffer(raw), ALL))
                        .isInstanceOf(OffloadBundleFormatException.class);
            }
        }
        byte[] twoFrames = ccob(2, 1, concat(zstdRaw(Arrays.copyOf(data, 100), false, false),
                zstdRaw(Arrays.copyOfRange(data, 100, data.length), false, false)), data.length, md5(data));
        assertThatThrownBy(() -> OffloadBundle.read(buffer(twoFrames), ALL))
                .isInstanceOf(OffloadBundleFormatException.class)
                .hasMessageContaining(" bytes follow the zstd frame inside the bundle (LLVM writes a single frame)");
        byte[] zstdTrailing = ccob(2, 1, concat(zstd(data), new byte[] {0, 0}), data.length, md5(data));
        assertThatThrownBy(() -> OffloadBundle.read(buffer(zstdTrailing), ALL))
                .hasMessageContaining("2 bytes follow the zstd frame inside the bundle");
        byte[] zlibTrailing = ccob(3, 0, concat(zlib(data), new byte[] {1}), data.length, md5(data));
        assertThatThrownBy(() -> OffloadBundle.read(buffer(zlibTrailing), ALL))
                .hasMessageContaining("1 bytes follow the end of the zlib stream");
    }

    @Test
    void version1RunsToTheEndOfTheData() throws Exception {
        byte[] data = sample();
        byte[] v1 = compress(1, 0, data);

        assertThat(OffloadBundle.read(buffer(v1), ALL).entries()).hasSize(4);
        assertThatThrownBy(() -> OffloadBundle.read(buffer(concat(v1, new byte[8])), ALL))
                .isInstanceOf(OffloadBundleFormatException.class)
                .hasMessageContaining("follow the end of the zlib stream");
    }

    // -------------------------------------------------------------------------------------------------------
    // Fuzz

    /** Random corruption and truncation may only ever give a result or a MalformedBinaryException. */
    @Test
    void corruptionNeverEscapesAsAnUncheckedException() {
        byte[] data = sample();
        List<byte[]> valid = List.of(
                data,
                compress(2, 0, data),
                compress(2, 1, data),
                ccob(3, 1, zstdRaw(data, false, false), data.length, md5(data)),
                compress(1, 0, data),
                concat(data, new byte[4096 - data.length], compress(2, 1, bundle(8, part(GFX90A, 20, 3)))));
        long[] interesting = {0, -1, Long.MAX_VALUE, Long.MIN_VALUE, 1L << 31, 0xffff_ffffL, 24, 4096};
        Random random = new Random(42);
        for (int i = 0; i < 6_000; i++) {
            byte[] base = valid.get(i % valid.size());
            byte[] mutated = Arrays.copyOf(base, i % 5 == 0 ? random.nextInt(base.length + 1) : base.length);
            int flips = 1 + random.nextInt(4);
            for (int f = 0; f < flips && mutated.length > 8; f++) {
                int at = random.nextInt(i % 2 == 0 ? Math.min(mutated.length, 0x120) : mutated.length);
                if (random.nextInt(4) == 0 && at + 8 <= mutated.length) {
                    le(buffer(mutated)).putLong(at, interesting[random.nextInt(interesting.length)]);
                } else {
                    mutated[at] = (byte) random.nextInt(256);
                }
            }
            try {
                OffloadBundle.readAll(buffer(mutated), 1 << 16);
                OffloadBundle.read(buffer(mutated), 100);
            } catch (MalformedBinaryException expected) {
                assertThat(expected.getMessage()).isNotBlank();
            } catch (IOException | RuntimeException | Error e) {
                fail("iteration " + i + " threw " + e + " for " + HexFormat.of().formatHex(mutated), e);
            }
        }
    }
}
