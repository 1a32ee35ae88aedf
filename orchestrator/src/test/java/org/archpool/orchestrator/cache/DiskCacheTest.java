package org.archpool.orchestrator.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Clock;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiskCacheTest {

    @TempDir
    Path dir;

    @Test
    void aNewFolderIsPrivate() throws Exception {
        DiskCache cache = DiskCache.open(dir.resolve("a/b/cache"), Clock.systemUTC());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(cache.root()))).isEqualTo("rwx------");
        assertThat(cache.root().resolve("ac")).isDirectory();
        assertThat(cache.root().resolve("cas")).isDirectory();
    }

    @Test
    void aFolderOthersMayWriteIsRefused() throws Exception {
        Path shared = Files.createDirectories(dir.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThatThrownBy(() -> DiskCache.open(shared, Clock.systemUTC()))
                .isInstanceOf(CacheSetupException.class).hasMessageContaining("may be written by other users")
                .hasMessageContaining("chmod 700");
    }

    @Test
    void aFileIsRefused() throws Exception {
        Path file = Files.writeString(dir.resolve("file"), "x");
        assertThatThrownBy(() -> DiskCache.open(file, Clock.systemUTC()))
                .isInstanceOf(CacheSetupException.class).hasMessageContaining("is not a folder");
    }

    @Test
    void entriesAndBlobsRoundTripAndLeaveNoTemporaryFile() throws Exception {
        DiskCache cache = DiskCache.open(dir.resolve("cache"), Clock.systemUTC());
        String key = Digests.of("key");
        assertThat(cache.readAction(key)).isNull();
        cache.writeAction(key, "{}".getBytes(StandardCharsets.UTF_8));
        assertThat(cache.readAction(key)).asString(StandardCharsets.UTF_8).isEqualTo("{}");
        Path artifact = Files.writeString(dir.resolve("lib.a"), "archive");
        String sha = Digests.ofFile(artifact);
        assertThat(cache.hasBlob(sha)).isFalse();
        cache.writeBlob(sha, artifact);
        assertThat(cache.hasBlob(sha)).isTrue();
        Path back = dir.resolve("back");
        assertThat(cache.readBlob(sha, 7, back)).isTrue();
        assertThat(back).hasContent("archive");
        assertThat(cache.readBlob(Digests.of("absent"), 1, dir.resolve("none"))).isFalse();
        try (Stream<Path> tmp = Files.list(cache.root().resolve("tmp"))) {
            assertThat(tmp).isEmpty();
        }
    }

    @Test
    void aBlobOfAnotherSizeThanItsEntryRecordsIsRefusedAndLeavesNoFile() throws Exception {
        DiskCache cache = DiskCache.open(dir.resolve("cache"), Clock.systemUTC());
        Path artifact = Files.writeString(dir.resolve("lib.a"), "archive");
        String sha = Digests.ofFile(artifact);
        cache.writeBlob(sha, artifact);
        Path back = dir.resolve("back");

        assertThatThrownBy(() -> cache.readBlob(sha, 6, back)).isInstanceOf(CacheBackend.WrongSize.class)
                .hasMessageContaining("is longer than 6 bytes, the size its entry records");
        assertThat(back).doesNotExist();
        assertThatThrownBy(() -> cache.readBlob(sha, 8, back)).isInstanceOf(CacheBackend.WrongSize.class)
                .hasMessageContaining("is only 7 bytes long, not 8 bytes, the size its entry records");
        assertThat(back).doesNotExist();
        assertThatThrownBy(() -> cache.readBlob(sha, 0, back)).isInstanceOf(CacheBackend.WrongSize.class);
        assertThat(back).doesNotExist();
        assertThat(cache.readBlob(sha, 7, back)).isTrue();
        assertThat(back).hasContent("archive");
    }

    @Test
    void aBlobWhoseFileChangesWhileStoredIsRefused() throws Exception {
        DiskCache cache = DiskCache.open(dir.resolve("cache"), Clock.systemUTC());
        Path artifact = Files.writeString(dir.resolve("lib.a"), "archive");
        assertThatThrownBy(() -> cache.writeBlob(Digests.of("something else"), artifact))
                .hasMessageContaining("changed while it was stored");
        assertThat(cache.hasBlob(Digests.of("something else"))).isFalse();
    }

    @Test
    void anEntryOrBlobOfAnotherUserIsNotTrusted() throws Exception {
        DiskCache cache = DiskCache.open(dir.resolve("cache"), Clock.systemUTC());
        String key = Digests.of("key");
        cache.writeAction(key, "{}".getBytes(StandardCharsets.UTF_8));
        Path artifact = Files.writeString(dir.resolve("lib.a"), "archive");
        String sha = Digests.ofFile(artifact);
        cache.writeBlob(sha, artifact);
        UserPrincipal nobody = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        // only root may give a file away: this is what another user's file in the folder looks like
        Files.setOwner(cache.actionPath(key), nobody);
        Files.setOwner(cache.blobPath(sha), nobody);
        assertThat(cache.readAction(key)).isNull();
        assertThat(cache.hasBlob(sha)).isFalse();
        assertThat(cache.readBlob(sha, 7, dir.resolve("back"))).isFalse();
    }

    @Test
    void aLinkInPlaceOfAnEntryIsNotFollowed() throws Exception {
        DiskCache cache = DiskCache.open(dir.resolve("cache"), Clock.systemUTC());
        String key = Digests.of("key");
        Path elsewhere = Files.writeString(dir.resolve("elsewhere"), "{}");
        Files.createDirectories(cache.actionPath(key).getParent());
        Files.createSymbolicLink(cache.actionPath(key), elsewhere);
        assertThat(cache.readAction(key)).isNull();
    }
}
