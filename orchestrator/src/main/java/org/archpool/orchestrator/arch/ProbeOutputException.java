package org.archpool.orchestrator.arch;

import java.util.Objects;
import org.archpool.protocol.UntrustedText;

/**
 * A probe tool printed something its parser cannot read. The message names the tool, says what was wrong
 * and quotes the offending line ({@link UntrustedText#quote}, cut after {@value #MAX_QUOTED_CHARS} characters),
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

    /** The offending line as the message quotes it (in double quotes, escaped, possibly cut), or {@code null}. */
    public String offendingLine() {
        return offendingLine;
    }

    private static String message(String tool, String problem, String offendingLine) {
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(problem, "problem");
        StringBuilder sb = new StringBuilder(tool).append(": ").append(problem);
        if (offendingLine != null) {
            sb.append(": ").append(quote(offendingLine));
        }
        return sb.toString();
    }

    private static String quote(String line) {
        return UntrustedText.quote(line, MAX_QUOTED_CHARS);
    }
}
