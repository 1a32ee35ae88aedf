package org.archpool.worker.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job's log: what it keeps under and over its cap, that every write is in the file at once, and that it
 * never writes through anything but a regular file of its own.
 */
class JobLogTest {

    @TempDir
    Path dir;

    private static byte[] numbered(int from, int count) {
        StringBuilder b = new StringBuilder();
        for (int i = from; i < from + count; i++) {
            b.append(String.format("line %07d\n", i)); // 13 bytes a line
        }
        return b.toString().getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void underItsCapTheLogIsExactlyWhatWasWritten() throws IOException {
        Path file = dir.resolve("a.log");
        byte[] all = numbered(0, 300);
        try (JobLog log = JobLog.open(file, 8192L, () -> { })) {
            log.write(all, 0, 2000);
            log.write(all, 2000, all.length - 2000);
        }
        assertThat(Files.readAllBytes(file)).isEqualTo(all);
    }

    @Test
    void overItsCapTheLogKeepsTheHeadAndTheTailAndSaysExactlyWhatWasCut() throws IOException {
        Path file = dir.resolve("a.log");
        long cap = 8192;
        byte[] all = numbered(0, 10_000);
        try (JobLog log = JobLog.open(file, cap, () -> { })) {
            // writes of every size, some longer than the ring, some crossing its end
            int[] sizes = {1, 7, 4096, 13, 9000, 3, 65536, 100, 1};
            int at = 0;
            for (int i = 0; at < all.length; i++) {
                int n = Math.min(sizes[i % sizes.length], all.length - at);
                log.write(all, at, n);
                at += n;
            }
            assertThat(log.written()).isEqualTo(all.length);
        }
        byte[] kept = Files.readAllBytes(file);
        assertThat((long) kept.length).isEqualTo(cap);
        int head = (int) cap / 2;
        int tail = (int) cap - head - JobLog.MARKER_BYTES;
        String marker = new String(kept, head, JobLog.MARKER_BYTES, StandardCharsets.US_ASCII);
        assertThat(new String(kept, 0, head, StandardCharsets.US_ASCII))
                .isEqualTo(new String(all, 0, head, StandardCharsets.US_ASCII));
        assertThat(new String(kept, head + JobLog.MARKER_BYTES, tail, StandardCharsets.US_ASCII))
                .isEqualTo(new String(all, all.length - tail, tail, StandardCharsets.US_ASCII));
        long cut = all.length - head - tail;
        assertThat(marker).startsWith("\n# archpool: " + cut + " bytes of output cut here (bytes " + head + " to "
                + (all.length - tail) + " of " + all.length + ")").contains("--max-log-size 8 KiB")
                .contains("raise it with --max-log-size").endsWith("\n");
    }

    @Test
    void everyWriteIsInTheFileAtOnce() throws IOException {
        Path file = dir.resolve("a.log");
        try (JobLog log = JobLog.open(file, null, () -> { })) {
            log.write("first line\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(Files.readString(file)).isEqualTo("first line\n");
        }
    }

    @Test
    void aSymbolicLinkAtTheLogPathIsNeitherFollowedNorReplaced() throws IOException {
        Path victim = dir.resolve("victim");
        Files.writeString(victim, "precious");
        Path file = dir.resolve("a.log");
        Files.createSymbolicLink(file, victim);
        assertThatThrownBy(() -> JobLog.open(file, null, () -> { })).isInstanceOf(IOException.class)
                .hasMessageContaining("the job log " + file + " is a symbolic link, not a regular file")
                .hasMessageContaining("remove it");
        assertThat(Files.readString(victim)).isEqualTo("precious");
        assertThat(Files.isSymbolicLink(file)).isTrue();

        Path dangling = dir.resolve("b.log");
        Files.createSymbolicLink(dangling, dir.resolve("would-be-created"));
        assertThatThrownBy(() -> JobLog.open(dangling, null, () -> { })).hasMessageContaining("symbolic link");
        assertThat(dir.resolve("would-be-created")).doesNotExist();
    }

    @Test
    void aFolderAtTheLogPathIsRefused() throws IOException {
        Path file = Files.createDirectory(dir.resolve("a.log"));
        assertThatThrownBy(() -> JobLog.open(file, null, () -> { })).hasMessageContaining("is a folder");
    }

    @Test
    void anOldLogIsReplacedNotTruncatedSoAFileLinkedToItIsUntouched() throws IOException {
        Path other = dir.resolve("other");
        Files.writeString(other, "someone else's");
        Path file = dir.resolve("a.log");
        Files.createLink(file, other);
        try (JobLog log = JobLog.open(file, null, () -> { })) {
            log.write("new".getBytes(StandardCharsets.US_ASCII));
        }
        assertThat(Files.readString(file)).isEqualTo("new");
        assertThat(Files.readString(other)).isEqualTo("someone else's");
    }

    @Test
    void aWriteAfterCloseOrFailureIsDiscardedAndTheFailureRunsItsActionOnce() throws IOException {
        Path file = dir.resolve("a.log");
        AtomicInteger failures = new AtomicInteger();
        JobLog log = JobLog.open(file, null, failures::incrementAndGet);
        log.close();
        log.write("late".getBytes(StandardCharsets.US_ASCII));
        assertThat(Files.readString(file)).isEmpty();
        assertThat(log.failure()).isEmpty();
        assertThat(failures).hasValue(0);
    }
}
