package org.archpool.orchestrator.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileHashesTest {

    @TempDir
    Path dir;

    private static Clock at(Instant instant) {
        return Clock.fixed(instant, ZoneOffset.UTC);
    }

    @Test
    void aDigestIsTheSha256OfTheBytes() throws Exception {
        Path f = Files.writeString(dir.resolve("a.cu"), "kernel");
        assertThat(new FileHashes(null, Clock.systemUTC()).digest(f)).isEqualTo(Digests.of("kernel"));
    }

    @Test
    void aRememberedDigestIsReusedWhileTheStatIsTheSame() throws Exception {
        Path f = Files.writeString(dir.resolve("a.cu"), "kernel");
        Path store = dir.resolve("file-hashes");
        Clock later = at(Instant.now().plus(Duration.ofMinutes(1)));
        FileHashes first = new FileHashes(store, later);
        first.digest(f);
        first.save();
        assertThat(Files.readString(store)).contains(Digests.of("kernel")).contains(f.toString());
        // a forged line for the same stat proves the next process reads it instead of hashing
        String forged = Files.readString(store).replace(Digests.of("kernel"), Digests.of("forged"));
        Files.writeString(store, forged);
        assertThat(new FileHashes(store, later).digest(f)).isEqualTo(Digests.of("forged"));
    }

    @Test
    void aChangedFileIsHashedAgain() throws Exception {
        Path f = Files.writeString(dir.resolve("a.cu"), "kernel");
        Path store = dir.resolve("file-hashes");
        Clock later = at(Instant.now().plus(Duration.ofMinutes(1)));
        FileHashes hashes = new FileHashes(store, later);
        hashes.digest(f);
        Files.writeString(f, "kernel 2");
        assertThat(hashes.digest(f)).isEqualTo(Digests.of("kernel 2"));
    }

    @Test
    void aFileModifiedJustBeforeItWasHashedIsNotRemembered() throws Exception {
        Path f = Files.writeString(dir.resolve("a.cu"), "kernel");
        Path store = dir.resolve("file-hashes");
        FileHashes hashes = new FileHashes(store, Clock.systemUTC());
        hashes.digest(f);
        hashes.save();
        assertThat(store).doesNotExist();
    }

    @Test
    void aDamagedStoreCostsOnlyHashingAgain() throws Exception {
        Path f = Files.writeString(dir.resolve("a.cu"), "kernel");
        Path store = Files.write(dir.resolve("file-hashes"), "garbage\tline\n\u0000\n".getBytes(StandardCharsets.UTF_8));
        assertThat(new FileHashes(store, Clock.systemUTC()).digest(f)).isEqualTo(Digests.of("kernel"));
    }
}
