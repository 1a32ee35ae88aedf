package org.archpool.orchestrator;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.archpool.orchestrator.pool.WorkerPool;
import org.archpool.orchestrator.report.ConsoleOutput;
import org.archpool.orchestrator.report.OutputProgress;
import org.archpool.orchestrator.schedule.Scheduler;
import sun.misc.Signal;

/**
 * Ctrl-C and SIGTERM during a build: stop dispatching, cancel running jobs (workers kill their process
 * trees), kill workers that do not answer within a grace period, close the pool (its launcher cancels Slurm steps
 * still starting), let the build write every requested output with every unfinished job {@code cancelled}, then
 * end the process with exit code 130. The running jobs end within about 4 seconds; recording the queued ones as
 * cancelled and the outputs, streamed, take seconds more for a large build, and share {@link #OUTPUT_GRACE}. A
 * second Ctrl-C or SIGTERM, or outputs still unwritten after that grace, end the process at once; every output not
 * written by then is named on stderr, so no output is ever dropped without a word.
 */
final class InterruptHook implements AutoCloseable {

    /** Exit code after an interrupt. */
    static final int EXIT_CODE = 130;
    /** How long running jobs get to answer a cancel before their workers are killed. */
    static final Duration CANCEL_GRACE = Duration.ofMillis(2500);
    /** How long the running jobs then get to end once their workers are killed. */
    static final Duration REPORT_GRACE = Duration.ofMillis(1500);
    /** How long the queued jobs get to be recorded cancelled and the build to write its outputs, together. */
    static final Duration OUTPUT_GRACE = Duration.ofSeconds(30);

    private final Thread hook;
    private final CountDownLatch jobsEnded = new CountDownLatch(1);
    private final CountDownLatch outputsWritten = new CountDownLatch(1);
    private volatile OutputProgress outputs;
    private volatile String outputFailure;
    private volatile boolean fired;

    /** How long the hook's own messages may take to reach a console that is slow to read, before it ends the process. */
    static final Duration MESSAGE_GRACE = Duration.ofMillis(200);

    /** @param err queues without blocking: a console nobody reads must not keep the outputs from being written */
    InterruptHook(Scheduler scheduler, WorkerPool pool, ConsoleOutput err) {
        this(scheduler, pool, err, "the build", () -> { });
    }

    /**
     * @param what     what was interrupted, for the jobs' messages: "the build", "serve"
     * @param stopping told first when the hook fires, before the scheduler is interrupted (a service stops taking jobs)
     */
    InterruptHook(Scheduler scheduler, WorkerPool pool, ConsoleOutput err, String what, Runnable stopping) {
        this.hook = new Thread(() -> {
            fired = true;
            onSecondSignal(() -> end(pool, err, "interrupted again"));
            err.line("archpool: interrupted: cancelling running jobs and writing the outputs"
                    + " (interrupt again to stop at once)");
            stopping.run();
            scheduler.interrupt(what + " was interrupted (SIGINT or SIGTERM)");
            if (!scheduler.awaitNoneRunning(CANCEL_GRACE)) {
                pool.close();
                if (!scheduler.awaitNoneRunning(REPORT_GRACE)) {
                    end(pool, err, "the running jobs did not end within "
                            + CANCEL_GRACE.plus(REPORT_GRACE).toMillis() + " ms");
                }
            }
            // no job runs and none starts any more: the workers are not needed, and a start still under way stops.
            // What is left takes no worker: the queued jobs' outcomes (100,000 of them take seconds on a loaded
            // machine, which the jobs' grace must not count) and the outputs.
            pool.close();
            long deadline = System.nanoTime() + OUTPUT_GRACE.toNanos();
            if (!await(jobsEnded, Duration.ofNanos(deadline - System.nanoTime()))) {
                end(pool, err, "recording the queued jobs as cancelled took longer than "
                        + OUTPUT_GRACE.toSeconds() + " s");
            }
            if (!await(outputsWritten, Duration.ofNanos(deadline - System.nanoTime()))) {
                end(pool, err, "writing the outputs took longer than " + OUTPUT_GRACE.toSeconds() + " s");
            }
            if (outputFailure != null) {
                err.line("archpool: " + outputFailure);
            }
            end(pool, err, null);
        }, "archpool-interrupt");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Whether the build was interrupted. */
    boolean fired() {
        return fired;
    }

    /** The outputs the build will write, to name those not written if the process must end first. */
    void track(OutputProgress progress) {
        this.outputs = progress;
    }

    /** Every job has its outcome: an interrupted build now writes its outputs. */
    void jobsEnded() {
        jobsEnded.countDown();
    }

    /**
     * The outputs are written, except those {@code failure} names (null when none failed): an interrupted
     * process may end now, saying so.
     */
    void outputsWritten(String failure) {
        outputFailure = failure;
        outputsWritten.countDown();
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

    /**
     * Ends the process with {@link #EXIT_CODE}, first naming, when {@code why} is given, every output not
     * written. No worker, and no Slurm step or queued job, outlives it.
     */
    private void end(WorkerPool pool, ConsoleOutput err, String why) {
        pool.close();
        OutputProgress progress = outputs;
        if (why != null && progress != null) {
            String left = progress.abandon();
            List<String> missing = progress.notWritten();
            err.line("archpool: " + why + ": stopping now"
                    + (missing.isEmpty() ? "" : "; not written: " + String.join(", ", missing))
                    + (left == null ? "" : "; " + left));
        } else if (why != null) {
            err.line("archpool: " + why + ": stopping now");
        }
        err.drain(MESSAGE_GRACE);
        Runtime.getRuntime().halt(EXIT_CODE);
    }

    /** Runs {@code stop} on a second SIGINT or SIGTERM, which would otherwise wait for this hook. */
    private static void onSecondSignal(Runnable stop) {
        for (String name : List.of("INT", "TERM")) {
            try {
                Signal.handle(new Signal(name), signal -> stop.run());
            } catch (IllegalArgumentException e) {
                // this JVM does not let the signal be handled (-Xrs): the grace periods still end the process
            }
        }
    }

    private static boolean await(CountDownLatch latch, Duration d) {
        try {
            return latch.await(d.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
