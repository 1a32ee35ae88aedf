package org.archpool.orchestrator.schedule;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.archpool.orchestrator.cache.Digests;
import org.archpool.orchestrator.output.AtomicFile;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Target;

/**
 * How long each job took when it last ran, so that the queue can run the longest first ({@link JobOrder}). A job is
 * known by its name (a manifest's job id; under {@code serve}, the client's), its folder (a CMake job's source
 * folder, a command job's working folder) and the target: an edit to the job's sources or flags keeps its history,
 * a job built for other architectures has its own. Only jobs a worker built and that succeeded are recorded (a job
 * restored from the cache took no build time). The file is read once and written once at the end of a session, over
 * what other sessions wrote to it meanwhile; it keeps the {@value #MAX_ENTRIES} most recently recorded jobs. A
 * damaged or missing file is an empty history, never an error.
 */
public final class DurationHistory {

    /** Jobs kept in the file; the oldest records go first. */
    static final int MAX_ENTRIES = 100_000;
    private static final String HEADER = "# archpool job durations 1: key (SHA-256 of name, folder, target) TAB ms";

    private final Path file;
    private final Map<String, Long> known;
    private final Map<String, Long> recorded = new LinkedHashMap<>();

    private DurationHistory(Path file, Map<String, Long> known) {
        this.file = file;
        this.known = known;
    }

    /** The history kept in {@code file}; empty when the file does not exist or cannot be read. */
    public static DurationHistory load(Path file) {
        return new DurationHistory(file, read(file));
    }

    /** A history of this session only, saved nowhere. */
    public static DurationHistory inMemory() {
        return new DurationHistory(null, new LinkedHashMap<>());
    }

    /** The file it is kept in; null for a history in memory. */
    public Path file() {
        return file;
    }

    /** How long the job named {@code name} took last time, in ms; null when it never ran for this target. */
    public synchronized Long expectedMs(String name, JobSpec job, Target target) {
        String key = key(name, job, target);
        Long ms = recorded.get(key);
        return ms != null ? ms : known.get(key);
    }

    /** Records how long the job named {@code name} took this time. */
    public synchronized void record(String name, JobSpec job, Target target, long ms) {
        String key = key(name, job, target);
        recorded.remove(key);
        recorded.put(key, Math.max(0, ms));
    }

    /**
     * Writes this session's records over what the file holds now (another session may have written it since it was
     * read), keeping the most recent {@value #MAX_ENTRIES}. Does nothing for a history in memory or with no record.
     */
    public synchronized void save() throws IOException {
        if (file == null || recorded.isEmpty()) {
            return;
        }
        Map<String, Long> merged = read(file);
        recorded.forEach((k, v) -> {
            merged.remove(k);
            merged.put(k, v);
        });
        int skip = Math.max(0, merged.size() - MAX_ENTRIES);
        AtomicFile.write(file, out -> {
            BufferedWriter w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.US_ASCII));
            w.write(HEADER);
            w.newLine();
            int i = 0;
            for (Map.Entry<String, Long> e : merged.entrySet()) {
                if (i++ >= skip) {
                    w.write(e.getKey() + "\t" + e.getValue());
                    w.newLine();
                }
            }
            w.flush();
        });
    }

    static String key(String name, JobSpec job, Target target) {
        String folder = job instanceof CmakeJob c ? c.sourceDir() : job instanceof CommandJob c ? c.cwd() : "";
        MessageDigest md = Digests.sha256();
        for (String part : List.of(name, folder, target.platform().name(), String.join(";", target.archs()))) {
            md.update(part.getBytes(StandardCharsets.UTF_8));
            md.update((byte) 0);
        }
        return Digests.hex(md.digest());
    }

    private static Map<String, Long> read(Path file) {
        Map<String, Long> entries = new LinkedHashMap<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
        } catch (IOException | RuntimeException e) {
            // no file yet, or one that cannot be read: no history, and the next save writes a new one
            return entries;
        }
        for (String line : lines) {
            int tab = line.indexOf('\t');
            if (line.startsWith("#") || tab != 64) {
                continue;
            }
            try {
                entries.put(line.substring(0, tab), Long.parseLong(line.substring(tab + 1)));
            } catch (NumberFormatException e) {
                // a damaged line is no record
            }
        }
        return entries;
    }
}
