package org.archpool.orchestrator.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rename replaces only a regular file, even one that became something else after the check before the build. */
class AtomicFileTest {

    @TempDir
    Path dir;

    @Test
    void aRegularFileIsReplacedWhole() throws Exception {
        Path file = Files.writeString(dir.resolve("r.json"), "old");
        AtomicFile.write(file, "new".getBytes(StandardCharsets.UTF_8));
        assertThat(Files.readString(file)).isEqualTo("new");
        try (var left = Files.list(dir)) {
            assertThat(left).as("no temporary file left").containsExactly(file);
        }
    }

    @Test
    void aLinkThatAppearedIsLeftAsItIs() throws Exception {
        Path victim = Files.writeString(dir.resolve("victim"), "precious");
        Path link = Files.createSymbolicLink(dir.resolve("r.json"), victim);
        assertThatThrownBy(() -> AtomicFile.write(link, "new".getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("a symbolic link appeared at the path during the build");
        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(Files.readString(victim)).isEqualTo("precious");
        try (var left = Files.list(dir)) {
            assertThat(left).as("no temporary file left").containsExactlyInAnyOrder(victim, link);
        }
    }

    @Test
    @Tag("process")
    void aFifoThatAppearedIsLeftAsItIs() throws Exception {
        Path fifo = dir.resolve("r.json");
        Process p = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        assertThatThrownBy(() -> AtomicFile.write(fifo, "new".getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("a named pipe (FIFO) appeared at the path during the build");
        assertThat(PathKind.of(fifo)).isEqualTo(PathKind.FIFO);
    }
}
