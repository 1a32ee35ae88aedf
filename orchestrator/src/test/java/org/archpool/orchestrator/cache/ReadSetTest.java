package org.archpool.orchestrator.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A read set holds each file's digest, through links, and names the first file that changed or is gone. */
class ReadSetTest {

    @TempDir
    Path dir;

    @Test
    void theFirstChangedOrMissingFileIsNamed() throws Exception {
        Path a = Files.writeString(dir.resolve("a.h"), "#define A 1\n");
        Path b = Files.writeString(dir.resolve("b.h"), "#define B 1\n");
        Path link = Files.createSymbolicLink(dir.resolve("link.h"), b);
        ReadSet set = ReadSet.hash(List.of(link, b, a), new FileHashes(null, Clock.systemUTC()));

        assertThat(set.files()).extracting(ReadSet.Read::path).containsExactly(a.toString(), b.toString(),
                link.toString());
        assertThat(set.isWellFormed()).isTrue();
        assertThat(set.firstChange(new FileHashes(null, Clock.systemUTC()))).isEmpty();

        Files.writeString(b, "#define B 2\n");
        assertThat(set.firstChange(new FileHashes(null, Clock.systemUTC()))).contains(b + " changed");
        Files.delete(a);
        assertThat(set.firstChange(new FileHashes(null, Clock.systemUTC()))).contains(a + " is gone");
    }
}
