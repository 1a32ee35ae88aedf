package org.archpool.orchestrator.cache;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Sizes, checks and shrinks a local cache folder ({@code archpool cache stats|verify|prune}, {@code --cache-max-size}).
 * Pruning removes the least recently used entries first (an entry's time is set each time it is stored or used)
 * until the folder is under the size, then every blob no remaining entry names, and temporary files older than an
 * hour (those of a build killed while storing). A build that uses the cache meanwhile loses at most a hit: an entry
 * whose blob went is refused and rebuilt.
 */
public final class CachePruner {

    /** Temporary files older than this belong to no live build. */
    static final long STALE_TMP_MS = 3_600_000;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path root;
    private final Clock clock;

    public CachePruner(DiskCache cache, Clock clock) {
        this.root = cache.root();
        this.clock = clock;
    }

    /** What is in the folder. */
    public record Stats(int entries, int blobs, long entryBytes, long blobBytes, int temporaryFiles) {
        public long totalBytes() {
            return entryBytes + blobBytes;
        }
    }

    /** What {@link #prune} removed. */
    public record Pruned(int entries, int blobs, int temporaryFiles, long bytesBefore, long bytesAfter) {
    }

    /** What {@link #verify} found. */
    public record Verified(int entries, int blobs, List<String> problems) {
    }

    private record FileInfo(Path path, long size, long modifiedMs) {
    }

    public Stats stats() throws IOException {
        List<FileInfo> entries = files("ac");
        List<FileInfo> blobs = files("cas");
        return new Stats(entries.size(), blobs.size(), sum(entries), sum(blobs), files("tmp").size());
    }

    /** Removes least recently used entries until entries and blobs take at most {@code maxBytes}. */
    public Pruned prune(long maxBytes) throws IOException {
        long now = clock.millis();
        int tmpRemoved = 0;
        for (FileInfo t : files("tmp")) {
            if (now - t.modifiedMs() > STALE_TMP_MS && Files.deleteIfExists(t.path())) {
                tmpRemoved++;
            }
        }
        List<FileInfo> entries = new ArrayList<>(files("ac"));
        List<FileInfo> blobs = files("cas");
        long before = sum(entries) + sum(blobs);
        entries.sort(Comparator.comparingLong(FileInfo::modifiedMs));
        Map<String, Integer> references = new HashMap<>();
        Map<Path, Set<String>> named = new HashMap<>();
        for (FileInfo e : entries) {
            Set<String> names = namedBlobs(e.path());
            named.put(e.path(), names);
            names.forEach(n -> references.merge(n, 1, Integer::sum));
        }
        Map<String, FileInfo> blobByName = new HashMap<>();
        blobs.forEach(b -> blobByName.put(b.path().getFileName().toString(), b));
        long size = before;
        int entriesRemoved = 0;
        int blobsRemoved = 0;
        // blobs no entry names (a build killed between its blobs and its entry), unless a build may be writing it now
        for (FileInfo b : blobs) {
            String name = b.path().getFileName().toString();
            if (size > maxBytes && !references.containsKey(name) && now - b.modifiedMs() > STALE_TMP_MS
                    && Files.deleteIfExists(b.path())) {
                blobByName.remove(name);
                size -= b.size();
                blobsRemoved++;
            }
        }
        for (FileInfo oldest : entries) {
            if (size <= maxBytes) {
                break;
            }
            Files.deleteIfExists(oldest.path());
            size -= oldest.size();
            entriesRemoved++;
            for (String name : named.get(oldest.path())) {
                if (references.merge(name, -1, Integer::sum) == 0) {
                    FileInfo blob = blobByName.remove(name);
                    if (blob != null && Files.deleteIfExists(blob.path())) {
                        size -= blob.size();
                        blobsRemoved++;
                    }
                }
            }
        }
        return new Pruned(entriesRemoved, blobsRemoved, tmpRemoved, before, size);
    }

    /** Reads every entry and checks every blob against its name; removes nothing. */
    public Verified verify() throws IOException {
        List<String> problems = new ArrayList<>();
        List<FileInfo> entries = files("ac");
        Set<String> blobNames = new HashSet<>();
        List<FileInfo> blobs = files("cas");
        for (FileInfo b : blobs) {
            String name = b.path().getFileName().toString();
            blobNames.add(name);
            if (!Digests.isDigest(name) || !Digests.ofFile(b.path()).equals(name)) {
                problems.add("blob " + b.path() + " does not match its name");
            }
        }
        for (FileInfo e : entries) {
            String key = e.path().getFileName().toString();
            try {
                ActionEntry entry = ActionEntry.fromJson(Files.readAllBytes(e.path()), key);
                for (ActionEntry.StoredArtifact a : entry.artifacts()) {
                    if (!blobNames.contains(a.sha256())) {
                        problems.add("entry " + key + " names the missing blob " + a.sha256() + " (" + a.path() + ")");
                    }
                }
            } catch (IOException ex) {
                problems.add("entry " + e.path() + ": " + ex.getMessage());
            }
        }
        return new Verified(entries.size(), blobs.size(), problems);
    }

    /** The blobs an entry names; none when it cannot be read (it is refused when used). */
    private static Set<String> namedBlobs(Path entry) {
        Set<String> named = new HashSet<>();
        try {
            JsonNode node = JSON.readTree(entry.toFile());
            node.path("artifacts").forEach(a -> named.add(a.path("sha256").asText()));
            if (node.has("log")) {
                named.add(node.path("log").path("sha256").asText());
            }
        } catch (IOException e) {
            // named nothing
        }
        return named;
    }

    private List<FileInfo> files(String kind) throws IOException {
        Path dir = root.resolve(kind);
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return List.of();
        }
        List<FileInfo> out = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(dir, 2)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                BasicFileAttributes a;
                try {
                    a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                } catch (IOException e) {
                    continue; // removed meanwhile
                }
                if (a.isRegularFile()) {
                    out.add(new FileInfo(p, a.size(), a.lastModifiedTime().toMillis()));
                }
            }
        }
        return out;
    }

    private static long sum(List<FileInfo> files) {
        return files.stream().mapToLong(FileInfo::size).sum();
    }
}
