package org.archpool.worker.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link MessagePack} on hand-written documents, one per format family, and on broken and hostile ones. */
class MessagePackTest {

    // --- integers ---------------------------------------------------------------------------------------------

    @ParameterizedTest(name = "{0} is {1}")
    @CsvSource({
        // positive and negative fixint
        "00, 0",
        "2a, 42",
        "7f, 127",
        "ff, -1",
        "e0, -32",
        // uint 8, 16, 32 and 64
        "cc ff, 255",
        "cd ff fe, 65534",
        "ce ff ff ff fd, 4294967293",
        "cf 7f ff ff ff ff ff ff ff, 9223372036854775807",
        "cf 00 00 00 01 00 00 00 00, 4294967296",
        // int 8, 16, 32 and 64
        "d0 80, -128",
        "d0 7f, 127",
        "d1 80 00, -32768",
        "d2 80 00 00 00, -2147483648",
        "d3 80 00 00 00 00 00 00 00, -9223372036854775808",
        "d3 ff ff ff ff ff ff ff fe, -2",
    })
    void integers(String hex, long value) throws Exception {
        assertThat(decode(HexFormat.ofDelimiter(" ").parseHex(hex))).isEqualTo(value);
    }

    @Test
    void uint64AboveLongMaxIsRejected() {
        assertThatThrownBy(() -> decode(0xcf, 0x80, 0, 0, 0, 0, 0, 0, 0))
                .isInstanceOf(AmdCodeObjectFormatException.class)
                .hasMessageContaining("9223372036854775808").hasMessageContaining("offset 0");
    }

    // --- floats, nil, booleans --------------------------------------------------------------------------------

    @Test
    void floats() throws Exception {
        assertThat(decode(0xca, 0x3f, 0xc0, 0, 0)).isEqualTo(1.5d);
        assertThat(decode(0xca, 0xc0, 0x49, 0x0f, 0xdb)).isEqualTo((double) (float) -Math.PI);
        assertThat(decode(0xcb, 0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18)).isEqualTo(Math.PI);
    }

    @Test
    void nilAndBooleans() throws Exception {
        assertThat(decode(0xc0)).isNull();
        assertThat(decode(0xc2)).isEqualTo(false);
        assertThat(decode(0xc3)).isEqualTo(true);
    }

    // --- strings and binary -----------------------------------------------------------------------------------

    @Test
    void strings() throws Exception {
        assertThat(decode(0xa0)).isEqualTo("");
        assertThat(decode(0xa3, 'a', 'b', 'c')).isEqualTo("abc");
        String s31 = "x".repeat(31);
        assertThat(decode(concat(bytes(0xbf), ascii(s31)))).isEqualTo(s31);
        assertThat(decode(concat(bytes(0xd9, 5), ascii("hello")))).isEqualTo("hello");
        String s300 = "y".repeat(300);
        assertThat(decode(concat(bytes(0xda, 0x01, 0x2c), ascii(s300)))).isEqualTo(s300);
        String s70000 = "z".repeat(70000);
        assertThat(decode(concat(bytes(0xdb, 0, 0x01, 0x11, 0x70), ascii(s70000)))).isEqualTo(s70000);
        assertThat(decode(0xa2, 0xc3, 0xa9)).isEqualTo("\u00e9"); // é as UTF-8
    }

    @Test
    void invalidUtf8IsRejected() {
        assertThatThrownBy(() -> decode(0xa2, 0xc3, 0x28))
                .isInstanceOf(AmdCodeObjectFormatException.class).hasMessageContaining("UTF-8");
    }

    @Test
    void binary() throws Exception {
        assertThat((byte[]) decode(0xc4, 0)).isEmpty();
        assertThat((byte[]) decode(0xc4, 3, 1, 2, 3)).containsExactly(1, 2, 3);
        byte[] b300 = new byte[300];
        Arrays.fill(b300, (byte) 7);
        assertThat((byte[]) decode(concat(bytes(0xc5, 0x01, 0x2c), b300))).isEqualTo(b300);
        assertThat((byte[]) decode(concat(bytes(0xc6, 0, 0, 0x01, 0x2c), b300))).isEqualTo(b300);
    }

    // --- arrays and maps --------------------------------------------------------------------------------------

    @Test
    void arrays() throws Exception {
        assertThat(decode(0x90)).isEqualTo(List.of());
        assertThat(decode(0x93, 1, 2, 0xa1, 'c')).isEqualTo(List.of(1L, 2L, "c"));
        assertThat(decode(0xdc, 0, 2, 0xc3, 0xc2)).isEqualTo(List.of(true, false));
        assertThat(decode(0xdd, 0, 0, 0, 2, 0x91, 0x01, 0x90)).isEqualTo(List.of(List.of(1L), List.of()));
        assertThat(decode(0x92, 0xc0, 0x01)).asList().containsExactly(null, 1L);
    }

    @Test
    void fifteenElementFixarrayAndLongerArray16() throws Exception {
        byte[] fifteen = new byte[16];
        fifteen[0] = (byte) 0x9f;
        assertThat(decode(fifteen)).asList().hasSize(15).containsOnly(0L);
        byte[] many = new byte[3 + 1000];
        many[0] = (byte) 0xdc;
        many[1] = (byte) 0x03;
        many[2] = (byte) 0xe8;
        assertThat((List<?>) decode(many)).hasSize(1000);
    }

    @Test
    void maps() throws Exception {
        assertThat(decode(0x80)).isEqualTo(Map.of());
        assertThat(decode(0x82, 0xa1, 'a', 0x01, 0xa1, 'b', 0xc0)).isEqualTo(mapOf("a", 1L, "b", null));
        assertThat(decode(0xde, 0, 1, 0xa1, 'k', 0x91, 0xc3)).isEqualTo(Map.of("k", List.of(true)));
        assertThat(decode(0xdf, 0, 0, 0, 1, 0xa1, 'k', 0x81, 0xa1, 'n', 0xff))
                .isEqualTo(Map.of("k", Map.of("n", -1L)));
    }

    @Test
    void mapsKeepDocumentOrderAndCollectionsAreUnmodifiable() throws Exception {
        @SuppressWarnings("unchecked")
        Map<String, Object> map = (Map<String, Object>) decode(0x83, 0xa1, 'z', 1, 0xa1, 'a', 2, 0xa1, 'm', 0x90);
        assertThat(map.keySet()).containsExactly("z", "a", "m");
        assertThatThrownBy(() -> map.put("x", 1L)).isInstanceOf(UnsupportedOperationException.class);
        @SuppressWarnings("unchecked")
        List<Object> list = (List<Object>) map.get("m");
        assertThatThrownBy(() -> list.add(1L)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void nonStringKeysAreRejected() {
        assertThatThrownBy(() -> decode(0x81, 0x01, 0x02))
                .isInstanceOf(AmdCodeObjectFormatException.class)
                .hasMessageContaining("map key at offset 1").hasMessageContaining("not a string");
        assertThatThrownBy(() -> decode(0x81, 0xc0, 0x02)).isInstanceOf(AmdCodeObjectFormatException.class)
                .hasMessageContaining("nil");
        assertThatThrownBy(() -> decode(0x81, 0x90, 0x02)).isInstanceOf(AmdCodeObjectFormatException.class)
                .hasMessageContaining("array");
        assertThatThrownBy(() -> decode(0x81, 0xc4, 0x01, 0x61, 0x02))
                .isInstanceOf(AmdCodeObjectFormatException.class).hasMessageContaining("binary");
        assertThatThrownBy(() -> decode(0x81, 0x80, 0x02)).isInstanceOf(AmdCodeObjectFormatException.class);
    }

    @Test
    void duplicateKeysAreRejected() {
        assertThatThrownBy(() -> decode(0x82, 0xa1, 'a', 1, 0xa1, 'a', 2))
                .isInstanceOf(AmdCodeObjectFormatException.class).hasMessageContaining("\"a\" twice");
    }

    // --- rejected formats -------------------------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(ints = {0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xc7, 0xc8, 0xc9})
    void extensionTypesAreRejected(int type) {
        byte[] doc = new byte[32];
        doc[0] = (byte) type;
        assertThatThrownBy(() -> decode(doc))
                .isInstanceOf(AmdCodeObjectFormatException.class).hasMessageContaining("extension type");
    }

    @Test
    void neverUsedTypeByteIsRejected() {
        assertThatThrownBy(() -> decode(0xc1)).isInstanceOf(AmdCodeObjectFormatException.class)
                .hasMessageContaining("0xc1");
    }

    @Test
    void emptyInputAndTrailingBytesAreRejected() {
        assertThatThrownBy(() -> decode(new byte[0])).isInstanceOf(AmdCodeObjectFormatException.class)
                .hasMessageContaining("truncated");
        assertThatThrownBy(() -> decode(0x01, 0x02)).isInstanceOf(AmdCodeObjectFormatException.class)
                .hasMessageContaining("followed by 1 more bytes");
    }

    @Test
    void decodesFromTheBufferPositionWithoutMovingIt() throws Exception {
        ByteBuffer buffer = ByteBuffer.wrap(bytes(0xff, 0xff, 0x92, 0x01, 0x02));
        buffer.position(2);

        assertThat(MessagePack.decode(buffer)).isEqualTo(List.of(1L, 2L));
        assertThat(buffer.position()).isEqualTo(2);
    }

    // --- truncation and hostile sizes -------------------------------------------------------------------------

    /** A document that uses every format family once. */
    static byte[] everyFamily() {
        return concat(bytes(0xdf, 0, 0, 0, 4),
                bytes(0xa4), ascii("ints"),
                bytes(0xdd, 0, 0, 0, 10, 0x05, 0xfb, 0xcc, 200, 0xcd, 1, 0, 0xce, 0, 1, 0, 0,
                        0xcf, 0, 0, 0, 1, 0, 0, 0, 0, 0xd0, 0x9c, 0xd1, 0xfc, 0x18, 0xd2, 0xff, 0xfe, 0x79, 0x60,
                        0xd3, 0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 0),
                bytes(0xd9, 6), ascii("others"),
                bytes(0xdc, 0, 9, 0xc0, 0xc3, 0xc2, 0xca, 0x3f, 0xc0, 0, 0,
                        0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0,
                        0xc4, 1, 9, 0xc5, 0, 1, 9, 0xc6, 0, 0, 0, 1, 9,
                        0x80),
                bytes(0xda, 0, 4), ascii("strs"),
                bytes(0x93, 0xa1, 'a', 0xd9, 1, 'b', 0xdb, 0, 0, 0, 1, 'c'),
                bytes(0xa4), ascii("maps"),
                bytes(0xde, 0, 1, 0xa1, 'k', 0x81, 0xa1, 'j', 0x90));
    }

    @Test
    void everyFamilyDocumentDecodes() throws Exception {
        @SuppressWarnings("unchecked")
        Map<String, Object> doc = (Map<String, Object>) decode(everyFamily());

        assertThat(doc.keySet()).containsExactly("ints", "others", "strs", "maps");
        assertThat(doc.get("ints")).isEqualTo(List.of(5L, -5L, 200L, 256L, 65536L, 1L << 32, -100L, -1000L,
                -100000L, -(1L << 33)));
        @SuppressWarnings("unchecked")
        List<Object> others = (List<Object>) doc.get("others");
        assertThat(others.subList(0, 5)).containsExactly(null, true, false, 1.5d, 1.5d);
        assertThat(others.subList(5, 8)).allSatisfy(b -> assertThat((byte[]) b).containsExactly(9));
        assertThat(others.get(8)).isEqualTo(Map.of());
        assertThat(doc.get("strs")).isEqualTo(List.of("a", "b", "c"));
        assertThat(doc.get("maps")).isEqualTo(Map.of("k", Map.of("j", List.of())));
    }

    @Test
    void truncationAtEveryByteIsRejected() {
        byte[] doc = everyFamily();
        for (int length = 0; length < doc.length; length++) {
            byte[] prefix = Arrays.copyOf(doc, length);
            int at = length;
            assertThatThrownBy(() -> decode(prefix)).as("prefix of %d bytes", at)
                    .isInstanceOf(AmdCodeObjectFormatException.class);
        }
    }

    @Test
    void hugeDeclaredLengthsFailBeforeAllocating() {
        // 2^31 elements declared, 5 bytes of data
        assertThatThrownBy(() -> decode(0xdd, 0x80, 0, 0, 0, 1, 2, 3, 4, 5))
                .isInstanceOf(AmdCodeObjectFormatException.class)
                .hasMessageContaining("2147483648 elements").hasMessageContaining("5 bytes follow");
        assertThatThrownBy(() -> decode(0xdd, 0xff, 0xff, 0xff, 0xff))
                .isInstanceOf(AmdCodeObjectFormatException.class);
        assertThatThrownBy(() -> decode(0xdf, 0xff, 0xff, 0xff, 0xff, 0xa1, 'a', 1))
                .isInstanceOf(AmdCodeObjectFormatException.class).hasMessageContaining("entries");
        assertThatThrownBy(() -> decode(0xdb, 0xff, 0xff, 0xff, 0xff, 'a'))
                .isInstanceOf(AmdCodeObjectFormatException.class).hasMessageContaining("4294967295 bytes needed");
        assertThatThrownBy(() -> decode(0xc6, 0xff, 0xff, 0xff, 0xf0, 1))
                .isInstanceOf(AmdCodeObjectFormatException.class).hasMessageContaining("binary");
        assertThatThrownBy(() -> decode(0xdc, 0xff, 0xff, 0x01))
                .isInstanceOf(AmdCodeObjectFormatException.class);
        assertThatThrownBy(() -> decode(0xde, 0x00, 0x02, 0xa1, 'a', 1))
                .isInstanceOf(AmdCodeObjectFormatException.class);
    }

    @Test
    void nestingUpToTheLimitIsAccepted() throws Exception {
        byte[] doc = new byte[MessagePack.MAX_DEPTH];
        Arrays.fill(doc, (byte) 0x91); // [[[...]]] with the innermost holding one element...
        doc[doc.length - 1] = (byte) 0x90; // ...an empty array: MAX_DEPTH arrays in all

        Object value = decode(doc);

        for (int i = 1; i < MessagePack.MAX_DEPTH; i++) {
            assertThat(value).isInstanceOf(List.class);
            value = ((List<?>) value).get(0);
        }
        assertThat(value).isEqualTo(List.of());
    }

    @Test
    void depthBombIsRejected() {
        byte[] oneTooDeep = new byte[MessagePack.MAX_DEPTH + 1];
        Arrays.fill(oneTooDeep, (byte) 0x91);
        oneTooDeep[oneTooDeep.length - 1] = (byte) 0x90;
        assertThatThrownBy(() -> decode(oneTooDeep)).isInstanceOf(AmdCodeObjectFormatException.class)
                .hasMessageContaining("nested more than 64");

        byte[] bomb = new byte[1_000_000];
        Arrays.fill(bomb, (byte) 0x91);
        assertThatThrownBy(() -> decode(bomb)).isInstanceOf(AmdCodeObjectFormatException.class)
                .hasMessageContaining("nested");

        byte[] mapBomb = new byte[300_000]; // {"": {"": {"": ...}}}
        for (int i = 0; i + 1 < mapBomb.length; i += 2) {
            mapBomb[i] = (byte) 0x81;
            mapBomb[i + 1] = (byte) 0xa0;
        }
        assertThatThrownBy(() -> decode(mapBomb)).isInstanceOf(AmdCodeObjectFormatException.class)
                .hasMessageContaining("nested");
    }

    @Test
    void randomBytesOnlyEverGiveTheFormatException() throws IOException {
        Random random = new Random(20240611);
        byte[] valid = everyFamily();
        for (int i = 0; i < 20_000; i++) {
            byte[] doc;
            if (i % 2 == 0) {
                doc = new byte[random.nextInt(40)];
                random.nextBytes(doc);
            } else {
                doc = valid.clone();
                for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
                    doc[random.nextInt(doc.length)] = (byte) random.nextInt(256);
                }
            }
            try {
                MessagePack.decode(ByteBuffer.wrap(doc));
            } catch (AmdCodeObjectFormatException expected) {
                assertThat(expected.getMessage()).isNotBlank();
            } catch (RuntimeException e) {
                fail("unchecked exception for " + Arrays.toString(doc), e);
            }
        }
    }

    @Test
    void testEncoderRoundTrips() throws Exception {
        Map<String, Object> doc = mapOf("a", List.of(1L, -1L, 300L, -300L, 1L << 40, "s".repeat(40), true),
                "b", mapOf("nil", null, "d", 2.5d), "c", "x".repeat(70_000));

        assertThat(decode(pack(doc))).isEqualTo(doc);
    }

    // --- helpers, also used by AmdCodeObjectReaderTest --------------------------------------------------------

    static Object decode(int... bytes) throws IOException {
        return decode(bytes(bytes));
    }

    static Object decode(byte[] bytes) throws IOException {
        return MessagePack.decode(ByteBuffer.wrap(bytes));
    }

    static byte[] bytes(int... values) {
        byte[] result = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            result[i] = (byte) values[i];
        }
        return result;
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    /** A map that keeps insertion order and allows null values; arguments are key, value, key, value, ... */
    static Map<String, Object> mapOf(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    /**
     * Encodes maps (string keys), lists, strings, integers, booleans, doubles, byte arrays and null as MessagePack,
     * in the smallest formats, as LLVM's msgpack writer does.
     */
    static byte[] pack(Object value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        write(out, value);
        return out.toByteArray();
    }

    private static void write(ByteArrayOutputStream out, Object value) {
        if (value == null) {
            out.write(0xc0);
        } else if (value instanceof Boolean b) {
            out.write(b ? 0xc3 : 0xc2);
        } else if (value instanceof Integer || value instanceof Long) {
            long v = ((Number) value).longValue();
            if (v >= 0 && v <= 0x7f || v < 0 && v >= -32) {
                out.write((int) v);
            } else if (v >= 0) {
                out.write(0xcf);
                writeBig(out, v, 8);
            } else {
                out.write(0xd3);
                writeBig(out, v, 8);
            }
        } else if (value instanceof Double d) {
            out.write(0xcb);
            writeBig(out, Double.doubleToLongBits(d), 8);
        } else if (value instanceof String s) {
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            header(out, utf8.length, 0xa0, 31, 0xd9, 0xda, 0xdb);
            out.writeBytes(utf8);
        } else if (value instanceof byte[] b) {
            header(out, b.length, -1, -1, 0xc4, 0xc5, 0xc6);
            out.writeBytes(b);
        } else if (value instanceof List<?> list) {
            header(out, list.size(), 0x90, 15, -1, 0xdc, 0xdd);
            list.forEach(e -> write(out, e));
        } else if (value instanceof Map<?, ?> map) {
            header(out, map.size(), 0x80, 15, -1, 0xde, 0xdf);
            map.forEach((k, v) -> {
                write(out, k);
                write(out, v);
            });
        } else {
            throw new IllegalArgumentException("cannot pack " + value.getClass());
        }
    }

    private static void header(ByteArrayOutputStream out, int length, int fix, int fixMax, int t8, int t16,
            int t32) {
        if (fix >= 0 && length <= fixMax) {
            out.write(fix | length);
        } else if (t8 >= 0 && length <= 0xff) {
            out.write(t8);
            out.write(length);
        } else if (length <= 0xffff) {
            out.write(t16);
            writeBig(out, length, 2);
        } else {
            out.write(t32);
            writeBig(out, length, 4);
        }
    }

    private static void writeBig(ByteArrayOutputStream out, long value, int size) {
        for (int i = size - 1; i >= 0; i--) {
            out.write((int) (value >>> (8 * i)));
        }
    }
}
