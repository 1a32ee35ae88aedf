package org.archpool.orchestrator.cache;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.archpool.orchestrator.output.AtomicFile;

/**
 * What each tool said to {@code --version}, remembered by the SHA-256 of its file: the same bytes say the same
 * thing, so a build whose toolchain has not changed runs none of them (eight process starts, about half a second,
 * before the first job could be looked up). Kept in one file of the cache folder ({@code tool-versions}), written
 * back whole under a temporary name; a damaged or missing file costs only running the tools again.
 */
final class ToolVersions {

    private final Path file;
    private final Map<String, String> known = new ConcurrentHashMap<>();
    private volatile boolean changed;

    /** @param file where they are kept; null for this process only */
    ToolVersions(Path file) {
        this.file = file;
        if (file != null && Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            try {
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    int tab = line.indexOf('\t');
                    if (tab == 64 && Digests.isDigest(line.substring(0, tab))) {
                        known.putIfAbsent(line.substring(0, tab), line.substring(tab + 1));
                    }
                }
            } catch (IOException e) {
                // run the tools again
            }
        }
    }

    /** The version text of the tool whose file hashes to {@code sha256}, asking {@code run} only the first time. */
    String of(String sha256, Supplier<String> run) {
        String text = known.get(sha256);
        if (text == null) {
            text = run.get().replace('\n', ' ').replace('\t', ' ');
            if (!text.startsWith("version unknown")) {
                known.put(sha256, text);
                changed = true;
            }
        }
        return text;
    }

    /** Writes what was learnt; a failure costs only running the tools again next time. */
    synchronized void save() throws IOException {
        if (file == null || !changed) {
            return;
        }
        List<String> lines = known.entrySet().stream().map(e -> e.getKey() + "\t" + e.getValue()).toList();
        AtomicFile.write(file, String.join("\n", lines).concat("\n").getBytes(StandardCharsets.UTF_8));
        changed = false;
    }
}
