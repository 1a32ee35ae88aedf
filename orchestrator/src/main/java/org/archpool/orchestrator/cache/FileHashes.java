package org.archpool.orchestrator.cache;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.archpool.orchestrator.output.AtomicFile;

/**
 * The digests of files, remembered by what {@code stat} says of them (size, modification and change time, inode),
 * so that an unchanged tree is hashed once per machine rather than once per build: a file whose stat is the one
 * recorded has the recorded digest. As git's index does, a file modified less than {@link #RACY_NANOS} before it
 * was hashed is not remembered (a write in the same tick would keep its times), and a digest is read again
 * whenever any of the four differs. Kept in one file of the cache folder, loaded on first use and written back by
 * {@link #save()} ({@link AtomicFile}: a temporary file renamed, so that concurrent builds each leave a whole file; the last one wins,
 * which costs the other only hashing again).
 */
public final class FileHashes {

    /** How old a modification must be before its file's digest is remembered. */
    static final long RACY_NANOS = TimeUnit.SECONDS.toNanos(2);

    /** Entries kept past {@link #save()} at most; beyond it, those not used by this build are dropped. */
    static final int MAX_ENTRIES = 100_000;

    private record Stat(long size, long modifiedNanos, long changedNanos, long inode) {
    }

    private record Known(Stat stat, String digest, boolean usedNow) {
    }

    private final Path file;
    private final Clock clock;
    private final Map<String, Known> known = new ConcurrentHashMap<>();
    private volatile boolean loaded;
    private volatile boolean changed;

    /** @param file where the digests are kept; null to remember them for this process only */
    public FileHashes(Path file, Clock clock) {
        this.file = file;
        this.clock = clock;
    }

    /**
     * The SHA-256 of {@code path}'s bytes (a link is not followed: the caller decides what links mean).
     *
     * @throws NoSuchFileException when it is gone
     */
    public String digest(Path path) throws IOException {
        load();
        String key = path.toString();
        Stat before = stat(path);
        Known k = known.get(key);
        if (k != null && k.stat().equals(before)) {
            if (!k.usedNow()) {
                known.put(key, new Known(k.stat(), k.digest(), true));
            }
            return k.digest();
        }
        String digest = Digests.ofFile(path);
        Stat after = stat(path);
        long nowNanos = TimeUnit.MILLISECONDS.toNanos(clock.millis());
        if (before.equals(after) && nowNanos - after.modifiedNanos() > RACY_NANOS
                && nowNanos - after.changedNanos() > RACY_NANOS) {
            known.put(key, new Known(after, digest, true));
            changed = true;
        } else {
            known.remove(key);
        }
        return digest;
    }

    private static Stat stat(Path path) throws IOException {
        Map<String, Object> a = Files.readAttributes(path, "unix:size,lastModifiedTime,ctime,ino",
                LinkOption.NOFOLLOW_LINKS);
        return new Stat((Long) a.get("size"), nanos((FileTime) a.get("lastModifiedTime")),
                nanos((FileTime) a.get("ctime")), ((Number) a.get("ino")).longValue());
    }

    private static long nanos(FileTime t) {
        return t.to(TimeUnit.NANOSECONDS);
    }

    private synchronized void load() {
        if (loaded) {
            return;
        }
        loaded = true;
        if (file == null || !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                String[] f = line.split("\t", 6);
                if (f.length == 6 && Digests.isDigest(f[0])) {
                    try {
                        known.putIfAbsent(f[5], new Known(new Stat(Long.parseLong(f[1]), Long.parseLong(f[2]),
                                Long.parseLong(f[3]), Long.parseLong(f[4])), f[0], false));
                    } catch (NumberFormatException e) {
                        // a damaged line costs its file a new hash
                    }
                }
            }
        } catch (IOException e) {
            // unreadable: every file is hashed again, and save() writes a new one
        }
    }

    /** Writes what was learnt back to the file, when anything was; a failure costs only hashing again next time. */
    public synchronized void save() throws IOException {
        if (file == null || !changed) {
            return;
        }
        boolean trim = known.size() > MAX_ENTRIES;
        AtomicFile.write(file, out -> {
            BufferedWriter w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8));
            for (Map.Entry<String, Known> e : known.entrySet()) {
                Known k = e.getValue();
                if ((trim && !k.usedNow()) || e.getKey().indexOf('\n') >= 0) {
                    continue;
                }
                Stat st = k.stat();
                w.write(k.digest() + "\t" + st.size() + "\t" + st.modifiedNanos() + "\t" + st.changedNanos() + "\t"
                        + st.inode() + "\t" + e.getKey() + "\n");
            }
            w.flush();
        });
        changed = false;
    }
}
