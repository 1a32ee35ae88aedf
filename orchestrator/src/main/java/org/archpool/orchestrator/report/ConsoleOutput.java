package org.archpool.orchestrator.report;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One of the console's streams (stdout or stderr), written on a thread of its own, so that a terminal or pipe
 * that is not read never stalls the threads that call it: slot threads, the readers of workers' lines, the
 * pool's events, the interrupt hook. Each call only queues text and returns at once.
 *
 * <p>The rules, when the reader is slower than the build:
 * <ul>
 *   <li><b>Progress lines</b> ({@link #progress}: an attempt starting, a phase, a worker starting or dying) are
 *       dropped once {@value #PROGRESS_BACKLOG} of them wait; when the stream has caught up (or at the end), one
 *       line says how many were not shown.</li>
 *   <li><b>The status line</b> ({@link #status}) is drawn as it is when the writer gets to it: only the
 *       latest one is ever drawn.</li>
 *   <li><b>Kept lines</b> ({@link #line}: a finished job, its warnings and log tail, the target) are queued
 *       up to {@code keptLimitChars} characters in all; past that they are counted and dropped too (the report
 *       has every job), so memory stays bounded whatever the reader does.</li>
 * </ul>
 * {@link #finish()} waits until everything queued is written (it blocks for as long as the reader does) and
 * stops the thread; the stream is then the caller's to write to directly.
 */
public final class ConsoleOutput {

    /** How many progress lines may wait before new ones are dropped. */
    static final int PROGRESS_BACKLOG = 256;
    /** How many characters of kept lines may wait, by default: tens of thousands of finished jobs. */
    public static final int DEFAULT_KEPT_LIMIT_CHARS = 4 << 20;

    private static final String CLEAR_LINE = "\r\033[K";

    private record Entry(String text, boolean progress) {
    }

    private final PrintStream stream;
    private final int keptLimitChars;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Condition written = lock.newCondition();
    private final ArrayDeque<Entry> queue = new ArrayDeque<>();
    private final Thread writer;
    private int queuedProgress;
    private long queuedKeptChars;
    private long droppedProgress;
    private long droppedKept;
    /** The status line to draw next; null: none. */
    private String status;
    private boolean statusChanged;
    /** Whether the writer is writing a batch it has taken from the queue. */
    private boolean writing;
    private boolean finishing;
    /** Whether the writer thread has written its last and ended. */
    private boolean exited;

    private ConsoleOutput(PrintStream stream, String name, int keptLimitChars) {
        this.stream = stream;
        this.keptLimitChars = keptLimitChars;
        this.writer = new Thread(this::writeLoop, "archpool-console-" + name);
        this.writer.setDaemon(true);
    }

    /** Starts the writer thread of {@code stream}. */
    public static ConsoleOutput start(PrintStream stream, String name) {
        return start(stream, name, DEFAULT_KEPT_LIMIT_CHARS);
    }

    /** @param keptLimitChars how many characters of kept lines may wait before they are dropped */
    public static ConsoleOutput start(PrintStream stream, String name, int keptLimitChars) {
        ConsoleOutput output = new ConsoleOutput(stream, name, keptLimitChars);
        output.writer.start();
        return output;
    }

    /** Queues a line that matters on its own (a finished job); dropped only past the memory bound, or after {@link #finish()}. */
    public void line(String text) {
        lines(List.of(text));
    }

    /**
     * Queues lines that belong together (a finished job, its warnings and log tail): written one after the other,
     * with no status line between them, or dropped together past the memory bound.
     */
    public void lines(List<String> texts) {
        long chars = texts.stream().mapToLong(String::length).sum();
        lock.lock();
        try {
            if (finishing) {
                return; // nothing is written after the end
            }
            if (queuedKeptChars + chars > keptLimitChars) {
                droppedKept += texts.size();
                return;
            }
            queuedKeptChars += chars;
            texts.forEach(t -> queue.add(new Entry(t, false)));
            changed.signal();
        } finally {
            lock.unlock();
        }
    }

    /** Queues a progress line; dropped when {@value #PROGRESS_BACKLOG} already wait. */
    public void progress(String text) {
        lock.lock();
        try {
            if (finishing) {
                return;
            }
            if (queuedProgress >= PROGRESS_BACKLOG) {
                droppedProgress++;
                return;
            }
            queuedProgress++;
            queue.add(new Entry(text, true));
            changed.signal();
        } finally {
            lock.unlock();
        }
    }

    /** The status line to show below the other lines (on a terminal), replacing the one before. */
    public void status(String text) {
        lock.lock();
        try {
            if (finishing) {
                return;
            }
            status = text;
            statusChanged = true;
            changed.signal();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits up to {@code max} for everything queued so far to be written.
     *
     * @return whether it was
     */
    public boolean drain(Duration max) {
        long left = max.toNanos();
        lock.lock();
        try {
            while (!exited && (!queue.isEmpty() || statusChanged || writing || droppedProgress + droppedKept > 0)) {
                if (left <= 0) {
                    return false;
                }
                left = written.awaitNanos(left);
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Writes everything still queued, clears the status line and stops the writer thread; blocks for as long
     * as the stream does. Later calls queue nothing.
     *
     * @return the stream, now the caller's alone
     */
    public PrintStream finish() {
        lock.lock();
        try {
            finishing = true;
            changed.signal();
        } finally {
            lock.unlock();
        }
        try {
            writer.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return stream;
    }

    private void writeLoop() {
        boolean statusShown = false;
        while (true) {
            List<Entry> batch;
            String draw;
            boolean redraw;
            String notice = null;
            boolean last;
            lock.lock();
            try {
                writing = false;
                written.signalAll();
                while (queue.isEmpty() && !statusChanged && !finishing && droppedProgress + droppedKept == 0) {
                    changed.awaitUninterruptibly();
                }
                batch = new ArrayList<>(queue);
                queue.clear();
                queuedProgress = 0;
                queuedKeptChars = 0;
                draw = status;
                redraw = statusChanged;
                statusChanged = false;
                last = finishing;
                // said once the stream has caught up (nothing left to write), or at the end
                if (droppedProgress + droppedKept > 0 && (batch.isEmpty() || last)) {
                    notice = notice(droppedProgress, droppedKept);
                    droppedProgress = 0;
                    droppedKept = 0;
                }
                writing = true;
            } finally {
                lock.unlock();
            }
            if (statusShown && (!batch.isEmpty() || notice != null || last || redraw)) {
                stream.print(CLEAR_LINE);
                statusShown = false;
            }
            for (Entry e : batch) {
                stream.println(e.text());
            }
            if (notice != null) {
                stream.println(notice);
            }
            if (!last && draw != null) {
                stream.print(CLEAR_LINE + draw);
                statusShown = true;
            }
            stream.flush();
            if (last) {
                lock.lock();
                try {
                    writing = false;
                    exited = true;
                    written.signalAll();
                } finally {
                    lock.unlock();
                }
                return;
            }
        }
    }

    private static String notice(long progress, long kept) {
        List<String> parts = new ArrayList<>();
        if (progress > 0) {
            parts.add(progress + (progress == 1 ? " progress line" : " progress lines"));
        }
        if (kept > 0) {
            parts.add(kept + (kept == 1 ? " line" : " lines") + " about finished jobs");
        }
        return "archpool: " + String.join(" and ", parts) + " not shown: the console's reader was too slow"
                + " (the report has every job)";
    }
}
