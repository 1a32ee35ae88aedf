package org.archpool.orchestrator.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
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

    @Test
    void aFileChangedOnceTheBuildHadBegunOrGoneIsNamedAndNothingElse() throws Exception {
        Path during = Files.writeString(dir.resolve("during.h"), "#define B 1\n");
        Files.setAttribute(during, "lastModifiedTime", FileTime.fromMillis(0)); // an old mtime does not hide it
        long began = ((FileTime) Files.getAttribute(during, "unix:ctime")).toMillis();
        Path untouched = Path.of(System.getProperty("java.home"), "release"); // changed long before

        assertThat(ReadSet.changedSince(List.of(untouched), began)).isEmpty();
        assertThat(ReadSet.changedSince(List.of(untouched, during), began)).contains(during);
        assertThat(ReadSet.changedSince(List.of(untouched, dir.resolve("gone.h")), began))
                .contains(dir.resolve("gone.h"));
    }
}
