package org.archpool.orchestrator.tool;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.archpool.protocol.HiddenDevices;
import org.archpool.worker.exec.Containment;
import org.archpool.worker.exec.Executables;
import org.archpool.worker.exec.StepLauncher;
import org.zeroturnaround.exec.ProcessExecutor;
import org.zeroturnaround.exec.ProcessResult;
import org.zeroturnaround.exec.StartedProcess;

/**
 * Runs a tool found on the coordinator's {@code PATH}, in the coordinator's environment without the
 * device-visibility variables, telling apart a missing tool, one that is not
 * executable, one that hangs past its timeout (its process tree is killed) and one that exits.
 *
 * <p>Each tool is started contained, as a job's steps are ({@link StepLauncher}): in a PID namespace of its own
 * with a parent-death signal tied to the thread that runs it, which waits for it. So a tool, and whatever it
 * started, ends with the coordinator however the coordinator ends (Ctrl-C, SIGTERM, SIGKILL), and nothing it
 * left behind outlives its run.
 */
public final class ProcessToolRunner implements ToolRunner {

    private final Map<String, String> environment;
    private final Clock clock;
    private final StepLauncher launcher;

    /**
     * @param environment the coordinator's environment; its {@code PATH} locates tools
     * @param launcher    contains each tool run
     */
    public ProcessToolRunner(Map<String, String> environment, Clock clock, StepLauncher launcher) {
        this.environment = Map.copyOf(environment);
        this.clock = clock;
        this.launcher = launcher;
    }

    /** Contains each tool run as well as the system allows ({@link StepLauncher#system()}). */
    public ProcessToolRunner(Map<String, String> environment, Clock clock) {
        this(environment, clock, StepLauncher.system());
    }

    @Override
    public ToolOutput run(List<String> command, Duration timeout) {
        long start = clock.millis();
        String program = command.get(0);
        String path = environment.get("PATH");
        Optional<Path> found = Executables.find(program, path);
        if (found.isEmpty()) {
            Optional<Path> notExecutable = Executables.findNotExecutable(program, path);
            return notExecutable.isPresent()
                    ? new ToolOutput(command, ToolOutput.Status.NOT_EXECUTABLE, null, "", "", 0,
                            notExecutable.get() + " is not executable")
                    : new ToolOutput(command, ToolOutput.Status.MISSING, null, "", "", 0,
                            program + " is not on the PATH");
        }
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        Containment containment = launcher.containment();
        StartedProcess started;
        try {
            List<String> resolved = new java.util.ArrayList<>(command);
            resolved.set(0, found.get().toString());
            started = new ProcessExecutor()
                    .command(containment.wrap(resolved))
                    .environment(toolEnvironment())
                    .redirectInput(InputStream.nullInputStream())
                    .redirectOutput(stdout)
                    .redirectError(stderr)
                    .exitValueAny()
                    .stopper(process -> containment.killAll(process.toHandle()))
                    .start();
        } catch (IOException e) {
            return new ToolOutput(command, ToolOutput.Status.FAILED_TO_START, null, "", "", clock.millis() - start,
                    "could not start " + program + ": " + e.getMessage());
        }
        Future<ProcessResult> future = started.getFuture();
        ProcessHandle handle = started.getProcess().toHandle();
        try {
            ProcessResult result = future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            containment.endLeftovers(handle);
            return new ToolOutput(command, ToolOutput.Status.EXITED, result.getExitValue(), text(stdout),
                    text(stderr), clock.millis() - start, null);
        } catch (TimeoutException e) {
            containment.killAll(handle);
            return new ToolOutput(command, ToolOutput.Status.TIMED_OUT, null, text(stdout), text(stderr),
                    clock.millis() - start, program + " did not finish within " + timeout.toMillis() + " ms and was killed");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            containment.killAll(handle);
            return new ToolOutput(command, ToolOutput.Status.TIMED_OUT, null, text(stdout), text(stderr),
                    clock.millis() - start, "interrupted while waiting for " + program);
        } catch (ExecutionException e) {
            containment.killAll(handle);
            return new ToolOutput(command, ToolOutput.Status.FAILED_TO_START, null, text(stdout), text(stderr),
                    clock.millis() - start, "could not run " + program + ": " + e.getCause());
        }
    }

    /**
     * The coordinator's environment without the device-visibility variables (a null value makes zt-exec remove
     * a variable): rocminfo and amdgpu-arch would apply them themselves, and {@link DeviceVisibility} applies
     * them once, to the full list.
     */
    private Map<String, String> toolEnvironment() {
        Map<String, String> env = new java.util.HashMap<>(environment);
        HiddenDevices.VARIABLES.forEach(v -> env.put(v, null));
        return env;
    }

    private static String text(ByteArrayOutputStream bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
