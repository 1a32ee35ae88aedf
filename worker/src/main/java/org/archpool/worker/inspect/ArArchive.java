package org.archpool.worker.inspect;

import static org.archpool.protocol.UntrustedText.quote;
import static org.archpool.worker.inspect.Bytes.startsWith;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Reads the members of a Unix {@code ar} archive, the format of static libraries ({@code .a}), so that the objects
 * inside can be inspected like any other ELF file. Pure Java, zero-copy: members are views of the archive's bytes.
 *
 * <h2>Layout</h2>
 * The archive starts with the 8 bytes {@code !<arch>\n}. Members follow, each a 60-byte ASCII header and then its
 * data, padded with one byte ({@code \n}) to an even offset; the padding of the last member may be missing. The
 * header:
 * <pre>
 *   +0  16 bytes name, padded with spaces
 *   +16 12 bytes modification time, decimal      (not read)
 *   +28  6 bytes owner id, decimal                (not read)
 *   +34  6 bytes group id, decimal                (not read)
 *   +40  8 bytes mode, octal                      (not read)
 *   +48 10 bytes size of the data, decimal, padded with spaces
 *   +58  2 bytes "`\n"
 * </pre>
 * Names come in several dialects, all understood:
 * <ul>
 *   <li>GNU (binutils {@code ar}, {@code llvm-ar}): {@code name/}, the slash ending the name so that it may
 *       contain spaces; names over 15 bytes are stored in a member named {@code //} (each name ended by
 *       {@code /\n}) and referred to as {@code /offset}, the decimal offset into that table;</li>
 *   <li>BSD and macOS: names up to 16 bytes plainly; longer ones as {@code #1/length}, the name being the first
 *       {@code length} bytes of the data (NUL-padded), which then belong to the name and not to the member;</li>
 *   <li>symbol tables are skipped: GNU {@code /} and {@code /SYM64/}, Windows {@code /<ECSYMBOLS>/}, and BSD
 *       {@code __.SYMDEF}, {@code __.SYMDEF SORTED}, {@code __.SYMDEF_64} and the like.</li>
 * </ul>
 * Thin archives ({@code !<thin>\n}, {@code ar T}) only refer to their members' files, so they are rejected with a
 * message that says so; AIX big archives are not supported either.
 *
 * <p>Every size is checked against the archive's length before it is used, and malformed archives are rejected
 * with an {@link ArArchiveFormatException} that names the offset; no unchecked exception escapes for malformed
 * input. Names are decoded as UTF-8.
 */
public final class ArArchive {

    /** The magic string of a regular archive. */
    public static final String MAGIC = "!<arch>\n";
    /** The magic string of a thin archive, which is recognised but not read. */
    public static final String THIN_MAGIC = "!<thin>\n";

    private static final byte[] MAGIC_BYTES = MAGIC.getBytes(StandardCharsets.US_ASCII);
    private static final byte[] THIN_MAGIC_BYTES = THIN_MAGIC.getBytes(StandardCharsets.US_ASCII);
    private static final int HEADER_SIZE = 60;
    private static final int NAME_SIZE = 16;
    private static final int SIZE_OFFSET = 48;
    private static final int SIZE_SIZE = 10;
    private static final int TERMINATOR_OFFSET = 58;
    private static final String BSD_LONG_NAME = "#1/";

    private ArArchive() {
    }

    /**
     * One file stored in an archive.
     *
     * @param name the member's file name, e.g. {@code k.o}, with the dialect's terminators and padding removed
     * @param data the member's bytes: a read-only little-endian view of the archive, positioned at 0
     */
    public record Member(String name, ByteBuffer data) {

        /**
         * Checks that neither component is null and stores a read-only view of the data.
         *
         * @param name the member's name
         * @param data its bytes
         */
        public Member {
            Objects.requireNonNull(name, "name");
            data = Bytes.view(data);
        }

        /** @return the member's bytes as a fresh read-only little-endian view positioned at 0 */
        @Override
        public ByteBuffer data() {
            return Bytes.view(data);
        }
    }

    /**
     * @param data bytes, from their position; neither position nor limit is changed
     * @return whether they start with the magic string of an {@code ar} archive, regular or thin (which
     *         {@link #read(ByteBuffer)} rejects with an explanation)
     */
    public static boolean hasMagic(ByteBuffer data) {
        return startsWith(data, data.position(), MAGIC_BYTES) || startsWith(data, data.position(), THIN_MAGIC_BYTES);
    }

    /**
     * Reads an archive's members in archive order, skipping symbol tables and the GNU long-name table. The buffer's
     * position, limit and byte order are not changed; members are views of it.
     *
     * @param data the archive's bytes, from the buffer's position to its limit
     * @return the members, in archive order; names may repeat, as {@code ar q} allows
     * @throws ArArchiveFormatException   if the data is not a regular {@code ar} archive or is malformed
     * @throws TooLargeToInspectException if it has more members than the inspector's budget
     */
    public static List<Member> read(ByteBuffer data) throws IOException {
        ByteBuffer d = Bytes.view(data);
        if (startsWith(d, 0, THIN_MAGIC_BYTES)) {
            throw new ArArchiveFormatException("thin archive (" + THIN_MAGIC.trim() + "): its members are not"
                    + " stored inside it but in the files it names, so it cannot be read on its own");
        }
        if (!startsWith(d, 0, MAGIC_BYTES)) {
            throw new ArArchiveFormatException("not an ar archive: it does not start with \"!<arch>\\n\"");
        }
        int end = d.limit();
        int pos = MAGIC_BYTES.length;
        ByteBuffer longNames = null;
        List<Member> members = new ArrayList<>();
        while (pos < end) {
            if (end - pos < HEADER_SIZE) {
                throw new ArArchiveFormatException("truncated member header at offset " + pos + ": " + (end - pos)
                        + " bytes left, " + HEADER_SIZE + " needed");
            }
            if (d.get(pos + TERMINATOR_OFFSET) != '`' || d.get(pos + TERMINATOR_OFFSET + 1) != '\n') {
                throw new ArArchiveFormatException("member header at offset " + pos + " does not end with \"`\\n\"");
            }
            String rawName = Bytes.string(d, pos, NAME_SIZE, StandardCharsets.ISO_8859_1);
            long size = parseSize(d, pos);
            int dataStart = pos + HEADER_SIZE;
            if (!Bytes.inBounds(dataStart, size, end)) {
                throw new ArArchiveFormatException("member " + quote(rawName.trim()) + " at offset " + pos
                        + " claims " + size + " bytes, but only " + (end - dataStart) + " are left");
            }
            int dataEnd = dataStart + (int) size;
            ByteBuffer memberData = d.slice(dataStart, (int) size);
            String name = rawName.stripTrailing();
            if (name.equals("//")) {
                longNames = memberData;
            } else if (!isSymbolTable(name)) {
                if (name.startsWith(BSD_LONG_NAME)) {
                    int nameLength = parseDecimal(name.substring(BSD_LONG_NAME.length()), pos, "BSD name length");
                    if (nameLength > size) {
                        throw new ArArchiveFormatException("member at offset " + pos + " has a BSD name of "
                                + nameLength + " bytes, longer than its " + size + " bytes of data");
                    }
                    name = stripNuls(Bytes.string(d, dataStart, nameLength, StandardCharsets.UTF_8));
                    memberData = d.slice(dataStart + nameLength, (int) size - nameLength);
                } else if (name.startsWith("/")) {
                    name = longName(longNames, name, pos);
                } else if (name.endsWith("/")) {
                    name = name.substring(0, name.length() - 1);
                }
                if (name.isEmpty()) {
                    throw new ArArchiveFormatException("member at offset " + pos + " has an empty name");
                }
                if (!isSymbolTable(name)) {
                    InspectLimits.check(members.size() + 1L, InspectLimits.MAX_ARCHIVE_MEMBERS, "members or more",
                            "the archive");
                    members.add(new Member(name, memberData));
                }
            }
            pos = dataEnd + (dataEnd % 2 == 0 || dataEnd == end ? 0 : 1);
        }
        return List.copyOf(members);
    }

    /** @return whether a name (as in the header, or a resolved BSD name) is that of a symbol table */
    private static boolean isSymbolTable(String name) {
        return name.equals("/") || name.equals("/SYM64/") || name.equals("/<ECSYMBOLS>/")
                || name.startsWith("__.SYMDEF");
    }

    /** Resolves a GNU {@code /offset} name against the long-name table. */
    private static String longName(ByteBuffer table, String name, int headerOffset) throws ArArchiveFormatException {
        String digits = name.substring(1);
        if (digits.isEmpty() || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new ArArchiveFormatException("member at offset " + headerOffset + " has an unknown special name "
                    + quote(name));
        }
        if (table == null) {
            throw new ArArchiveFormatException("member at offset " + headerOffset + " refers to long name " + name
                    + ", but no long-name table (//) precedes it");
        }
        int offset = parseDecimal(digits, headerOffset, "long name offset");
        if (offset >= table.limit()) {
            throw new ArArchiveFormatException("member at offset " + headerOffset + " refers to long name " + name
                    + ", outside the " + table.limit() + "-byte long-name table");
        }
        int nameEnd = offset;
        while (nameEnd < table.limit() && table.get(nameEnd) != '\n' && table.get(nameEnd) != 0) {
            nameEnd++;
        }
        String longName = Bytes.string(table, offset, nameEnd - offset, StandardCharsets.UTF_8);
        if (longName.endsWith("/")) {
            longName = longName.substring(0, longName.length() - 1);
        }
        if (longName.isEmpty()) {
            throw new ArArchiveFormatException("member at offset " + headerOffset + " refers to long name " + name
                    + ", which is empty");
        }
        return longName;
    }

    /** Parses the decimal size field: digits, then spaces. */
    private static long parseSize(ByteBuffer d, int headerOffset) throws ArArchiveFormatException {
        long size = 0;
        int digits = 0;
        boolean inPadding = false;
        for (int i = 0; i < SIZE_SIZE; i++) {
            int c = d.get(headerOffset + SIZE_OFFSET + i);
            if (c >= '0' && c <= '9' && !inPadding) {
                size = size * 10 + (c - '0');
                digits++;
            } else if (c == ' ' && digits > 0) {
                inPadding = true;
            } else {
                throw new ArArchiveFormatException("member header at offset " + headerOffset
                        + " has an invalid size field "
                        + quote(Bytes.string(d, headerOffset + SIZE_OFFSET, SIZE_SIZE, StandardCharsets.ISO_8859_1)));
            }
        }
        return size;
    }

    /** Parses a decimal number that must fit an int. */
    private static int parseDecimal(String digits, int headerOffset, String what) throws ArArchiveFormatException {
        if (digits.isEmpty() || digits.length() > 9 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new ArArchiveFormatException("member at offset " + headerOffset + " has an invalid " + what + " "
                    + quote(digits));
        }
        return Integer.parseInt(digits);
    }

    private static String stripNuls(String s) {
        int end = s.length();
        while (end > 0 && s.charAt(end - 1) == 0) {
            end--;
        }
        return s.substring(0, end);
    }

}
