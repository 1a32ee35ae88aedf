package org.archpool.orchestrator.pool;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.archpool.protocol.UntrustedText;

/**
 * What a worker JVM that did not start wrote first to its stderr file: the reason, such as
 * {@code Unrecognized VM option 'Bogus'} or {@code Too small maximum heap}, as a clause to append to the failure.
 */
final class StartupError {

    /** How much of the file is read, from where this start began writing. */
    static final int MAX_BYTES = 4096;
    /** How many of its lines are repeated. */
    static final int MAX_LINES = 3;
    /** How many characters of them at most. */
    static final int MAX_CHARS = 300;

    private StartupError() {
    }

    /**
     * {@code "; it says: …"} with the first non-blank lines written to {@code stderr} since byte {@code from},
     * escaped; empty when there are none or the file cannot be read.
     */
    static String said(Path stderr, long from) {
        byte[] head;
        try (InputStream in = Files.newInputStream(stderr)) {
            in.skipNBytes(from);
            head = in.readNBytes(MAX_BYTES);
        } catch (IOException e) {
            return "";
        }
        List<String> lines = new String(head, StandardCharsets.UTF_8).lines().map(String::strip)
                .filter(l -> !l.isEmpty()).limit(MAX_LINES).toList();
        return lines.isEmpty() ? "" : "; it says: " + UntrustedText.printable(String.join(" / ", lines), MAX_CHARS);
    }
}
