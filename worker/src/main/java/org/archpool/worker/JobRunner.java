package org.archpool.worker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.archpool.protocol.Artifact;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;
import org.archpool.protocol.PhaseTiming;
import org.archpool.protocol.Step;
import org.archpool.worker.exec.CancellationToken;
import org.archpool.worker.exec.ChildEnvironment;
import org.archpool.worker.exec.Deadline;
import org.archpool.worker.exec.JobLog;
import org.archpool.worker.exec.JobTempDir;
import org.archpool.worker.exec.LogTail;
import org.archpool.worker.exec.StepResult;
import org.archpool.worker.exec.StepLauncher;
import org.archpool.worker.exec.StepRunner;
import org.archpool.worker.inspect.GpuCodeInspector;

/**
 * Runs one {@link BuildRequest} to its {@link BuildResult}: runs the request's steps in order, as the coordinator
 * made them, into the job's log file (each with the device-visibility variables set to empty on top of its own
 * environment, and {@code TMPDIR} a folder of the job's own, {@link JobTempDir}), stops at the first that does not succeed, and reads the GPU code of a successful job's
 * artifacts. Shared by worker JVMs and thread mode. Never throws for anything a job can do; every request gets
 * a result: a log that cannot be created or written (a link planted at its path, a full disk, a file size limit)
 * fails the job with the reason, its processes killed, and so does an artifact that cannot be inspected.
 */
public final class JobRunner implements RequestRunner {

    static final int TAIL_LINES = 40;
    static final int TAIL_BYTES = 16 * 1024;
    /** At most this many killed processes are named in the log, so the tail keeps room for output. */
    static final int KILLED_LINES = 16;

    private final StepRunner steps;
    private final ArtifactScanner artifacts;
    private final Clock clock;

    public JobRunner(StepRunner steps, ArtifactScanner artifacts, Clock clock) {
        this.steps = steps;
        this.artifacts = artifacts;
        this.clock = clock;
    }

    /** A runner with the system clock. */
    public static JobRunner standard() {
        return standard(StepLauncher.system());
    }

    /** A runner with the system clock whose steps {@code launcher} starts. */
    public static JobRunner standard(StepLauncher launcher) {
        Clock clock = Clock.systemUTC();
        return new JobRunner(new StepRunner(clock, launcher), new ArtifactScanner(new GpuCodeInspector()), clock);
    }

    /**
     * @param progress told each phase as it starts
     * @param token    cancels the running step (its process tree is killed)
     */
    public BuildResult run(BuildRequest request, Consumer<Phase> progress, CancellationToken token) {
        return run(request, token, JobActivity.reporting(progress));
    }

    @Override
    public BuildResult run(BuildRequest request, CancellationToken token, JobActivity activity) {
        Path logPath = Path.of(request.logPath());
        Deadline deadline = Deadline.after(clock, request.timeoutMs());
        List<PhaseTiming> timings = new ArrayList<>();
        try {
            Files.createDirectories(logPath.toAbsolutePath().getParent());
            for (Step step : request.steps()) {
                Files.createDirectories(Path.of(step.cwd()));
            }
        } catch (IOException e) {
            return result(request, Outcome.FAILED, null, timings, List.of(), null,
                    "cannot create a folder the job needs: " + e);
        }
        JobTempDir temp;
        try {
            temp = JobTempDir.create(System.getenv(), request.job().env(), firstCwd(request), request.job().id());
        } catch (IOException e) {
            return result(request, Outcome.FAILED, null, timings, List.of(), null,
                    "cannot create the job's temporary folder: " + reason(e) + "; set TMPDIR, in the job's env"
                            + " or in archpool's environment, to a folder that exists and that you can write");
        }
        List<Step> plan = request.steps().stream()
                .map(s -> new Step(s.phase(), s.argv(), s.cwd(), ChildEnvironment.forStep(temp.into(s.env()))))
                .toList();
        StepResult last = null;
        Instant started = Instant.now(clock);
        // the step's own token: cancelled by the caller's, and by a log that cannot be written
        CancellationToken stepToken = new CancellationToken();
        Runnable unlink = token.onCancel(stepToken::cancel);
        JobLog log;
        try {
            log = JobLog.open(logPath, request.maxLogBytes(), stepToken::cancel);
        } catch (IOException e) {
            unlink.run();
            String left = temp.remove().map(why -> "; its temporary folder " + temp.path() + " was not removed: "
                    + why).orElse("");
            return result(request, Outcome.FAILED, null, timings, List.of(), null,
                    "cannot create the job log " + logPath + ": " + reason(e) + left);
        }
        try (log) {
            writeLine(log, "# archpool job " + request.job().id() + " (" + request.job().kind() + ") for "
                    + request.target().platform().wireName() + " " + request.target().cmakeList()
                    + ", started " + started);
            for (Step step : plan) {
                if (log.failure().isPresent()) {
                    break;
                }
                activity.phase(step.phase());
                writeLine(log, "$ " + String.join(" ", step.argv()));
                activity.waitingForStep(true);
                try {
                    last = steps.run(step, log, deadline, stepToken);
                } finally {
                    activity.waitingForStep(false);
                }
                timings.add(new PhaseTiming(step.phase(), last.ms(), last.exitCode()));
                if (!last.succeeded()) {
                    writeKilled(log, last.killed());
                    writeLine(log, "# " + describe(step, last, request.timeoutMs()));
                    break;
                }
            }
        } finally {
            unlink.run();
            // the steps' processes have all ended: nothing writes to the folder any more
            temp.remove().ifPresent(why -> writeLine(log,
                    "# archpool: the job's temporary folder " + temp.path() + " was not removed: " + why));
        }
        Optional<IOException> logFailure = log.failure();
        if (logFailure.isPresent()) {
            return result(request, Outcome.FAILED, null, timings, List.of(),
                    LogTail.read(logPath, TAIL_LINES, TAIL_BYTES), "cannot write the job log " + logPath + ": "
                            + reason(logFailure.get()) + (last == null ? "" : "; the job's processes were killed"));
        }
        if (last == null || last.succeeded()) {
            activity.phase(Phase.INSPECT);
            long inspectStart = clock.millis();
            List<Artifact> found;
            try {
                found = artifacts.scan(request.job(), started, activity::beat);
            } catch (UnreadableArtifactException e) {
                timings.add(new PhaseTiming(Phase.INSPECT, clock.millis() - inspectStart, null));
                return result(request, Outcome.FAILED, null, timings, List.of(),
                        LogTail.read(logPath, TAIL_LINES, TAIL_BYTES), e.getMessage());
            }
            timings.add(new PhaseTiming(Phase.INSPECT, clock.millis() - inspectStart, null));
            return result(request, Outcome.SUCCEEDED, 0, timings, found, null, null);
        }
        Step failedStep = plan.get(timings.size() - 1);
        Outcome outcome = switch (last.ending()) {
            case TIMED_OUT -> Outcome.TIMED_OUT;
            case CANCELLED -> Outcome.CANCELLED;
            case EXITED, NOT_STARTED -> Outcome.FAILED;
        };
        return new BuildResult(request.requestId(), outcome, last.exitCode(), last.signal().orElse(null), timings,
                List.of(), request.logPath(), LogTail.read(logPath, TAIL_LINES, TAIL_BYTES), describe(failedStep, last, request.timeoutMs()));
    }

    /** The folder a relative {@code TMPDIR} of the job is taken from: its first step's. */
    private static Path firstCwd(BuildRequest request) {
        return request.steps().isEmpty() ? Path.of("").toAbsolutePath()
                : Path.of(request.steps().get(0).cwd()).toAbsolutePath();
    }

    /** An I/O error's own words ({@code No space left on device}), else its class. */
    private static String reason(IOException e) {
        return e.getMessage() != null ? e.getMessage() : e.toString();
    }

    /** One sentence for the log and the result: which phase, which program, how it ended. */
    static String describe(Step step, StepResult r, long timeoutMs) {
        String what = step.phase().wireName() + " (" + step.argv().get(0) + ")";
        return switch (r.ending()) {
            case EXITED -> r.signal().map(signal -> killedBy(what, signal, r.exitCode()))
                    .orElse(what + " exited with status " + r.exitCode());
            case TIMED_OUT -> "timed out in the " + step.phase().wireName() + " phase: " + what
                    + " was still running when the job's time limit of " + duration(timeoutMs)
                    + " ran out (" + r.ms() + " ms into the phase); its whole process tree was killed";
            case CANCELLED -> what + " was cancelled; its process tree was killed";
            case NOT_STARTED -> what + " did not run: " + r.message();
        };
    }

    /**
     * Java cannot tell a process that signal n ended from one that exited with status 128 + n, which is what
     * a shell or wrapper does when a process it ran was ended by that signal; the message says both.
     */
    private static String killedBy(String what, String signal, int exitCode) {
        String message = what + " was killed by " + signal + " (exit status " + exitCode
                + "; if it is a wrapper script, a process it ran was)";
        return "SIGKILL".equals(signal)
                ? message + ", not by archpool: often the system's out-of-memory killer"
                : message;
    }

    /** {@code 3000} → {@code 3s}, {@code 5400000} → {@code 1h30m}, {@code 1500} → {@code 1500 ms}. */
    static String duration(long ms) {
        if (ms % 1000 != 0) {
            return ms + " ms";
        }
        long s = ms / 1000;
        StringBuilder b = new StringBuilder();
        if (s >= 3600) {
            b.append(s / 3600).append('h');
        }
        if (s % 3600 >= 60) {
            b.append(s % 3600 / 60).append('m');
        }
        if (s % 60 != 0 || b.length() == 0) {
            b.append(s % 60).append('s');
        }
        return b.toString();
    }

    private static BuildResult result(BuildRequest request, Outcome outcome, Integer exitCode,
                                      List<PhaseTiming> phases, List<Artifact> artifacts, String tail, String message) {
        return new BuildResult(request.requestId(), outcome, exitCode, null, phases, artifacts,
                request.logPath(), tail, message);
    }

    /**
     * Names the processes the time limit killed. Ninja prints a command's output only when it ends, so for a
     * hung build this is the only place the log shows which compiler hung, on which file.
     */
    private static void writeKilled(JobLog log, List<String> killed) {
        if (killed.isEmpty()) {
            return;
        }
        writeLine(log, "# running at the time limit, now killed:");
        for (String line : killed.subList(0, Math.min(killed.size(), KILLED_LINES))) {
            writeLine(log, "#   " + line);
        }
        if (killed.size() > KILLED_LINES) {
            writeLine(log, "#   ... and " + (killed.size() - KILLED_LINES) + " more");
        }
    }

    /** Writes to the job's log, which records a failure instead of throwing it. */
    private static void writeLine(JobLog log, String line) {
        byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
        log.write(bytes, 0, bytes.length);
    }
}
