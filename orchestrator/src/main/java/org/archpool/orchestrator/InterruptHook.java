package org.archpool.orchestrator;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.archpool.orchestrator.pool.WorkerPool;
import org.archpool.orchestrator.report.ConsoleOutput;
import org.archpool.orchestrator.schedule.Scheduler;

/**
 * Ctrl-C and SIGTERM during a build: stop dispatching, cancel running jobs (workers kill their process
 * trees), kill workers that do not answer within a grace period, let the build write its report with every
 * unfinished job {@code cancelled}, close the pool (its launcher cancels Slurm steps still starting), then end
 * the process with exit code 130 — all within about 5 seconds.
 */
final class InterruptHook implements AutoCloseable {

    /** Exit code after an interrupt. */
    static final int EXIT_CODE = 130;
    /** How long running jobs get to answer a cancel before their workers are killed. */
    static final Duration CANCEL_GRACE = Duration.ofMillis(2500);
    /** How long the build then gets to write its report. */
    static final Duration REPORT_GRACE = Duration.ofMillis(1500);

    private final Thread hook;
    private final CountDownLatch reportWritten = new CountDownLatch(1);
    private volatile boolean fired;

    /** How long the hook's own message may take to reach a console that is slow to read, before it ends the process. */
    static final Duration MESSAGE_GRACE = Duration.ofMillis(200);

    /** @param err queues without blocking: a console nobody reads must not keep the report from being written */
    InterruptHook(Scheduler scheduler, WorkerPool pool, ConsoleOutput err) {
        this.hook = new Thread(() -> {
            fired = true;
            err.line("archpool: interrupted: cancelling running jobs and writing the report");
            scheduler.interrupt("the build was interrupted (SIGINT or SIGTERM)");
            if (!await(CANCEL_GRACE)) {
                pool.close();
                await(REPORT_GRACE);
            }
            // whatever the main thread still had to do: no worker, and no Slurm step or queued job, outlives us
            pool.close();
            err.drain(MESSAGE_GRACE);
            Runtime.getRuntime().halt(EXIT_CODE);
        }, "archpool-interrupt");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Whether the build was interrupted. */
    boolean fired() {
        return fired;
    }

    /** The report is on disk: an interrupted process may end now. */
    void reportWritten() {
        reportWritten.countDown();
    }

    @Override
    public void close() {
        if (fired) {
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down: the hook is running or about to, and it ends the process
        }
    }

    private boolean await(Duration d) {
        try {
            return reportWritten.await(d.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
