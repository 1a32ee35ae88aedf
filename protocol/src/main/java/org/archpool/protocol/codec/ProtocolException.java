package org.archpool.protocol.codec;

import java.nio.charset.StandardCharsets;

/** A line that is not a valid protocol message: malformed JSON, an unknown type, a missing field, too long. */
public final class ProtocolException extends Exception {

    /** How many bytes of an offending line a message shows. */
    public static final int PREVIEW_BYTES = 200;

    private final String offendingPreview;

    public ProtocolException(String problem, byte[] offending, int length, Throwable cause) {
        super(problem + ": " + preview(offending, length), cause);
        this.offendingPreview = preview(offending, length);
    }

    /** The start of the offending line, printable, with non-printable bytes escaped. */
    public String offendingPreview() {
        return offendingPreview;
    }

    static String preview(byte[] bytes, int length) {
        int shown = Math.min(length, PREVIEW_BYTES);
        String text = new String(bytes, 0, shown, StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder(shown + 16).append('"');
        text.codePoints().forEach(cp -> {
            if (cp == '"' || cp == '\\') {
                out.append('\\').appendCodePoint(cp);
            } else if (cp < 0x20 || cp == 0x7f || cp == 0xfffd) {
                out.append(String.format("\\x%02x", cp & 0xff));
            } else {
                out.appendCodePoint(cp);
            }
        });
        out.append('"');
        if (length > shown) {
            out.append(" … (").append(length).append(" bytes in all)");
        }
        return out.toString();
    }
}
