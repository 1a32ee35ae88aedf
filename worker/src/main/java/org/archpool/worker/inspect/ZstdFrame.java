package org.archpool.worker.inspect;

import static org.archpool.worker.inspect.Bytes.hex;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The header of a zstd frame (RFC 8878, section 3.1.1), as far as a bounded decoder needs it, and the frame's
 * length in bytes, found by walking its block headers without decoding them. Parsing checks every field against
 * the bytes that are there.
 *
 * @param singleSegment whether the frame has a single segment: no window, so a decoder must keep all its content
 * @param windowSize    the window a decoder needs, in bytes; -1 for a single-segment frame
 * @param contentSize   the content size the frame declares, in bytes; -1 when it declares none
 * @param length        the frame's length in the compressed data, in bytes, its checksum included
 */
record ZstdFrame(boolean singleSegment, long windowSize, long contentSize, long length) {

    /** The magic number that starts every zstd frame, read little-endian. */
    static final int MAGIC = 0xFD2FB528;

    /**
     * Parses the frame that must start the data.
     *
     * @param data  compressed data, from the buffer's position to its limit; the buffer is not changed
     * @param where what holds the data, to start each message with
     * @return the frame's header fields and length
     * @throws MalformedBinaryException if the data does not start with a complete zstd frame
     */
    static ZstdFrame parse(ByteBuffer data, String where) throws MalformedBinaryException {
        ByteBuffer d = data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int limit = d.limit();
        if (limit < 5) {
            throw new MalformedBinaryException(where + ": truncated zstd data: " + limit + " bytes");
        }
        int magic = d.getInt(0);
        if (magic != MAGIC) {
            throw new MalformedBinaryException(where + ": compressed data does not start with a zstd frame"
                    + " (magic " + hex(Integer.toUnsignedLong(magic)) + ", expected " + hex((long) MAGIC) + ")");
        }
        int descriptor = d.get(4) & 0xff;
        int contentSizeFlag = descriptor >>> 6;
        boolean singleSegment = (descriptor & 0x20) != 0;
        int dictionaryIdFlag = descriptor & 3;
        int pos = 5;
        long windowSize = -1;
        if (!singleSegment) {
            if (pos >= limit) {
                throw new MalformedBinaryException(where + ": truncated zstd frame header");
            }
            int windowDescriptor = d.get(pos++) & 0xff;
            long base = 1L << (10 + (windowDescriptor >>> 3));
            windowSize = base + (base >> 3) * (windowDescriptor & 7);
        }
        pos += dictionaryIdFlag == 3 ? 4 : dictionaryIdFlag;
        int contentSizeBytes = switch (contentSizeFlag) {
            case 0 -> singleSegment ? 1 : 0;
            case 1 -> 2;
            case 2 -> 4;
            default -> 8;
        };
        if (limit - pos < contentSizeBytes) {
            throw new MalformedBinaryException(where + ": truncated zstd frame header");
        }
        long contentSize = switch (contentSizeBytes) {
            case 0 -> -1;
            case 1 -> d.get(pos) & 0xff;
            case 2 -> (d.getShort(pos) & 0xffff) + 256;
            case 4 -> Integer.toUnsignedLong(d.getInt(pos));
            default -> d.getLong(pos);
        };
        if (contentSizeBytes == 8 && contentSize < 0) {
            throw new MalformedBinaryException(where + ": zstd frame declares a content size of "
                    + Long.toUnsignedString(contentSize) + " bytes");
        }
        long end = blocksEnd(d, pos + contentSizeBytes, (descriptor & 4) != 0, where);
        return new ZstdFrame(singleSegment, windowSize, contentSize, end);
    }

    /** Walks the block headers of a frame; returns the offset just past the frame, checksum included. */
    private static long blocksEnd(ByteBuffer d, long start, boolean checksum, String where)
            throws MalformedBinaryException {
        long pos = start;
        int limit = d.limit();
        while (true) {
            if (limit - pos < 3) {
                throw new MalformedBinaryException(where + ": truncated zstd frame: no block header at offset "
                        + hex(pos) + " of the compressed data (" + limit + " bytes)");
            }
            long block = pos;
            int header = (d.get((int) pos) & 0xff) | (d.get((int) pos + 1) & 0xff) << 8
                    | (d.get((int) pos + 2) & 0xff) << 16;
            pos += 3;
            int type = (header >>> 1) & 3;
            if (type == 3) {
                throw new MalformedBinaryException(where + ": zstd block at offset " + hex(block)
                        + " of the compressed data has the reserved type 3");
            }
            pos += type == 1 ? 1 : header >>> 3; // RLE blocks store one byte; raw and compressed ones their size
            if (pos > limit) {
                throw new MalformedBinaryException(where + ": truncated zstd frame: the block at offset "
                        + hex(block) + " of the compressed data extends past its end (" + limit + " bytes)");
            }
            if ((header & 1) != 0) {
                break;
            }
        }
        if (checksum) {
            pos += 4;
            if (pos > limit) {
                throw new MalformedBinaryException(where + ": truncated zstd frame: its checksum is missing");
            }
        }
        return pos;
    }
}
