package org.archpool.worker;

import java.io.PrintStream;
import java.time.Clock;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/**
 * A worker's own diagnostics: one line each on its stderr, which the coordinator keeps as the worker's log
 * file ({@code <log-dir>/workers/<id>.stderr.log}), in the coordinator log's format. A worker JVM carries no
 * logging framework: configuring one was the largest part of its start-up (see docs/performance.md).
 */
public final class WorkerLog {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

    private final PrintStream err;
    private final Clock clock;

    /** @param clock the time of day for each line; null for this machine's, looked up when needed */
    public WorkerLog(PrintStream err, Clock clock) {
        this.err = err;
        this.clock = clock;
    }

    /** To this process's stderr, with the local time of day (the time zone is looked up at the first line). */
    public static WorkerLog stderr() {
        return new WorkerLog(System.err, null);
    }

    public void warn(String message) {
        line("WARN ", message);
    }

    public void error(String message) {
        line("ERROR", message);
    }

    /** An error with the exception's stack trace, for what should never happen. */
    public void error(String message, Throwable t) {
        synchronized (err) {
            line("ERROR", message);
            t.printStackTrace(err);
        }
    }

    private void line(String level, String message) {
        Clock c = clock != null ? clock : Clock.system(ZoneId.systemDefault());
        err.println(LocalTime.now(c).format(TIME) + " " + level + " [" + Thread.currentThread().getName()
                + "] worker: " + message);
    }
}
