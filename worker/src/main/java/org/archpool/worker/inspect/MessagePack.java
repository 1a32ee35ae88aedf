package org.archpool.worker.inspect;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small, strict decoder of <a href="https://github.com/msgpack/msgpack/blob/master/spec.md">MessagePack</a>, enough
 * for the metadata of AMD GPU code objects (the {@code NT_AMDGPU_METADATA} note, see {@link AmdCodeObjectReader}),
 * and safe on hostile input.
 *
 * <h2>What a document decodes to</h2>
 * <table>
 *   <caption>MessagePack formats and their Java values</caption>
 *   <tr><th>Format</th><th>Java value</th></tr>
 *   <tr><td>nil</td><td>{@code null}</td></tr>
 *   <tr><td>false, true</td><td>{@link Boolean}</td></tr>
 *   <tr><td>positive and negative fixint, uint 8/16/32/64, int 8/16/32/64</td><td>{@link Long}; a uint 64 above
 *       {@link Long#MAX_VALUE} is rejected (nothing in code object metadata comes near it)</td></tr>
 *   <tr><td>float 32, float 64</td><td>{@link Double} (float 32 widened exactly)</td></tr>
 *   <tr><td>fixstr, str 8/16/32</td><td>{@link String}; bytes that are not valid UTF-8 are rejected</td></tr>
 *   <tr><td>bin 8/16/32</td><td>{@code byte[]} (a copy)</td></tr>
 *   <tr><td>fixarray, array 16/32</td><td>an unmodifiable {@link List}{@code <Object>}</td></tr>
 *   <tr><td>fixmap, map 16/32</td><td>an unmodifiable {@link Map}{@code <String, Object>} in document order; a key
 *       that is not a string, or a key that occurs twice in one map, is rejected</td></tr>
 *   <tr><td>fixext 1/2/4/8/16, ext 8/16/32</td><td>rejected: code object metadata has no extension types</td></tr>
 *   <tr><td>0xc1 (never used)</td><td>rejected</td></tr>
 * </table>
 *
 * <h2>Limits</h2>
 * <ul>
 *   <li>Every length and element count is checked against the bytes that remain <em>before</em> anything is
 *       allocated: each element takes at least one byte, so an array of 2<sup>31</sup> elements declared in a
 *       5-byte document fails at once instead of allocating.</li>
 *   <li>Arrays and maps may nest at most {@value #MAX_DEPTH} deep (the outermost container is depth 1).</li>
 *   <li>The buffer must hold exactly one document: bytes after it are rejected.</li>
 * </ul>
 * Any violation, and any truncation, throws an {@link AmdCodeObjectFormatException} naming the offset; no unchecked
 * exception escapes for malformed input.
 */
public final class MessagePack {

    /** How deeply arrays and maps may nest; the outermost array or map is at depth 1. */
    public static final int MAX_DEPTH = 64;

    private final ByteBuffer in;
    /** Values decoded so far, against the budget. */
    private long values;
    private final int start;

    private MessagePack(ByteBuffer in) {
        this.in = in;
        this.start = in.position();
    }

    /**
     * Decodes one MessagePack document: the bytes from the buffer's position to its limit. The buffer itself is not
     * changed.
     *
     * @param document the document's bytes
     * @return the decoded value, as described in the class documentation; {@code null} for nil
     * @throws AmdCodeObjectFormatException if the bytes are not exactly one valid document within the limits above
     * @throws TooLargeToInspectException    if it holds more values than the inspector's budget
     *                                       ({@link InspectLimits#MAX_METADATA_VALUES})
     */
    public static Object decode(ByteBuffer document) throws IOException {
        ByteBuffer in = document.slice().order(ByteOrder.BIG_ENDIAN);
        MessagePack decoder = new MessagePack(in);
        Object value = decoder.value(0);
        if (in.hasRemaining()) {
            throw new AmdCodeObjectFormatException("MessagePack document ends at offset " + in.position()
                    + " but is followed by " + in.remaining() + " more bytes");
        }
        return value;
    }

    private Object value(int depth) throws IOException {
        if (++values > InspectLimits.MAX_METADATA_VALUES) {
            InspectLimits.check(values, InspectLimits.MAX_METADATA_VALUES, "values or more", "MessagePack document");
        }
        int offset = offset();
        int type = u8();
        if (type <= 0x7f) {
            return (long) type; // positive fixint
        }
        if (type >= 0xe0) {
            return (long) (byte) type; // negative fixint
        }
        if (type <= 0x8f) {
            return map(type & 0x0f, depth, offset);
        }
        if (type <= 0x9f) {
            return array(type & 0x0f, depth, offset);
        }
        if (type <= 0xbf) {
            return string(type & 0x1f, offset);
        }
        switch (type) {
            case 0xc0:
                return null;
            case 0xc2:
                return Boolean.FALSE;
            case 0xc3:
                return Boolean.TRUE;
            case 0xc4:
                return binary(u8(), offset);
            case 0xc5:
                return binary(u16(), offset);
            case 0xc6:
                return binary(u32(), offset);
            case 0xca:
                need(4, "float 32", offset);
                return (double) in.getFloat();
            case 0xcb:
                need(8, "float 64", offset);
                return in.getDouble();
            case 0xcc:
                return (long) u8();
            case 0xcd:
                return (long) u16();
            case 0xce:
                return u32();
            case 0xcf: {
                need(8, "uint 64", offset);
                long value = in.getLong();
                if (value < 0) {
                    throw new AmdCodeObjectFormatException("uint 64 at offset " + offset + " is "
                            + Long.toUnsignedString(value) + ", above the supported maximum " + Long.MAX_VALUE);
                }
                return value;
            }
            case 0xd0:
                need(1, "int 8", offset);
                return (long) in.get();
            case 0xd1:
                need(2, "int 16", offset);
                return (long) in.getShort();
            case 0xd2:
                need(4, "int 32", offset);
                return (long) in.getInt();
            case 0xd3:
                need(8, "int 64", offset);
                return in.getLong();
            case 0xd9:
                return string(u8(), offset);
            case 0xda:
                return string(u16(), offset);
            case 0xdb:
                return string(u32(), offset);
            case 0xdc:
                return array(u16(), depth, offset);
            case 0xdd:
                return array(u32(), depth, offset);
            case 0xde:
                return map(u16(), depth, offset);
            case 0xdf:
                return map(u32(), depth, offset);
            case 0xc7: case 0xc8: case 0xc9: case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8:
                throw new AmdCodeObjectFormatException(String.format(
                        "MessagePack extension type 0x%02x at offset %d is not supported", type, offset));
            default: // 0xc1
                throw new AmdCodeObjectFormatException(String.format(
                        "invalid MessagePack type byte 0x%02x at offset %d", type, offset));
        }
    }

    private List<Object> array(long count, int depth, int offset) throws IOException {
        checkDepth(depth, "array", offset);
        // every element takes at least one byte: reject impossible counts before allocating anything
        if (count > in.remaining()) {
            throw new AmdCodeObjectFormatException("array at offset " + offset + " declares " + count
                    + " elements but only " + in.remaining() + " bytes follow");
        }
        List<Object> list = new ArrayList<>((int) Math.min(count, 1024)); // grows with what is really there
        for (long i = 0; i < count; i++) {
            list.add(value(depth + 1));
        }
        return Collections.unmodifiableList(list);
    }

    private Map<String, Object> map(long count, int depth, int offset) throws IOException {
        checkDepth(depth, "map", offset);
        // every entry takes at least two bytes (a key and a value)
        if (count > in.remaining() / 2) {
            throw new AmdCodeObjectFormatException("map at offset " + offset + " declares " + count
                    + " entries but only " + in.remaining() + " bytes follow");
        }
        Map<String, Object> map = new LinkedHashMap<>();
        for (long i = 0; i < count; i++) {
            int keyOffset = offset();
            Object key = value(depth + 1);
            if (!(key instanceof String)) {
                throw new AmdCodeObjectFormatException("map key at offset " + keyOffset + " is "
                        + describe(key) + ", not a string");
            }
            Object value = value(depth + 1);
            if (map.containsKey(key)) {
                throw new AmdCodeObjectFormatException("map at offset " + offset + " has the key \"" + key
                        + "\" twice (again at offset " + keyOffset + ")");
            }
            map.put((String) key, value);
        }
        return Collections.unmodifiableMap(map);
    }

    private String string(long length, int offset) throws AmdCodeObjectFormatException {
        need(length, "string", offset);
        ByteBuffer bytes = in.slice(in.position(), (int) length);
        in.position(in.position() + (int) length);
        CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        try {
            CharBuffer chars = utf8.decode(bytes);
            return chars.toString();
        } catch (CharacterCodingException e) {
            throw new AmdCodeObjectFormatException("string at offset " + offset + " is not valid UTF-8", e);
        }
    }

    private byte[] binary(long length, int offset) throws AmdCodeObjectFormatException {
        need(length, "binary", offset);
        byte[] bytes = new byte[(int) length];
        in.get(bytes);
        return bytes;
    }

    private void checkDepth(int depth, String what, int offset) throws AmdCodeObjectFormatException {
        if (depth >= MAX_DEPTH) {
            throw new AmdCodeObjectFormatException(what + " at offset " + offset + " is nested more than "
                    + MAX_DEPTH + " levels deep");
        }
    }

    /** Checks that {@code length} more bytes follow, for a value of the given kind that started at offset. */
    private void need(long length, String what, int offset) throws AmdCodeObjectFormatException {
        if (length > in.remaining()) {
            throw new AmdCodeObjectFormatException("truncated MessagePack " + what + " at offset " + offset + ": "
                    + length + " bytes needed, " + in.remaining() + " left");
        }
    }

    private int u8() throws AmdCodeObjectFormatException {
        need(1, "value", offset());
        return Byte.toUnsignedInt(in.get());
    }

    private int u16() throws AmdCodeObjectFormatException {
        need(2, "length", offset());
        return Short.toUnsignedInt(in.getShort());
    }

    private long u32() throws AmdCodeObjectFormatException {
        need(4, "length", offset());
        return Integer.toUnsignedLong(in.getInt());
    }

    private int offset() {
        return in.position() - start;
    }

    private static String describe(Object value) {
        if (value == null) {
            return "nil";
        }
        if (value instanceof byte[]) {
            return "binary data";
        }
        if (value instanceof List) {
            return "an array";
        }
        if (value instanceof Map) {
            return "a map";
        }
        return "the " + value.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT) + " " + value;
    }
}
