package org.archpool.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.function.BiFunction;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class UntrustedTextTest {

    static Stream<Arguments> quoted() {
        return Stream.of(
                Arguments.of("plain ASCII as it is", "gfx942:xnack-", "\"gfx942:xnack-\""),
                Arguments.of("the empty text", "", "\"\""),
                Arguments.of("a single quote as it is", "it's", "\"it's\""),
                Arguments.of("a double quote", "say \"hi\"", "\"say \\\"hi\\\"\""),
                Arguments.of("a backslash", "a\\b", "\"a\\\\b\""),
                Arguments.of("LF, CR and tab", "a\nb\rc\td", "\"a\\nb\\rc\\td\""),
                Arguments.of("NUL", "a\u0000b", "\"a\\u0000b\""),
                Arguments.of("ESC and DEL", "\u001b[31m\u007f", "\"\\u001b[31m\\u007f\""),
                Arguments.of("C1 control", "a\u0085b", "\"a\\u0085b\""),
                Arguments.of("right-to-left override", "abc\u202Etxt.exe", "\"abc\\u202etxt.exe\""),
                Arguments.of("byte order mark", "\ufeffx", "\"\\ufeffx\""),
                Arguments.of("line and paragraph separators", "a\u2028b\u2029", "\"a\\u2028b\\u2029\""),
                Arguments.of("Cyrillic look-alike", "gf\u0445942", "\"gf\\u0445942\""),
                Arguments.of("fullwidth digits", "\uff19\uff10", "\"\\uff19\\uff10\""),
                Arguments.of("no-break space", "a\u00a0b", "\"a\\u00a0b\""),
                Arguments.of("accented letter", "caf\u00e9", "\"caf\\u00e9\""),
                Arguments.of("a pair beyond U+FFFF", "\ud83d\ude00", "\"\\ud83d\\ude00\""),
                Arguments.of("an unpaired surrogate", "x\ud800", "\"x\\ud800\""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("quoted")
    void quotes(String what, String text, String expected) {
        assertThat(UntrustedText.quote(text)).isEqualTo(expected);
        assertThat(UntrustedText.quote(text)).as("printable ASCII only").matches("[\\x20-\\x7e]*");
    }

    /** The two forms, which escape alike: {@link UntrustedText#quote} and {@link UntrustedText#printable}. */
    enum Form {
        QUOTE(UntrustedText::quote),
        PRINTABLE(UntrustedText::printable);

        final BiFunction<String, Integer, String> apply;

        Form(BiFunction<String, Integer, String> apply) {
            this.apply = apply;
        }
    }

    static Stream<Arguments> limited() {
        return Stream.of(
                Arguments.of(Form.QUOTE, "x".repeat(80), 80, "\"" + "x".repeat(80) + "\""),
                Arguments.of(Form.QUOTE, "x".repeat(81), 80, "\"" + "x".repeat(80) + "\"... (81 characters in all)"),
                Arguments.of(Form.QUOTE, "abcdef", 3, "\"abc\"... (6 characters in all)"),
                Arguments.of(Form.QUOTE, "a\nbc", 2, "\"a\\n\"... (4 characters in all)"),
                // a cut never splits a surrogate pair
                Arguments.of(Form.QUOTE, "ab\ud83d\ude00c", 3, "\"ab\"... (5 characters in all)"),
                Arguments.of(Form.QUOTE, "ab\ud83d\ude00c", 4, "\"ab\\ud83d\\ude00\"... (5 characters in all)"),
                Arguments.of(Form.QUOTE, "abc", 1, "\"a\"... (3 characters in all)"),
                // printable leaves quotes and backslashes as they are, and escapes the rest alike
                Arguments.of(Form.PRINTABLE, "Duplicate field \"a\"", 300, "Duplicate field \"a\""),
                Arguments.of(Form.PRINTABLE, "C:\\x", 300, "C:\\x"),
                Arguments.of(Form.PRINTABLE, "bad \u001b[2J\u2028 value", 300, "bad \\u001b[2J\\u2028 value"),
                Arguments.of(Form.PRINTABLE, "line one\nline two", 300, "line one\\nline two"),
                Arguments.of(Form.PRINTABLE, "\u202Egf\u0445", 300, "\\u202egf\\u0445"),
                Arguments.of(Form.PRINTABLE, "abcdef", 4, "abcd... (6 characters in all)"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("limited")
    void escapesAndCutsAfterTheLimitNamingTheLength(Form form, String text, int max, String expected) {
        assertThat(form.apply.apply(text, max)).isEqualTo(expected);
    }

    @Test
    void quotesWithTheDefaultLimit() {
        assertThat(UntrustedText.quote("y".repeat(UntrustedText.DEFAULT_MAX_CHARS + 1)))
                .isEqualTo(UntrustedText.quote("y".repeat(UntrustedText.DEFAULT_MAX_CHARS + 1),
                        UntrustedText.DEFAULT_MAX_CHARS))
                .endsWith("\"... (81 characters in all)");
    }

    @Test
    void aHugeValueMakesAShortQuote() {
        assertThat(UntrustedText.quote("\u0000".repeat(10_000))).hasSizeLessThan(80 * 6 + 40);
    }

    @Test
    void nullIsNotQuoted() {
        assertThat(UntrustedText.quote(null)).isEqualTo("null");
        assertThat(UntrustedText.quote("null")).isEqualTo("\"null\"");
        assertThat(UntrustedText.printable(null, 10)).isEqualTo("null");
    }

    static Stream<Arguments> bytes() {
        return Stream.of(
                Arguments.of(bytes('{', '"', 'a', '"', '}'), 200, "\"{\\\"a\\\"}\""),
                Arguments.of(bytes('{', 0xff, 'a', 0xc3, 0xa9, 0xe2, 0x82, '}'), 200, "\"{\\xffa\\u00e9\\xe2\\x82}\""),
                Arguments.of(bytes(0x1b, '[', 'm', 0x00), 200, "\"\\u001b[m\\u0000\""),
                Arguments.of("\u2029x".getBytes(StandardCharsets.UTF_8), 200, "\"\\u2029x\""),
                Arguments.of(bytes('a', 'b', 'c', 'd'), 2, "\"ab\"... (4 bytes in all)"),
                // a character the cut splits shows as its bytes
                Arguments.of(bytes('a', 0xc3, 0xa9), 2, "\"a\\xc3\"... (3 bytes in all)"),
                Arguments.of(new byte[0], 200, "\"\""));
    }

    @ParameterizedTest
    @MethodSource("bytes")
    void quotesBytesThatShouldBeUtf8(byte[] line, int max, String expected) {
        assertThat(UntrustedText.quoteUtf8(line, line.length, max)).isEqualTo(expected);
    }

    @Test
    void quotesOnlyTheGivenLengthOfABuffer() {
        byte[] buffer = bytes('a', 'b', 'c', 0, 0, 0);
        assertThat(UntrustedText.quoteUtf8(buffer, 3, 200)).isEqualTo("\"abc\"");
    }

    @Test
    void everyCharacterComesOutAsPrintableAscii() {
        String all = IntStream.range(0, 0x10000).collect(StringBuilder::new,
                (sb, c) -> sb.append((char) c), StringBuilder::append).toString();
        String quoted = UntrustedText.quote(all, all.length());
        assertThat(quoted).matches("[\\x20-\\x7e]*");
        // the quotes; 93 printable characters as they are, " and \ as two; \n \r \t; the rest as six
        assertThat(quoted).hasSize(2 + 93 + 2 * 2 + 3 * 2 + 6 * (0x10000 - 95 - 3));
    }

    @Test
    void aLimitBelowOneIsRefused() {
        assertThatThrownBy(() -> UntrustedText.quote("x", 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> UntrustedText.printable("x", -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> UntrustedText.quoteUtf8(new byte[1], 1, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    static Stream<Arguments> terminalControls() {
        return Stream.of(
                Arguments.of("ESC (an escape sequence)", "a\033[2Jb", "a\\u001b[2Jb"),
                Arguments.of("OSC title with BEL", "\033]0;x\007", "\\u001b]0;x\\u0007"),
                Arguments.of("carriage return (overwrites the line)", "real\rfake", "real\\rfake"),
                Arguments.of("backspace", "ab\bc", "ab\\u0008c"),
                Arguments.of("NUL", "a\0b", "a\\u0000b"),
                Arguments.of("DEL", "a\u007fb", "a\\u007fb"),
                Arguments.of("C1 CSI", "a\u009b31mb", "a\\u009b31mb"),
                Arguments.of("C1 NEL", "a\u0085b", "a\\u0085b"),
                Arguments.of("right-to-left override", "a\u202eb", "a\\u202eb"),
                Arguments.of("first strong isolate", "a\u2068b", "a\\u2068b"),
                Arguments.of("line separator", "a\u2028b", "a\\u2028b"),
                Arguments.of("unpaired high surrogate", "a\ud83db", "a\\ud83db"),
                Arguments.of("unpaired low surrogate", "a\ude00b", "a\\ude00b"),
                Arguments.of("line feed and tab stay", "a\n\tb", "a\n\tb"),
                Arguments.of("letters of any script and emoji stay", "größe × мир 😀 \\ \"q\"", "größe × мир 😀 \\ \"q\""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("terminalControls")
    void forTerminalEscapesWhatCouldDriveATerminalAndKeepsText(String name, String text, String shown) {
        assertThat(UntrustedText.forTerminal(text)).isEqualTo(shown);
    }

    @Test
    void forTerminalLeavesNoControlCharacterButLineFeedAndTab() {
        StringBuilder every = new StringBuilder();
        for (char c = 0; c < 0x3000; c++) {
            every.append(c);
        }
        String shown = UntrustedText.forTerminal(every.toString());
        assertThat(shown.chars().filter(c -> Character.isISOControl(c) && c != '\n' && c != '\t')).isEmpty();
        assertThat(shown.chars().filter(c -> Character.getType(c) == Character.FORMAT && c != 0x200c && c != 0x200d))
                .isEmpty();
        assertThat(shown).contains("\u200d").contains("ä").contains("\u2fff");
        assertThat(UntrustedText.forTerminal(null)).isEqualTo("null");
    }

    private static byte[] bytes(int... values) {
        byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (byte) values[i];
        }
        return out;
    }
}
