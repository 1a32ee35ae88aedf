package org.archpool.worker.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import org.archpool.worker.inspect.ArArchive.Member;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link ArArchive} on synthetic archives; {@link ArArchiveToolchainTest} reads those GNU ar and llvm-ar make. */
class ArArchiveTest {

    static final String LONG_NAME = "a_name_longer_than_fifteen_bytes.o";

    /** Builds an archive from raw header names and data, padding each member to an even offset. */
    private static final class Archive {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Archive() {
            this(ArArchive.MAGIC);
        }

        Archive(String magic) {
            out.writeBytes(magic.getBytes(StandardCharsets.US_ASCII));
        }

        Archive member(String headerName, byte[] data) {
            return member(headerName, String.valueOf(data.length), data, true);
        }

        Archive member(String headerName, String sizeField, byte[] data, boolean pad) {
            out.writeBytes(header(headerName, sizeField));
            out.writeBytes(data);
            if (pad && out.size() % 2 != 0) {
                out.write('\n');
            }
            return this;
        }

        byte[] build() {
            return out.toByteArray();
        }
    }

    /** A 60-byte member header with the given name and size fields. */
    private static byte[] header(String name, String size) {
        String header = pad(name, 16) + pad("0", 12) + pad("0", 6) + pad("0", 6) + pad("644", 8) + pad(size, 10)
                + "`\n";
        return header.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s.substring(0, width) : s + " ".repeat(width - s.length());
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] data(int size, int seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    private static List<Member> read(byte[] archive) throws Exception {
        return ArArchive.read(ByteBuffer.wrap(archive));
    }

    /** A GNU archive like binutils writes: symbol table, long-name table, an odd-sized member, a long name. */
    private static byte[] gnuArchive() {
        byte[] longNames = ascii("x/\n" + LONG_NAME + "/\n");
        return new Archive()
                .member("/", new byte[] {0, 0, 0, 1, 0, 0, 0, 8, 'f', 0})
                .member("//", longNames)
                .member("a.o/", data(101, 1))
                .member("/3", data(64, 2))
                .member("with space.o/", data(2, 3))
                .build();
    }

    // -------------------------------------------------------------------------------------------------------

    @Test
    void readsAGnuArchiveWithLongNamesAndOddSizes() throws Exception {
        List<Member> members = read(gnuArchive());

        assertThat(members).extracting(Member::name).containsExactly("a.o", LONG_NAME, "with space.o");
        assertThat(bytes(members.get(0).data())).isEqualTo(data(101, 1));
        assertThat(bytes(members.get(1).data())).isEqualTo(data(64, 2));
        assertThat(bytes(members.get(2).data())).isEqualTo(data(2, 3));
        assertThat(members.get(0).data().isReadOnly()).isTrue();
        assertThat(members.get(0).data().order()).isEqualTo(ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void readsABsdArchiveWithNamesInTheDataAndSkipsItsSymbolTable() throws Exception {
        byte[] symdefName = Arrays.copyOf(ascii("__.SYMDEF SORTED"), 20); // NUL-padded, as llvm-ar writes it
        byte[] longName = Arrays.copyOf(ascii(LONG_NAME), 36);
        byte[] archive = new Archive()
                .member("#1/20", concat(symdefName, new byte[12]))
                .member("short.o", data(33, 4))
                .member("#1/36", concat(longName, data(7, 5)))
                .member("__.SYMDEF_64", new byte[8])
                .build();

        List<Member> members = read(archive);

        assertThat(members).extracting(Member::name).containsExactly("short.o", LONG_NAME);
        assertThat(bytes(members.get(0).data())).isEqualTo(data(33, 4));
        assertThat(bytes(members.get(1).data())).isEqualTo(data(7, 5));
    }

    @Test
    void skipsEverySymbolTable() throws Exception {
        byte[] archive = new Archive()
                .member("/", new byte[4])
                .member("/SYM64/", new byte[8])
                .member("/<ECSYMBOLS>/", new byte[4])
                .member("__.SYMDEF", new byte[4])
                .member("k.o/", data(3, 6))
                .build();

        assertThat(read(archive)).extracting(Member::name).containsExactly("k.o");
    }

    @Test
    void readsEmptyArchivesAndMembersAndAMissingFinalPadding() throws Exception {
        byte[] noFinalPadding = new Archive().member("a.o/", "3", data(3, 7), false).build();

        assertThat(read(ascii(ArArchive.MAGIC))).isEmpty();
        assertThat(read(new Archive().member("empty/", new byte[0]).build()))
                .singleElement().satisfies(m -> assertThat(m.data().remaining()).isZero());
        assertThat(read(noFinalPadding)).singleElement().satisfies(m -> assertThat(bytes(m.data())).hasSize(3));
        assertThat(read(new Archive().member("dup.o/", data(2, 1)).member("dup.o/", data(2, 2)).build()))
                .extracting(Member::name).containsExactly("dup.o", "dup.o");
    }

    @Test
    void hasMagicAndHonoursThePosition() throws Exception {
        byte[] archive = gnuArchive();
        ByteBuffer framed = ByteBuffer.wrap(concat(new byte[] {1, 2}, archive)).position(2);

        assertThat(ArArchive.hasMagic(framed)).isTrue();
        assertThat(ArArchive.hasMagic(ByteBuffer.wrap(ascii(ArArchive.THIN_MAGIC)))).isTrue();
        assertThat(ArArchive.hasMagic(ByteBuffer.wrap(ascii("!<arch")))).isFalse();
        assertThat(ArArchive.read(framed)).hasSize(3);
        assertThat(framed.position()).isEqualTo(2);
    }

    @Test
    void rejectsThinArchivesWithAClearMessage() {
        byte[] thin = new Archive(ArArchive.THIN_MAGIC).member("/", new byte[4]).member("k.o/", "1000", new byte[0],
                false).build();

        assertThatThrownBy(() -> read(thin))
                .isInstanceOf(ArArchiveFormatException.class)
                .hasMessageContaining("thin archive")
                .hasMessageContaining("members are not stored inside it");
    }

    /** Archives with one thing wrong in a header, and what the error says. */
    static Stream<Arguments> malformedHeaders() {
        return Stream.of(
                Arguments.of("not an ar archive", ascii("!<arcx>\n")),
                Arguments.of("truncated member header at offset 8", concat(ascii(ArArchive.MAGIC), new byte[59])),
                Arguments.of("does not end with", concat(ascii(ArArchive.MAGIC),
                        Arrays.copyOf(header("a.o/", "0"), 58), ascii("``"))),
                Arguments.of("no long-name table (//) precedes it", new Archive().member("/0", new byte[2]).build()),
                Arguments.of("outside the 4-byte long-name table",
                        new Archive().member("//", ascii("a/\n\n")).member("/4", new byte[2]).build()),
                Arguments.of("which is empty",
                        new Archive().member("//", ascii("/\n")).member("/0", new byte[2]).build()),
                Arguments.of("unknown special name \"/x\"", new Archive().member("/x", new byte[2]).build()),
                Arguments.of("BSD name of 9 bytes, longer than its 4",
                        new Archive().member("#1/9", new byte[4]).build()),
                Arguments.of("invalid BSD name length \"abc\"", new Archive().member("#1/abc", new byte[4]).build()),
                Arguments.of("member at offset 68 has an empty name",
                        new Archive().member("/", new byte[0]).member("", new byte[2]).build()),
                Arguments.of("member at offset 8 has an empty name",
                        new Archive().member("#1/4", new byte[4]).build()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedHeaders")
    void rejectsMalformedHeaders(String message, byte[] archive) {
        assertThatThrownBy(() -> read(archive))
                .isInstanceOf(ArArchiveFormatException.class)
                .hasMessageContaining(message);
    }

    /** A member {@code a.o} of {@code dataLength} bytes, padded or not, whose header's size field is wrong. */
    @ParameterizedTest(name = "size field \"{0}\" for {1} bytes: {3}")
    @CsvSource(delimiter = '|', quoteCharacter = '\'', value = {
        "x          | 0 | true  | invalid size field \"x",
        "' 1'       | 1 | true  | invalid size field \" 1",
        "1 2        | 1 | true  | invalid size field \"1 2",
        "-1         | 0 | true  | invalid size field \"-1",
        "''         | 0 | true  | 'invalid size field \"          \"'",
        "9999999999 | 4 | true  | claims 9999999999 bytes",
        "5          | 4 | false | claims 5 bytes, but only 4",
    })
    void rejectsAWrongSizeField(String sizeField, int dataLength, boolean pad, String message) {
        byte[] archive = new Archive().member("a.o/", sizeField, new byte[dataLength], pad).build();

        assertThatThrownBy(() -> read(archive))
                .isInstanceOf(ArArchiveFormatException.class)
                .hasMessageContaining(message);
    }

    /**
     * Every prefix of a valid archive is either a valid archive of the first members (cut at a member boundary) or
     * rejected; random corruption only ever gives a result or an ArArchiveFormatException.
     */
    @Test
    void truncationAndCorruptionNeverEscapeAsUncheckedExceptions() throws Exception {
        byte[] archive = gnuArchive();
        List<String> names = read(archive).stream().map(Member::name).toList();
        for (int length = 0; length <= archive.length; length++) {
            try {
                List<Member> members = read(Arrays.copyOf(archive, length));
                assertThat(members.size()).isLessThanOrEqualTo(names.size());
                assertThat(members).extracting(Member::name).isEqualTo(names.subList(0, members.size()));
            } catch (ArArchiveFormatException expected) {
                assertThat(expected.getMessage()).isNotBlank();
            }
        }
        Random random = new Random(7);
        for (int i = 0; i < 5_000; i++) {
            byte[] mutated = Arrays.copyOf(archive, i % 4 == 0 ? random.nextInt(archive.length + 1) : archive.length);
            for (int f = 0; f < 1 + random.nextInt(3) && mutated.length > 0; f++) {
                int at = random.nextInt(mutated.length);
                mutated[at] = random.nextBoolean() ? (byte) random.nextInt(256) : (byte) "0123456789 /#`\n".charAt(
                        random.nextInt(15));
            }
            try {
                read(mutated);
            } catch (ArArchiveFormatException expected) {
                assertThat(expected.getMessage()).isNotBlank();
            } catch (RuntimeException | Error e) {
                fail("iteration " + i + " threw " + e + " for " + HexFormat.of().formatHex(mutated), e);
            }
        }
    }
}
