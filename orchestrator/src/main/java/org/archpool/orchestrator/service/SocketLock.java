package org.archpool.orchestrator.service;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.archpool.orchestrator.output.FileErrors;
import org.archpool.orchestrator.output.OutputPathException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code serve}'s hold on its socket's path, for its whole life: an exclusive {@link FileChannel#tryLock} on
 * {@code PATH.lock} beside the socket (a POSIX record lock, which the kernel releases when the process ends, even
 * by SIGKILL). Whoever holds it alone may remove, replace and bind the socket, so two {@code serve}s that start at
 * once on one path cannot both take a missing or stale socket for theirs, nor one remove the other's: the second
 * is refused at once, naming the first. The file stays when the lock is released (removing it would let two
 * {@code serve}s lock two different files of one name); only the lock matters, its text ({@code pid=N}) only names
 * the holder.
 */
final class SocketLock implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SocketLock.class);
    private static final int MAX_TEXT_BYTES = 256;

    private final FileChannel channel;
    private final FileLock lock;

    private SocketLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** The lock file of the socket at {@code socket}: {@code PATH.lock}. */
    static Path fileOf(Path socket) {
        return socket.resolveSibling(socket.getFileName() + ".lock");
    }

    /**
     * Locks {@code PATH.lock} (created with mode 0600 if missing) for this process.
     *
     * @param given the path as the user gave it, for messages
     * @throws OutputPathException when another {@code serve} holds it, or it cannot be made or locked
     */
    static SocketLock acquire(Path given, Path socket) throws OutputPathException {
        Path file = fileOf(socket);
        FileChannel channel;
        try {
            Set<OpenOption> options = Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
            channel = FileChannel.open(file, options, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rw-------")));
        } catch (IOException e) {
            throw new OutputPathException("--socket " + given + ": cannot open its lock file " + file + ": "
                    + FileErrors.describe(e) + "; give a path in a folder of your own that you can write");
        }
        try {
            FileLock lock = channel.tryLock();
            if (lock == null) {
                String holder = holder(channel);
                channel.close();
                throw inUse(given, file, holder);
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(("pid=" + ProcessHandle.current().pid() + "\n")
                    .getBytes(StandardCharsets.UTF_8)), 0);
            return new SocketLock(channel, lock);
        } catch (OverlappingFileLockException e) {
            close(channel);
            throw inUse(given, file, "pid " + ProcessHandle.current().pid() + " (this same process)");
        } catch (IOException e) {
            close(channel);
            throw new OutputPathException("--socket " + given + ": cannot lock " + file + ": " + FileErrors.describe(e)
                    + "; give a path on a local file system that supports locks, e.g. in $XDG_RUNTIME_DIR or /tmp");
        }
    }

    /** Releases the lock; the file stays. */
    @Override
    public void close() {
        try {
            if (lock.isValid()) {
                lock.release();
            }
            channel.close();
        } catch (IOException e) {
            LOG.warn("cannot release the lock beside the socket ({}); it is released when archpool exits",
                    FileErrors.describe(e));
        }
    }

    private static OutputPathException inUse(Path given, Path file, String holder) {
        return new OutputPathException("--socket " + given + ": another archpool serve, " + holder + ", is starting"
                + " or running on that socket (it holds " + file + "); stop it with 'archpool serve --socket " + given
                + " --stop' once it listens, or give another path");
    }

    /** Who the lock file names: {@code pid N}, or words for a holder that has not written it yet. */
    private static String holder(FileChannel channel) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(MAX_TEXT_BYTES);
        channel.read(buffer, 0);
        String text = new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8).strip();
        return text.matches("pid=[0-9]+") ? "pid " + text.substring(4) : "which has not yet written its pid";
    }

    private static void close(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("closing the lock file after a failed lock: {}", e.toString());
        }
    }
}
