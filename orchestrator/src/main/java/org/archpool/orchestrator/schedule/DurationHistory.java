package org.archpool.orchestrator.schedule;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
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
 *
 * <p>Memory stays small whatever the file holds, since a coordinator with a small heap may build thousands of jobs:
 * what was read is kept as 16 bytes a job ({@link Known}: the key's first 64 bits and the duration, in open-addressed
 * primitive arrays: a wrong guess from two keys that share 64 bits would only misplace a job in the queue), and saving
 * streams the file through, twice, holding only this session's records.
 */
public final class DurationHistory {

    /** Jobs kept in the file; the oldest records go first. */
    static final int MAX_ENTRIES = 100_000;
    private static final String HEADER = "# archpool job durations 1: key (SHA-256 of name, folder, target) TAB ms";

    private final Path file;
    private final Known known;
    private final Map<String, Long> recorded = new LinkedHashMap<>();

    private DurationHistory(Path file, Known known) {
        this.file = file;
        this.known = known;
    }

    /** The history kept in {@code file}; empty when the file does not exist or cannot be read. */
    public static DurationHistory load(Path file) {
        Known known = new Known();
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.US_ASCII)) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                Entry e = Entry.parse(line);
                if (e != null) {
                    known.put(e.key(), e.ms());
                }
            }
        } catch (IOException | RuntimeException e) {
            // no file yet, or one that cannot be read (wholly or from some line on): what was read is the history
        }
        return new DurationHistory(file, known);
    }

    /** A history of this session only, saved nowhere. */
    public static DurationHistory inMemory() {
        return new DurationHistory(null, new Known());
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
     * The file now is read twice through one open channel (so both passes see the same file, whatever is renamed
     * over it meanwhile): once to count what stays, once to copy it after dropping the oldest.
     */
    public synchronized void save() throws IOException {
        if (file == null || recorded.isEmpty()) {
            return;
        }
        AtomicFile.write(file, out -> {
            BufferedWriter w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.US_ASCII));
            w.write(HEADER);
            w.newLine();
            try (SeekableByteChannel now = Files.newByteChannel(file)) {
                long older = copyOlder(now, Long.MAX_VALUE, null);
                now.position(0);
                copyOlder(now, Math.max(0, older + recorded.size() - MAX_ENTRIES), w);
            } catch (IOException e) {
                // none yet, or one that cannot be read (wholly or from some line on): what was copied stays, and
                // this session's records follow
            }
            int skip = Math.max(0, recorded.size() - MAX_ENTRIES); // a session that recorded more than the file keeps
            for (Map.Entry<String, Long> e : recorded.entrySet()) {
                if (skip-- > 0) {
                    continue;
                }
                w.write(e.getKey() + "\t" + e.getValue());
                w.newLine();
            }
            w.flush();
        });
    }

    /**
     * Reads {@code from} line by line: with no {@code to}, counts the entries this session did not record again;
     * else writes them to {@code to} but the first {@code skip}.
     */
    private long copyOlder(SeekableByteChannel from, long skip, BufferedWriter to) throws IOException {
        // not closed here: the channel is read again
        BufferedReader r = new BufferedReader(new InputStreamReader(Channels.newInputStream(from),
                StandardCharsets.US_ASCII));
        long seen = 0;
        for (String line = r.readLine(); line != null; line = r.readLine()) {
            Entry e = Entry.parse(line);
            if (e == null || recorded.containsKey(e.key())) {
                continue;
            }
            if (to != null && seen >= skip) {
                to.write(e.key() + "\t" + e.ms());
                to.newLine();
            }
            seen++;
        }
        return seen;
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

    /** One line of the file: a key (64 hex digits), a tab, a number of ms; null for any other line. */
    private record Entry(String key, long ms) {

        static Entry parse(String line) {
            int tab = line.indexOf('\t');
            if (tab != 64 || !Digests.isDigest(line.substring(0, tab))) {
                return null;
            }
            try {
                return new Entry(line.substring(0, tab), Long.parseLong(line.substring(tab + 1)));
            } catch (NumberFormatException e) {
                return null; // a damaged line is no record
            }
        }
    }

    /**
     * What the file held when it was read: each key's first 64 bits and its duration, in open-addressed primitive
     * arrays (16 bytes a job where a map of strings took about 170). A later put of a key wins.
     */
    private static final class Known {
        private long[] keys = new long[16];
        private long[] values = new long[16];
        private int size;

        void put(String key, long ms) {
            if (2 * (size + 1) > keys.length) {
                grow();
            }
            insert(bits(key), ms);
        }

        Long get(String key) {
            long k = bits(key);
            for (int i = slot(k); keys[i] != 0; i = (i + 1) & (keys.length - 1)) {
                if (keys[i] == k) {
                    return values[i];
                }
            }
            return null;
        }

        private void insert(long k, long ms) {
            int i = slot(k);
            while (keys[i] != 0 && keys[i] != k) {
                i = (i + 1) & (keys.length - 1);
            }
            if (keys[i] == 0) {
                size++;
            }
            keys[i] = k;
            values[i] = ms;
        }

        private void grow() {
            long[] oldKeys = keys;
            long[] oldValues = values;
            keys = new long[oldKeys.length * 2];
            values = new long[oldKeys.length * 2];
            size = 0;
            for (int i = 0; i < oldKeys.length; i++) {
                if (oldKeys[i] != 0) {
                    insert(oldKeys[i], oldValues[i]);
                }
            }
        }

        private int slot(long k) {
            return (int) (k ^ (k >>> 32)) & (keys.length - 1);
        }

        /** The key's first 64 bits; never 0, which marks a free slot. */
        private static long bits(String key) {
            long k = Long.parseUnsignedLong(key.substring(0, 16), 16);
            return k == 0 ? 1 : k;
        }
    }
}
