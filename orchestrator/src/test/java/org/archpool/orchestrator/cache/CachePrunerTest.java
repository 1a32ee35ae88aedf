package org.archpool.orchestrator.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CachePrunerTest {

    @TempDir
    Path dir;

    private DiskCache cache;
    private CachePruner pruner;

    @BeforeEach
    void setUp() throws Exception {
        cache = DiskCache.open(dir.resolve("cache"), Clock.systemUTC());
        pruner = new CachePruner(cache, Clock.systemUTC());
    }

    /** An entry naming one blob of {@code size} bytes (its own, or {@code shared}), last used {@code ageS} ago. */
    private String entry(String name, int size, String shared, long ageS) throws Exception {
        String sha;
        if (shared != null) {
            sha = shared;
        } else {
            Path file = Files.write(dir.resolve(name + ".bin"), new byte[size]);
            Files.writeString(file, name, java.nio.file.StandardOpenOption.APPEND);
            sha = Digests.ofFile(file);
            cache.writeBlob(sha, file);
            Files.setLastModifiedTime(cache.blobPath(sha), FileTime.fromMillis(System.currentTimeMillis() - ageS * 1000));
        }
        String key = Digests.of(name);
        ActionEntry e = new ActionEntry(ActionKey.VERSION, key, name, "cuda", List.of("90"), 0, 1, null,
                List.of(new ActionEntry.StoredArtifact("/b/" + name, sha, size, false, List.of(), List.of())), null);
        cache.writeAction(key, e.toJson());
        Files.setLastModifiedTime(cache.actionPath(key), FileTime.fromMillis(System.currentTimeMillis() - ageS * 1000));
        return sha;
    }

    @Test
    void theLeastRecentlyUsedEntriesGoFirstWithTheBlobsOnlyTheyNamed() throws Exception {
        String oldBlob = entry("old", 10_000, null, 300);
        String sharedBlob = entry("middle", 10_000, null, 200);
        entry("sharing", 10_000, sharedBlob, 150);
        entry("new", 10_000, null, 100);

        CachePruner.Stats before = pruner.stats();
        assertThat(before.entries()).isEqualTo(4);
        assertThat(before.blobs()).isEqualTo(3);

        CachePruner.Pruned pruned = pruner.prune(before.totalBytes() - 1);

        assertThat(pruned.entries()).isEqualTo(1);
        assertThat(pruned.blobs()).isEqualTo(1);
        assertThat(cache.actionPath(Digests.of("old"))).doesNotExist();
        assertThat(cache.blobPath(oldBlob)).doesNotExist();
        assertThat(cache.actionPath(Digests.of("middle"))).exists();
        assertThat(pruned.bytesAfter()).isLessThan(before.totalBytes());

        // the middle entry goes next, but its blob stays while "sharing" still names it
        pruner.prune(pruner.stats().totalBytes() - 1);
        assertThat(cache.actionPath(Digests.of("middle"))).doesNotExist();
        assertThat(cache.blobPath(sharedBlob)).exists();
        assertThat(pruner.verify().problems()).isEmpty();
    }

    @Test
    void pruningToNothingEmptiesTheCache() throws Exception {
        entry("a", 100, null, 10);
        entry("b", 100, null, 5);
        CachePruner.Pruned pruned = pruner.prune(0);
        assertThat(pruned.bytesAfter()).isZero();
        assertThat(pruner.stats().entries()).isZero();
        assertThat(pruner.stats().blobs()).isZero();
    }

    @Test
    void verifyNamesADamagedBlobAndAnEntryWhoseBlobIsGone() throws Exception {
        String damaged = entry("a", 100, null, 10);
        String gone = entry("b", 100, null, 10);
        Files.writeString(cache.blobPath(damaged), "flipped");
        Files.delete(cache.blobPath(gone));
        List<String> problems = pruner.verify().problems();
        assertThat(problems).anySatisfy(p -> assertThat(p).contains(damaged).contains("does not match its name"));
        assertThat(problems).anySatisfy(p -> assertThat(p).contains("names the missing blob " + gone));
    }

    @Test
    void staleTemporaryFilesOfAKilledBuildAreRemoved() throws Exception {
        Path stale = Files.writeString(cache.root().resolve("tmp/123-abc"), "half a blob");
        Files.setLastModifiedTime(stale, FileTime.fromMillis(System.currentTimeMillis() - 2 * CachePruner.STALE_TMP_MS));
        Path fresh = Files.writeString(cache.root().resolve("tmp/456-def"), "being written");
        assertThat(pruner.prune(Long.MAX_VALUE).temporaryFiles()).isEqualTo(1);
        assertThat(stale).doesNotExist();
        assertThat(fresh).exists();
    }
}
