package org.archpool.worker.exec;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.archpool.protocol.Step;
import org.zeroturnaround.exec.ProcessExecutor;
import org.zeroturnaround.exec.ProcessResult;
import org.zeroturnaround.exec.StartedProcess;

/**
 * Runs one {@link Step}: no shell, stdin closed, stdout and stderr into the job's log (never the worker's
 * stdout), in a process group of its own, the job's deadline and cancellation applied to the whole group and
 * process tree.
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
    private final ProcessGroups groups;

    public StepRunner(Clock clock, ProcessGroups groups) {
        this.clock = clock;
        this.groups = groups;
    }

    /** A runner that puts each step in a process group of its own where the system allows. */
    public StepRunner(Clock clock) {
        this(clock, ProcessGroups.system());
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
        StartedProcess started;
        try {
            started = new ProcessExecutor()
                    .command(groups.inOwnGroup(step.argv()))
                    .directory(Path.of(step.cwd()).toFile())
                    .environment(ChildEnvironment.replacing(step.env()))
                    .redirectInput(InputStream.nullInputStream())
                    .redirectOutput(log)
                    .redirectErrorStream(true)
                    .exitValueAny()
                    .stopper(process -> groups.kill(process.toHandle()))
                    .closeTimeout(OUTPUT_DRAIN_SECONDS, TimeUnit.SECONDS)
                    .start();
        } catch (IOException e) {
            return new StepResult(StepResult.Ending.NOT_STARTED, null, clock.millis() - start,
                    "could not start " + step.argv().get(0) + ": " + rootMessage(e)
                            + " (is it installed and on the worker's PATH?)");
        }
        Process process = started.getProcess();
        AtomicBoolean killedByCancel = new AtomicBoolean();
        Runnable unregister = token.onCancel(() -> {
            killedByCancel.set(true);
            groups.kill(process.toHandle());
        });
        try {
            Future<ProcessResult> future = started.getFuture();
            List<String> killedAtTimeLimit = null;
            ProcessResult result;
            Duration left = deadline.remaining();
            try {
                result = left == null ? future.get() : future.get(left.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                killedAtTimeLimit = ProcessTreeKiller.killDescribing(process.toHandle(), DESCRIBED_COMMAND_CHARS);
                groups.kill(process.toHandle());
                result = future.get();
            }
            long ms = clock.millis() - start;
            if (killedAtTimeLimit != null) {
                return new StepResult(StepResult.Ending.TIMED_OUT, null, ms, "time limit reached; process tree killed",
                        killedAtTimeLimit);
            }
            if (killedByCancel.get()) {
                return new StepResult(StepResult.Ending.CANCELLED, null, ms, "cancelled; process tree killed");
            }
            return new StepResult(StepResult.Ending.EXITED, result.getExitValue(), ms, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            groups.kill(process.toHandle());
            return new StepResult(StepResult.Ending.CANCELLED, null, clock.millis() - start,
                    "interrupted; process tree killed");
        } catch (ExecutionException e) {
            groups.kill(process.toHandle());
            return new StepResult(StepResult.Ending.NOT_STARTED, null, clock.millis() - start,
                    "lost track of " + step.argv().get(0) + ": " + e.getCause());
        } finally {
            unregister.run();
        }
    }
}
