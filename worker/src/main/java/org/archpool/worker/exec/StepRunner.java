package org.archpool.worker.exec;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.archpool.protocol.Step;

/**
 * Runs one {@link Step}: no shell of its own, stdin closed, stdout and stderr into the job's log (never the
 * worker's stdout), contained by the {@link StepLauncher} so that no process it starts outlives it, the job's
 * deadline and cancellation applied to all of them.
 *
 * <p>{@link #run} returns only once the step has ended (or has been killed). A step spawned on its own is started on
 * the calling thread, whose life its parent-death signal is tied to and which therefore lives as long as the step; a
 * hosted one runs on a {@link StepHost} that a long-lived thread of the launcher's started.
 */
public final class StepRunner {

    /**
     * How long to keep reading a process's output after it exited. A daemon it left behind may hold the
     * log pipe open forever; the step must still end.
     */
    static final long OUTPUT_DRAIN_SECONDS = 5;

    /** How much of each killed process's command line a timed-out step reports. */
    static final int DESCRIBED_COMMAND_CHARS = 400;

    private final Clock clock;
    private final StepLauncher launcher;

    public StepRunner(Clock clock, StepLauncher launcher) {
        this.clock = clock;
        this.launcher = launcher;
    }

    /** A runner that contains each step as well as the system allows ({@link StepLauncher#system()}). */
    public StepRunner(Clock clock) {
        this(clock, StepLauncher.system());
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        String m = t.getMessage() == null ? t.toString() : t.getMessage();
        int at = m.lastIndexOf("error=");
        return at >= 0 ? m.substring(at) : m;
    }

    /**
     * @param log receives everything the process prints; not closed
     */
    public StepResult run(Step step, OutputStream log, Deadline deadline, CancellationToken token) {
        long start = clock.millis();
        if (token.isCancelled()) {
            return new StepResult(StepResult.Ending.CANCELLED, null, 0, "cancelled before it started");
        }
        String program = step.argv().get(0);
        String path = step.env().getOrDefault("PATH", System.getenv("PATH"));
        if (Executables.find(program, path).isEmpty()) {
            return new StepResult(StepResult.Ending.NOT_STARTED, null, clock.millis() - start,
                    "could not start " + program + ": " + (program.contains("/") ? "no executable file there"
                            : "not found on the worker's PATH") + " (is it installed?)");
        }
        StartedStep started;
        try {
            started = launcher.start(step, log);
        } catch (IOException e) {
            return new StepResult(StepResult.Ending.NOT_STARTED, null, clock.millis() - start,
                    "could not start " + step.argv().get(0) + ": " + rootMessage(e)
                            + " (is it installed and on the worker's PATH?)");
        }
        AtomicBoolean killedByCancel = new AtomicBoolean();
        Runnable unregister = token.onCancel(() -> {
            killedByCancel.set(true);
            started.killAll();
        });
        try {
            List<String> killedAtTimeLimit = null;
            boolean exited = started.awaitExit(deadline.remaining());
            if (!exited) {
                killedAtTimeLimit = ProcessTreeKiller.describe(started.stepProcesses(), DESCRIBED_COMMAND_CHARS);
                started.killAll();
            }
            int status = started.finish(exited);
            long ms = clock.millis() - start;
            if (killedAtTimeLimit != null) {
                return new StepResult(StepResult.Ending.TIMED_OUT, null, ms, "time limit reached; process tree killed",
                        killedAtTimeLimit);
            }
            if (killedByCancel.get()) {
                return new StepResult(StepResult.Ending.CANCELLED, null, ms, "cancelled; process tree killed");
            }
            return new StepResult(StepResult.Ending.EXITED, status, ms, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            started.killAll();
            started.abandon();
            return new StepResult(StepResult.Ending.CANCELLED, null, clock.millis() - start,
                    "interrupted; process tree killed");
        } catch (ExecutionException e) {
            started.killAll();
            return new StepResult(StepResult.Ending.NOT_STARTED, null, clock.millis() - start,
                    "lost track of " + step.argv().get(0) + ": " + rootMessage(e));
        } finally {
            unregister.run();
        }
    }
}
