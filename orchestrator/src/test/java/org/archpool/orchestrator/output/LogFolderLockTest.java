package org.archpool.orchestrator.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One build per log folder: the lock, who holds it, and its release. */
class LogFolderLockTest {

    private static final Instant SINCE = Instant.parse("2026-01-02T03:04:05Z");

    @TempDir
    Path dir;

    private LogLayout layout() {
        return new LogLayout(dir.resolve("logs"));
    }

    private LogFolderLock.Holder me() {
        return LogFolderLock.Holder.thisProcess(SINCE, dir.resolve("m.json"));
    }

    @Test
    void theHolderIsWrittenAndTheFoldersMade() throws Exception {
        try (LogFolderLock lock = LogFolderLock.acquire(layout(), me())) {
            String text = Files.readString(layout().lockFile());
            assertThat(LogFolderLock.Holder.parse(text)).isEqualTo(me());
            assertThat(text).contains("pid=" + ProcessHandle.current().pid()).contains("since=2026-01-02T03:04:05Z");
            assertThat(layout().workerLogs()).isDirectory();
        }
    }

    @Test
    void aSecondHoldIsRefusedUntilTheFirstIsReleased() throws Exception {
        LogFolderLock first = LogFolderLock.acquire(layout(), me());
        assertThatThrownBy(() -> LogFolderLock.acquire(layout(), me())).isInstanceOf(OutputPathException.class)
                .hasMessageContaining("the log folder " + layout().folder() + " is in use by another build in this"
                        + " same process").hasMessageContaining("--log-dir DIR");
        first.close();
        LogFolderLock.acquire(layout(), me()).close();
        assertThat(layout().lockFile()).as("the file stays; only the lock matters").exists();
    }

    @Test
    void aLinkAtTheLockIsNotFollowed() throws Exception {
        Files.createDirectories(layout().folder());
        Path victim = Files.writeString(dir.resolve("victim"), "precious");
        Files.createSymbolicLink(layout().lockFile(), victim);
        assertThatThrownBy(() -> LogFolderLock.acquire(layout(), me())).isInstanceOf(OutputPathException.class)
                .hasMessageContaining("cannot use the log folder");
        assertThat(Files.readString(victim)).isEqualTo("precious");
    }

    @Test
    void aHolderThatHasNotWrittenItselfYetIsNamedAsUnknown() {
        assertThat(LogFolderLock.Holder.parse("")).isNull();
        assertThat(LogFolderLock.Holder.parse("pid=12\nhost=h\n")).isNull();
    }

    /** Another process holds the lock (a POSIX record lock, as two builds would), then dies by SIGKILL. */
    @Test
    @Tag("process")
    void anotherProcessIsNamedAndItsDeathReleasesTheLock() throws Exception {
        Files.createDirectories(layout().folder());
        Path holder = Files.writeString(dir.resolve("Hold.java"), """
                import java.nio.channels.FileChannel;
                import java.nio.file.*;
                public class Hold {
                    public static void main(String[] a) throws Exception {
                        FileChannel c = FileChannel.open(Path.of(a[0]), StandardOpenOption.CREATE,
                                StandardOpenOption.WRITE, StandardOpenOption.READ);
                        c.lock();
                        c.write(java.nio.ByteBuffer.wrap(("pid=" + ProcessHandle.current().pid()
                                + "\\nhost=elsewhere\\nsince=2026-01-01T00:00:00Z\\nmanifest=/other/m.json\\n").getBytes()));
                        System.out.println("locked");
                        System.in.read();
                    }
                }
                """);
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(java, holder.toString(), layout().lockFile().toString()).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            assertThat(out.readLine()).isEqualTo("locked");
            assertThatThrownBy(() -> LogFolderLock.acquire(layout(), me())).isInstanceOf(OutputPathException.class)
                    .hasMessageContaining("is in use by another archpool build: pid " + p.pid() + " on elsewhere,"
                            + " since 2026-01-01T00:00:00Z, building /other/m.json");
            p.destroyForcibly();
            assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
            LogFolderLock.acquire(layout(), me()).close();
        } finally {
            p.destroyForcibly();
        }
    }
}
