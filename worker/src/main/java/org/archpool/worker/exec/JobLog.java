package org.archpool.worker.exec;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * One job's log file, as the stream a step's output is written to.
 *
 * <ul>
 *   <li><b>Created safely</b>: a symbolic link at the path is never followed; an existing regular file is removed
 *       and the log created anew ({@code O_CREAT|O_EXCL}), so no other file is ever written through it; anything
 *       else there (a link, a FIFO, a device, a folder) is refused with a reason ({@link #open}).</li>
 *   <li><b>Written through</b>: every write goes to the file at once, unbuffered, so {@code tail -f} follows a
 *       running job and a worker that dies loses nothing already written.</li>
 *   <li><b>Capped</b>: over {@code maxBytes} the file keeps the first half of the output and the last half; a
 *       line between them says how many bytes were cut, where, and which flag raises the cap. The tail is kept
 *       in the file itself, as a ring that is put back in order when the log is closed, so the cap costs no
 *       memory: a worker's heap is small.</li>
 *   <li><b>Never blocks or breaks the writer</b>: a write that fails (a full disk, a file size limit) is recorded
 *       ({@link #failure()}), {@code onFailure} runs once (it kills the step), and everything written after it is
 *       discarded, so the thread that pumps the step's output keeps draining its pipe and the step can end.</li>
 * </ul>
 * Not thread-safe beyond what a step's one pump thread and the job thread after it need: its methods are
 * synchronized.
 */
public final class JobLog extends OutputStream {

    /** The smallest cap; smaller ones are raised to it, so that the line about the cut fits. */
    public static final long MIN_CAP_BYTES = 4096;
    /** Room reserved for the line that says what was cut: the output there is cut with the rest. */
    static final int MARKER_BYTES = 384;
    private static final int CHUNK = 64 << 10;

    private final Path path;
    private final FileChannel file;
    private final long cap;
    private final long headBytes;
    private final Runnable onFailure;
    /** Every byte the job wrote, kept or not. */
    private long written;
    /** Where the ring that keeps the tail starts in the file, and how long it is; 0 until the cap is reached. */
    private long ringStart;
    private long ringBytes;
    /** The next ring position to write, relative to {@link #ringStart}: also where the oldest tail byte is. */
    private long ringPosition;
    private IOException failure;
    private boolean closed;

    private JobLog(Path path, FileChannel file, long cap, Runnable onFailure) {
        this.path = path;
        this.file = file;
        this.cap = cap;
        this.headBytes = cap / 2;
        this.onFailure = onFailure;
    }

    /**
     * Creates the log at {@code path}, which must not exist or be a regular file (removed first).
     *
     * @param maxBytes  the cap; null for none
     * @param onFailure run once, on the writing thread, when a write first fails
     * @throws IOException with a message for the job's result when the log cannot be created, or the path is a
     *                     link or anything else that is not a regular file
     */
    public static JobLog open(Path path, Long maxBytes, Runnable onFailure) throws IOException {
        BasicFileAttributes existing = null;
        try {
            existing = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException absent) {
            // nothing there: the usual case
        }
        if (existing != null) {
            if (!existing.isRegularFile()) {
                throw new IOException(refusal(path, kind(existing)));
            }
            Files.delete(path);
        }
        FileChannel channel;
        try {
            channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                    StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
        } catch (FileAlreadyExistsException raced) {
            throw new IOException(refusal(path, "something created while the log was being replaced"), raced);
        }
        long cap = maxBytes == null ? Long.MAX_VALUE : Math.max(MIN_CAP_BYTES, maxBytes);
        return new JobLog(path, channel, cap, onFailure);
    }

    private static String refusal(Path path, String what) {
        return "the job log " + path + " is " + what + ", not a regular file; archpool neither follows nor replaces"
                + " it: remove it, or choose another --log-dir";
    }

    private static String kind(BasicFileAttributes attrs) {
        if (attrs.isSymbolicLink()) {
            return "a symbolic link";
        }
        if (attrs.isDirectory()) {
            return "a folder";
        }
        return "a FIFO, socket or device";
    }

    /** The first write that failed, if any; the log holds what was written before it. */
    public synchronized Optional<IOException> failure() {
        return Optional.ofNullable(failure);
    }

    /** How many bytes were written to this log, including those the cap cut. */
    public synchronized long written() {
        return written;
    }

    @Override
    public void write(int b) {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
        if (failure != null || closed || len == 0) {
            return;
        }
        try {
            int done = 0;
            if (written < cap) {
                int straight = (int) Math.min(len, cap - written);
                writeFully(ByteBuffer.wrap(b, off, straight), written);
                done = straight;
            }
            if (done < len) {
                if (ringBytes == 0) {
                    startRing();
                }
                writeRing(b, off + done, len - done);
            }
            written += len;
        } catch (IOException e) {
            failure = e;
            onFailure.run();
        }
    }

    /**
     * The cap is reached: the bytes after the head become a ring that keeps the last bytes written, and the room
     * for the line about the cut holds, until {@link #close}, a line saying that the ring is in wrap-around order.
     */
    private void startRing() throws IOException {
        ringStart = headBytes + MARKER_BYTES;
        ringBytes = cap - ringStart;
        ringPosition = 0;
        writeFully(ByteBuffer.wrap(marker("\n# archpool: the log reached its cap (--max-log-size " + size(cap)
                + ") here; only the last " + size(ringBytes) + " of the output are kept below, in wrap-around"
                + " order until the job ends")), headBytes);
    }

    private void writeRing(byte[] b, int off, int len) throws IOException {
        // only the last ringBytes of a long write can survive it
        if (len > ringBytes) {
            long skip = len - ringBytes;
            ringPosition = (ringPosition + skip) % ringBytes;
            off += (int) skip;
            len = (int) ringBytes;
        }
        while (len > 0) {
            int n = (int) Math.min(len, ringBytes - ringPosition);
            writeFully(ByteBuffer.wrap(b, off, n), ringStart + ringPosition);
            ringPosition = (ringPosition + n) % ringBytes;
            off += n;
            len -= n;
        }
    }

    /** Puts a wrapped tail back in order and says what was cut. Then closes the file. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try (file) {
            if (ringBytes > 0 && failure == null) {
                rotateLeft(ringStart, ringBytes, ringPosition);
                long keptTail = ringBytes;
                long cutFrom = headBytes;
                long cutTo = written - keptTail;
                writeFully(ByteBuffer.wrap(marker("\n# archpool: " + (cutTo - cutFrom) + " bytes of output cut here"
                        + " (bytes " + cutFrom + " to " + cutTo + " of " + written + "): the log keeps the first "
                        + headBytes + " and the last " + keptTail + " bytes, within its cap (--max-log-size "
                        + size(cap) + "); raise it with --max-log-size, e.g. --max-log-size 1G, or 0 for none")),
                        headBytes);
            }
        } catch (IOException e) {
            if (failure == null) {
                failure = e;
            }
        }
    }

    /** {@code text} padded with spaces to exactly {@link #MARKER_BYTES}, ending in a newline. */
    private static byte[] marker(String text) {
        byte[] bytes = new byte[MARKER_BYTES];
        Arrays.fill(bytes, (byte) ' ');
        byte[] t = text.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(t, 0, bytes, 0, Math.min(t.length, MARKER_BYTES - 1));
        bytes[MARKER_BYTES - 1] = '\n';
        return bytes;
    }

    static String size(long bytes) {
        if (bytes % (1L << 30) == 0) {
            return (bytes >> 30) + " GiB";
        }
        if (bytes % (1L << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        if (bytes % (1L << 10) == 0) {
            return (bytes >> 10) + " KiB";
        }
        return String.format(Locale.ROOT, "%d bytes", bytes);
    }

    /** Rotates the file's bytes {@code [start, start + length)} left by {@code by}, in place, in bounded memory. */
    private void rotateLeft(long start, long length, long by) throws IOException {
        if (by == 0) {
            return;
        }
        reverse(start, start + by);
        reverse(start + by, start + length);
        reverse(start, start + length);
    }

    private void reverse(long from, long to) throws IOException {
        ByteBuffer left = ByteBuffer.allocate(CHUNK);
        ByteBuffer right = ByteBuffer.allocate(CHUNK);
        long i = from;
        long j = to;
        while (j - i > 1) {
            int n = (int) Math.min(CHUNK, (j - i) / 2);
            readFully(left.clear().limit(n), i);
            readFully(right.clear().limit(n), j - n);
            reverseBytes(left.array(), n);
            reverseBytes(right.array(), n);
            writeFully(right.flip(), i);
            writeFully(left.flip(), j - n);
            i += n;
            j -= n;
        }
    }

    private static void reverseBytes(byte[] a, int n) {
        for (int x = 0, y = n - 1; x < y; x++, y--) {
            byte t = a[x];
            a[x] = a[y];
            a[y] = t;
        }
    }

    private void readFully(ByteBuffer buffer, long at) throws IOException {
        while (buffer.hasRemaining()) {
            if (file.read(buffer, at + buffer.position()) < 0) {
                throw new IOException("the job log " + path + " is shorter than what was written to it");
            }
        }
    }

    private void writeFully(ByteBuffer buffer, long at) throws IOException {
        long position = at;
        while (buffer.hasRemaining()) {
            position += file.write(buffer, position);
        }
    }
}
