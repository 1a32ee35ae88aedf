package org.archpool.worker.inspect;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.Charset;

/**
 * The small helpers the binary readers of this package share for reading a {@link ByteBuffer}: views, prefix
 * tests, range checks, strings, and hex numbers for messages. Every method reads by absolute index and changes no
 * buffer's position, limit or byte order.
 */
final class Bytes {

    /** The largest byte array Java can allocate, with some margin: the most bytes one section or entry may hold. */
    static final long MAX_ARRAY = Integer.MAX_VALUE - 8;

    private Bytes() {
    }

    /**
     * @param data bytes, from their position to their limit
     * @return a read-only little-endian view of those bytes, positioned at 0
     */
    static ByteBuffer view(ByteBuffer data) {
        return data.slice().asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * @param data   bytes
     * @param at     an absolute index into them
     * @param prefix the bytes to look for
     * @return whether the bytes from {@code at} start with {@code prefix}; false when {@code at} is negative or
     *         fewer bytes are left before the limit
     */
    static boolean startsWith(ByteBuffer data, int at, byte[] prefix) {
        if (at < 0 || data.limit() - at < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (data.get(at + i) != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param data  bytes, from their position
     * @param value a magic number
     * @return whether the bytes from the position start with {@code value}, read in the buffer's byte order
     */
    static boolean startsWithInt(ByteBuffer data, int value) {
        return data.remaining() >= Integer.BYTES && data.getInt(data.position()) == value;
    }

    /**
     * @param data bytes
     * @param from an absolute index into them
     * @return the index of the first non-zero byte at or after {@code from}, or the limit when there is none
     */
    static int skipZeros(ByteBuffer data, int from) {
        int pos = from;
        while (pos < data.limit() && data.get(pos) == 0) {
            pos++;
        }
        return pos;
    }

    /**
     * @param offset where a range starts, as read from a header (maybe negative: an unsigned field over 2^63)
     * @param length how long it is, likewise
     * @param size   the size of what it must lie in
     * @return whether the range lies within {@code 0..size}; computed without overflow
     */
    static boolean inBounds(long offset, long length, long size) {
        return offset >= 0 && length >= 0 && offset <= size && length <= size - offset;
    }

    /**
     * @param data    bytes
     * @param offset  an absolute index into them
     * @param length  how many bytes to decode; they must lie before the limit
     * @param charset how to decode them; malformed input is replaced, never an error
     * @return the decoded string
     */
    static String string(ByteBuffer data, int offset, int length, Charset charset) {
        byte[] bytes = new byte[length];
        data.get(offset, bytes);
        return new String(bytes, charset);
    }

    /**
     * @param value a number
     * @return it in hex with a {@code 0x} prefix, e.g. {@code 0x1000}; negative values as their 64-bit two's
     *         complement
     */
    static String hex(long value) {
        return "0x" + Long.toHexString(value);
    }

    /**
     * @param value a 32-bit number, such as a magic number
     * @return it in hex with a {@code 0x} prefix, read as unsigned, e.g. {@code 0xba55ed50}
     */
    static String hex(int value) {
        return "0x" + Integer.toHexString(value);
    }
}
