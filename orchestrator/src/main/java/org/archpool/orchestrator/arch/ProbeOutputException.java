package org.archpool.orchestrator.arch;

import java.util.Objects;

/**
 * A probe tool printed something its parser cannot read. The message names the tool, says what was wrong
 * and quotes the offending line (control characters escaped, cut to {@value #MAX_QUOTED_CHARS} characters),
 * so that it can be shown to a user as is.
 */
public class ProbeOutputException extends Exception {

    private static final long serialVersionUID = 1L;

    /** The most characters of an offending line that a message quotes. */
    public static final int MAX_QUOTED_CHARS = 200;

    private final String tool;
    private final String offendingLine;

    /**
     * @param tool          the tool whose output this is, e.g. {@code nvidia-smi}
     * @param problem       what is wrong, e.g. {@code compute capability is not a number}
     * @param offendingLine the line that could not be read, or {@code null} where no single line is to blame
     */
    public ProbeOutputException(String tool, String problem, String offendingLine) {
        super(message(tool, problem, offendingLine));
        this.tool = tool;
        this.offendingLine = offendingLine == null ? null : quote(offendingLine);
    }

    /** The tool whose output could not be read. */
    public String tool() {
        return tool;
    }

    /** The offending line as quoted in the message (escaped and possibly cut), or {@code null}. */
    public String offendingLine() {
        return offendingLine;
    }

    private static String message(String tool, String problem, String offendingLine) {
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(problem, "problem");
        StringBuilder sb = new StringBuilder(tool).append(": ").append(problem);
        if (offendingLine != null) {
            sb.append(": \"").append(quote(offendingLine)).append('"');
        }
        return sb.toString();
    }

    /** Escapes control characters and cuts the text to {@link #MAX_QUOTED_CHARS} characters plus "...". */
    static String quote(String line) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < line.length(); i++) {
            if (sb.length() >= MAX_QUOTED_CHARS) {
                return sb.append("...").toString();
            }
            char c = line.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7f) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
