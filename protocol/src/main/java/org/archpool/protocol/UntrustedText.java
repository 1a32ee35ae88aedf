package org.archpool.protocol;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Text that came from outside (a user's flag or manifest, a tool's output, a worker's line, a file name) made
 * safe to repeat in a message. Every message in archpool that repeats such text goes through here, so that all of
 * them escape the same characters the same way.
 *
 * <p>The rules:
 * <ul>
 *   <li><b>The result is printable ASCII</b> ({@code U+0020} to {@code U+007E}) and nothing else, so that it
 *       cannot move a terminal's cursor, start a new log line, reorder the text around it or pass a look-alike
 *       for the real thing.</li>
 *   <li>{@link #quote} puts the text in <b>double quotes</b> and writes {@code "} as {@code \"} and {@code \}
 *       as {@code \\}. What it returns is a valid JSON and Java string literal.</li>
 *   <li>Line feed, carriage return and tab are written {@code \n}, {@code \r} and {@code \t}.</li>
 *   <li>Every other character outside printable ASCII is written <code>&#92;u</code> and four lower-case hex
 *       digits, one escape per UTF-16 unit (the JSON and Java form): control characters (NUL as
 *       <code>&#92;u0000</code>, ESC as <code>&#92;u001b</code>, DEL as <code>&#92;u007f</code>), format and bidi
 *       characters (U+202E RIGHT-TO-LEFT OVERRIDE as <code>&#92;u202e</code>, U+FEFF as <code>&#92;ufeff</code>),
 *       line and paragraph separators, every non-ASCII letter (so {@code gfx942} with a Cyrillic U+0445 for its
 *       {@code x} shows as <code>"gf&#92;u0445942"</code>), and each half of a character beyond U+FFFF (an emoji
 *       shows as <code>&#92;ud83d&#92;ude00</code>); an unpaired surrogate is escaped like any other unit.</li>
 *   <li>Text longer than the limit is cut: the first {@code maxChars} UTF-16 units are shown (one fewer when the
 *       cut would split a surrogate pair), then {@code ...} and the full length, after the closing quote:
 *       <code>"xxxx"... (81 characters in all)</code>.</li>
 *   <li>{@code null} is written {@code null}, without quotes, so that it is not confused with the text
 *       {@code "null"}.</li>
 * </ul>
 *
 * <p>{@link #printable} applies the same escapes and cut without the quotes, for a whole message whose
 * delimiters are its own (a library's exception message, which may hold a value of the input); there {@code "}
 * and {@code \} stay as they are. {@link #quoteUtf8} quotes raw bytes that should be UTF-8: the text they
 * decode to as {@link #quote} does, each byte that is not part of valid UTF-8 as {@code \x} and two hex digits.
 *
 * <p>{@link #forTerminal} is for text shown as it is, many lines of it, such as the tail of a job's log under a
 * failed job: letters of every script stay readable and line feeds and tabs stay, but every character that could
 * drive a terminal or hide what is around it is escaped as above: the other C0 controls (ESC, BEL, backspace,
 * carriage return as {@code \r}), DEL, the C1 controls U+0080 to U+009F (CSI U+009B starts an escape sequence on
 * some terminals), every format character but the zero-width joiner and non-joiner (so the bidi controls such as
 * U+202E, zero-width spaces, U+FEFF, the soft hyphen), the line and paragraph separators and unpaired surrogates.
 */
public final class UntrustedText {

    /** How many characters {@link #quote(String)} shows before it cuts the rest off. */
    public static final int DEFAULT_MAX_CHARS = 80;

    private UntrustedText() {
    }

    /** {@code text} in double quotes, escaped, cut after {@value #DEFAULT_MAX_CHARS} characters. */
    public static String quote(String text) {
        return quote(text, DEFAULT_MAX_CHARS);
    }

    /**
     * {@code text} in double quotes, escaped, cut after {@code maxChars} characters with the full length named.
     *
     * @param maxChars how many UTF-16 units of {@code text} to show at most; at least 1
     */
    public static String quote(String text, int maxChars) {
        if (text == null) {
            return "null";
        }
        int shown = shownLength(text, maxChars);
        StringBuilder out = new StringBuilder(shown + 24).append('"');
        appendEscaped(out, text, 0, shown, true);
        out.append('"');
        return appendCut(out, shown, text.length(), "characters");
    }

    /**
     * {@code text} escaped as {@link #quote} escapes it but without quotes, and with {@code "} and {@code \} as
     * they are: for a message of someone else's that may repeat untrusted text.
     *
     * @param maxChars how many UTF-16 units of {@code text} to show at most; at least 1
     */
    public static String printable(String text, int maxChars) {
        if (text == null) {
            return "null";
        }
        int shown = shownLength(text, maxChars);
        StringBuilder out = new StringBuilder(shown + 24);
        appendEscaped(out, text, 0, shown, false);
        return appendCut(out, shown, text.length(), "characters");
    }

    /**
     * The first {@code length} bytes of {@code bytes}, which should be UTF-8, in double quotes: what they decode
     * to escaped as {@link #quote} escapes it, each byte that is not valid UTF-8 as {@code \x} and two lower-case
     * hex digits (the byte itself); cut after {@code maxBytes} bytes with the full length named (a character that
     * the cut splits shows as its bytes).
     *
     * @param maxBytes how many bytes to show at most; at least 1
     */
    public static String quoteUtf8(byte[] bytes, int length, int maxBytes) {
        requirePositive(maxBytes);
        int shown = Math.min(length, maxBytes);
        StringBuilder out = new StringBuilder(shown + 24).append('"');
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes, 0, shown);
        CharBuffer chars = CharBuffer.allocate(shown + 1);
        while (true) {
            CoderResult r = decoder.decode(in, chars, true);
            chars.flip();
            appendEscaped(out, chars, 0, chars.length(), true);
            chars.clear();
            if (!r.isError()) {
                break;
            }
            for (int i = 0; i < r.length(); i++) {
                appendHex(out.append("\\x"), in.get() & 0xff, 2);
            }
        }
        out.append('"');
        return appendCut(out, shown, length, "bytes");
    }

    /**
     * {@code text} with line feeds, tabs and every printable character of any script as they are, and each
     * character that could drive a terminal escaped as {@link #quote} escapes it (the class comment lists them);
     * no quotes, no cut. {@code null} is {@code null}.
     */
    public static String forTerminal(String text) {
        if (text == null) {
            return "null";
        }
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean keep = c == '\n' || c == '\t' || !drivesTerminal(text, i);
            if (!keep && out == null) {
                out = new StringBuilder(text.length() + 16).append(text, 0, i);
            }
            if (out != null) {
                if (keep) {
                    out.append(c);
                } else {
                    appendEscaped(out, text, i, i + 1, false);
                }
            }
        }
        return out == null ? text : out.toString();
    }

    /** Whether the UTF-16 unit at {@code i} is a control, a format character, a line separator or a lone surrogate. */
    private static boolean drivesTerminal(String text, int i) {
        char c = text.charAt(i);
        if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
            return true;
        }
        // format characters: the bidi controls, zero-width and invisible ones; joiners stay, emoji and scripts need them
        if (Character.getType(c) == Character.FORMAT && c != 0x200c && c != 0x200d
                || c == 0x2028 || c == 0x2029) {
            return true;
        }
        if (Character.isHighSurrogate(c)) {
            return i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1));
        }
        if (Character.isLowSurrogate(c)) {
            return i == 0 || !Character.isHighSurrogate(text.charAt(i - 1));
        }
        return false;
    }

    private static int shownLength(String text, int maxChars) {
        requirePositive(maxChars);
        int end = Math.min(text.length(), maxChars);
        if (end < text.length() && Character.isHighSurrogate(text.charAt(end - 1))
                && Character.isLowSurrogate(text.charAt(end))) {
            end--;
        }
        return end;
    }

    private static void requirePositive(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("the limit must be at least 1, not " + max);
        }
    }

    private static String appendCut(StringBuilder out, int shown, int length, String unit) {
        if (shown < length) {
            out.append("... (").append(length).append(' ').append(unit).append(" in all)");
        }
        return out.toString();
    }

    private static void appendEscaped(StringBuilder out, CharSequence text, int from, int to, boolean quoted) {
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '"', '\\' -> {
                    if (quoted) {
                        out.append('\\');
                    }
                    out.append(c);
                }
                default -> {
                    if (c >= 0x20 && c < 0x7f) {
                        out.append(c);
                    } else {
                        appendHex(out.append("\\u"), c, 4);
                    }
                }
            }
        }
    }

    private static void appendHex(StringBuilder out, int value, int digits) {
        for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) {
            out.append(Character.forDigit((value >> shift) & 0xf, 16));
        }
    }
}
