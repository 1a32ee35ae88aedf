package org.archpool.orchestrator.arch;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Splits captured tool output into lines that parsers can match: any line ending (LF, CRLF, CR), a leading
 * byte-order mark and terminal colour codes removed, each line stripped of surrounding white space.
 */
final class ProbeLines {

    /** ECMA-48 CSI sequences ({@code ESC [ ... m} and friends) and two-character ESC sequences. */
    private static final Pattern ANSI = Pattern.compile("\u001B(?:\\[[0-?]*[ -/]*[@-~]|[@-Z\\\\-_])");

    /** The same colour codes after a copy and paste turned ESC into the two characters {@code ^[}. */
    private static final Pattern CARET_ANSI = Pattern.compile("\\^\\[\\[[0-9;]*m");

    private static final Pattern LINE_END = Pattern.compile("\r\n|\r|\n");

    private ProbeLines() {
    }

    /** The lines of {@code text}, cleaned; blank lines are kept (as empty strings) so that numbering holds. */
    static List<String> of(String text) {
        Objects.requireNonNull(text, "text");
        String t = text.startsWith("\uFEFF") ? text.substring(1) : text;
        t = CARET_ANSI.matcher(ANSI.matcher(t).replaceAll("")).replaceAll("");
        String[] raw = LINE_END.split(t, -1);
        String[] cleaned = new String[raw.length];
        for (int i = 0; i < raw.length; i++) {
            cleaned[i] = raw[i].strip();
        }
        return List.of(cleaned);
    }
}
