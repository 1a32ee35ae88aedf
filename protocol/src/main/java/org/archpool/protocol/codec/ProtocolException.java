package org.archpool.protocol.codec;

import org.archpool.protocol.UntrustedText;

/** A line that is not a valid protocol message: malformed JSON, an unknown type, a missing field, too long. */
public final class ProtocolException extends Exception {

    /** How many bytes of an offending line a message shows. */
    public static final int PREVIEW_BYTES = 200;

    /** How many characters of the problem a message shows (a problem may quote a value from the line). */
    public static final int PROBLEM_CHARS = 300;

    private final String offendingPreview;

    public ProtocolException(String problem, byte[] offending, int length, Throwable cause) {
        super(UntrustedText.printable(problem, PROBLEM_CHARS) + ": " + preview(offending, length), cause);
        this.offendingPreview = preview(offending, length);
    }

    /** The start of the offending line as {@link UntrustedText#quoteUtf8} quotes it. */
    public String offendingPreview() {
        return offendingPreview;
    }

    /** The first {@link #PREVIEW_BYTES} bytes, quoted: the bytes that are not UTF-8 as {@code \xNN}. */
    static String preview(byte[] bytes, int length) {
        return UntrustedText.quoteUtf8(bytes, length, PREVIEW_BYTES);
    }
}
