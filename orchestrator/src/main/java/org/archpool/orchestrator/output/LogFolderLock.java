package org.archpool.orchestrator.output;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One build's hold on its log folder, for the build's whole life: an exclusive {@link FileChannel#tryLock} on
 * {@value LogLayout#LOCK_FILE} in the folder (a POSIX record lock, which the kernel releases when the process
 * ends, however it ends). The file says who holds it: pid, host, start time and manifest, so that a second build
 * on the same folder is refused naming the first. The file stays when the lock is released; only the lock
 * matters, never the file's existence or contents. The lock is advisory, and on a network file system it is only
 * as good as the file system's locking.
 */
public final class LogFolderLock implements AutoCloseable {

    /**
     * Who holds a log folder.
     *
     * @param pid      the build's process id
     * @param host     the machine it runs on
     * @param since    when it took the lock
     * @param manifest the manifest it builds
     */
    public record Holder(long pid, String host, Instant since, String manifest) {

        public Holder {
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(since, "since");
            Objects.requireNonNull(manifest, "manifest");
        }

        /** This process on this machine, building {@code manifest}, from {@code now} on. */
        public static Holder thisProcess(Instant now, Path manifest) {
            String host;
            try {
                // not InetAddress.getLocalHost(), which can stall for seconds without DNS
                host = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
            } catch (IOException e) {
                host = "an unknown host";
            }
            return new Holder(ProcessHandle.current().pid(), host, now, manifest.toString());
        }

        String text() {
            return "pid=" + pid + "\nhost=" + oneLine(host) + "\nsince=" + since + "\nmanifest=" + oneLine(manifest)
                    + "\n";
        }

        /** What a lock file says, or null when it does not say it whole (its holder may be writing it). */
        static Holder parse(String text) {
            Map<String, String> fields = new LinkedHashMap<>();
            for (String line : text.split("\n")) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    fields.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
            try {
                return new Holder(Long.parseLong(fields.get("pid")), fields.get("host"),
                        Instant.parse(fields.get("since")), fields.get("manifest"));
            } catch (RuntimeException e) {
                return null;
            }
        }

        private static String oneLine(String s) {
            return s.replace('\n', ' ');
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(LogFolderLock.class);
    private static final int MAX_HOLDER_BYTES = 8192;

    private final FileChannel channel;
    private final FileLock lock;

    private LogFolderLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Creates the folder and its workers' folder if missing and locks it for {@code me}.
     *
     * @throws OutputPathException when another build holds it, or the folder or lock file cannot be made
     */
    public static LogFolderLock acquire(LogLayout layout, Holder me) throws OutputPathException {
        Path folder = layout.folder();
        FileChannel channel;
        try {
            Files.createDirectories(folder);
            channel = FileChannel.open(layout.lockFile(), StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            throw new OutputPathException("cannot use the log folder " + folder + ": " + FileErrors.describe(e)
                    + "; give --log-dir a folder you can write");
        }
        try {
            FileLock lock = channel.tryLock();
            if (lock == null) {
                Holder holder = Holder.parse(read(channel));
                channel.close();
                throw inUse(folder, holder);
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(me.text().getBytes(StandardCharsets.UTF_8)), 0);
            Files.createDirectories(layout.workerLogs());
            return new LogFolderLock(channel, lock);
        } catch (OverlappingFileLockException e) {
            closeQuietly(channel, e);
            throw inUse(folder, me);
        } catch (IOException e) {
            closeQuietly(channel, e);
            throw new OutputPathException("cannot use the log folder " + folder + ": " + FileErrors.describe(e)
                    + "; give --log-dir a folder you can write, on a file system that supports locks");
        }
    }

    /**
     * Releases the lock; the lock file stays. A failure to release is only logged: the build's outcome stands, and
     * the kernel releases the lock when the process ends anyway.
     */
    @Override
    public void close() {
        try {
            if (lock.isValid()) {
                lock.release();
            }
            channel.close();
        } catch (IOException e) {
            LOG.warn("cannot release the lock on the log folder ({}); it is released when archpool exits",
                    FileErrors.describe(e));
        }
    }

    private static OutputPathException inUse(Path folder, Holder holder) {
        String who = holder == null ? "another archpool build (which has not yet written who it is)"
                : holder.pid() == ProcessHandle.current().pid() ? "another build in this same process"
                : "another archpool build: pid " + holder.pid() + " on " + holder.host() + ", since " + holder.since()
                + ", building " + holder.manifest();
        return new OutputPathException("the log folder " + folder + " is in use by " + who + ". Two builds writing"
                + " one log folder overwrite each other's logs: wait for that build to end, or give this one a log"
                + " folder of its own with --log-dir DIR");
    }

    private static String read(FileChannel channel) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(MAX_HOLDER_BYTES);
        long position = 0;
        while (buffer.hasRemaining()) {
            int n = channel.read(buffer, position);
            if (n < 0) {
                break;
            }
            position += n;
        }
        return new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8);
    }

    private static void closeQuietly(FileChannel channel, Exception cause) {
        try {
            channel.close();
        } catch (IOException e) {
            cause.addSuppressed(e);
        }
    }
}
