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
import org.archpool.worker.exec.Executables;
import org.archpool.worker.exec.ProcessTreeKiller;
import org.zeroturnaround.exec.ProcessExecutor;
import org.zeroturnaround.exec.ProcessResult;
import org.zeroturnaround.exec.StartedProcess;

/**
 * Runs a tool found on the coordinator's {@code PATH}, in the coordinator's environment without the
 * device-visibility variables, telling apart a missing tool, one that is not
 * executable, one that hangs past its timeout (its process tree is killed) and one that exits.
 */
public final class ProcessToolRunner implements ToolRunner {

    private final Map<String, String> environment;
    private final Clock clock;

    /** @param environment the coordinator's environment; its {@code PATH} locates tools */
    public ProcessToolRunner(Map<String, String> environment, Clock clock) {
        this.environment = Map.copyOf(environment);
        this.clock = clock;
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
        StartedProcess started;
        try {
            List<String> resolved = new java.util.ArrayList<>(command);
            resolved.set(0, found.get().toString());
            started = new ProcessExecutor()
                    .command(resolved)
                    .environment(toolEnvironment())
                    .redirectInput(InputStream.nullInputStream())
                    .redirectOutput(stdout)
                    .redirectError(stderr)
                    .exitValueAny()
                    .stopper(new ProcessTreeKiller())
                    .start();
        } catch (IOException e) {
            return new ToolOutput(command, ToolOutput.Status.FAILED_TO_START, null, "", "", clock.millis() - start,
                    "could not start " + program + ": " + e.getMessage());
        }
        Future<ProcessResult> future = started.getFuture();
        try {
            ProcessResult result = future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return new ToolOutput(command, ToolOutput.Status.EXITED, result.getExitValue(), text(stdout),
                    text(stderr), clock.millis() - start, null);
        } catch (TimeoutException e) {
            ProcessTreeKiller.kill(started.getProcess().toHandle());
            return new ToolOutput(command, ToolOutput.Status.TIMED_OUT, null, text(stdout), text(stderr),
                    clock.millis() - start, program + " did not finish within " + timeout.toMillis() + " ms and was killed");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ProcessTreeKiller.kill(started.getProcess().toHandle());
            return new ToolOutput(command, ToolOutput.Status.TIMED_OUT, null, text(stdout), text(stderr),
                    clock.millis() - start, "interrupted while waiting for " + program);
        } catch (ExecutionException e) {
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
