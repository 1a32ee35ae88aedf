package org.archpool.protocol.codec;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** A line that is not a valid protocol message: malformed JSON, an unknown type, a missing field, too long. */
public final class ProtocolException extends Exception {

    /** How many bytes of an offending line a message shows. */
    public static final int PREVIEW_BYTES = 200;

    /** How many characters of the problem a message shows (a problem may quote a value from the line). */
    public static final int PROBLEM_CHARS = 300;

    private final String offendingPreview;

    public ProtocolException(String problem, byte[] offending, int length, Throwable cause) {
        super(printable(problem, PROBLEM_CHARS) + ": " + preview(offending, length), cause);
        this.offendingPreview = preview(offending, length);
    }

    /** The start of the offending line, printable, with non-printable bytes escaped. */
    public String offendingPreview() {
        return offendingPreview;
    }

    /**
     * The first {@link #PREVIEW_BYTES} bytes, quoted: bytes that are not UTF-8 as {@code \xNN} (the byte itself),
     * control characters as {@code \xNN}, and format characters and line separators as {@code \\uNNNN}.
     */
    static String preview(byte[] bytes, int length) {
        int shown = Math.min(length, PREVIEW_BYTES);
        StringBuilder out = new StringBuilder(shown + 16).append('"');
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes, 0, shown);
        CharBuffer chars = CharBuffer.allocate(shown + 1);
        while (in.hasRemaining()) {
            CoderResult r = decoder.decode(in, chars, true);
            chars.flip();
            appendEscaped(out, chars, true);
            chars.clear();
            if (r.isError()) {
                for (int i = 0; i < r.length(); i++) {
                    out.append(String.format("\\x%02x", in.get() & 0xff));
                }
            } else if (r.isUnderflow()) {
                break;
            }
        }
        out.append('"');
        if (length > shown) {
            out.append(" … (").append(length).append(" bytes in all)");
        }
        return out.toString();
    }

    /** {@code text}, at most {@code max} characters of it, with the characters that could break a log line escaped. */
    static String printable(String text, int max) {
        if (text == null) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        int end = Math.min(text.length(), max);
        if (end < text.length() && Character.isHighSurrogate(text.charAt(end - 1))) {
            end--;
        }
        appendEscaped(out, CharBuffer.wrap(text, 0, end), false);
        if (end < text.length()) {
            out.append("… (").append(text.length()).append(" characters in all)");
        }
        return out.toString();
    }

    private static void appendEscaped(StringBuilder out, CharBuffer chars, boolean quoted) {
        String text = chars.toString();
        text.codePoints().forEach(cp -> {
            int type = Character.getType(cp);
            if (quoted && (cp == '"' || cp == '\\')) {
                out.append('\\').appendCodePoint(cp);
            } else if (cp < 0x20 || cp == 0x7f) {
                out.append(String.format("\\x%02x", cp));
            } else if (Character.isISOControl(cp) || type == Character.FORMAT || type == Character.SURROGATE
                    || type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR) {
                out.append(String.format("\\u%04x", cp));
            } else {
                out.appendCodePoint(cp);
            }
        });
    }
}
