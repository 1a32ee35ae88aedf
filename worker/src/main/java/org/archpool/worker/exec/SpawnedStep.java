package org.archpool.worker.exec;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.archpool.protocol.Step;
import org.zeroturnaround.exec.ProcessExecutor;
import org.zeroturnaround.exec.StartedProcess;

/**
 * A step started as processes of its own, contained by a {@link Containment}: on the calling thread, which its
 * parent-death signal is tied to, so that thread must live as long as the step ({@link StepRunner#run} does).
 */
final class SpawnedStep implements StartedStep {

    private final Containment containment;
    private final StartedProcess started;
    private final ProcessHandle handle;

    private SpawnedStep(Containment containment, StartedProcess started) {
        this.containment = containment;
        this.started = started;
        this.handle = started.getProcess().toHandle();
    }

    /** Starts {@code step} contained by {@code containment}, its output into {@code log}. */
    static SpawnedStep start(Containment containment, Step step, OutputStream log) throws IOException {
        StartedProcess started = new ProcessExecutor()
                .command(containment.wrap(step.argv()))
                .directory(Path.of(step.cwd()).toFile())
                .environment(ChildEnvironment.replacing(step.env()))
                .redirectInput(InputStream.nullInputStream())
                .redirectOutput(log)
                .redirectErrorStream(true)
                .exitValueAny()
                .stopper(process -> containment.killAll(process.toHandle()))
                .closeTimeout(StepRunner.OUTPUT_DRAIN_SECONDS, TimeUnit.SECONDS)
                .start();
        return new SpawnedStep(containment, started);
    }

    @Override
    public boolean awaitExit(Duration limit) throws InterruptedException {
        Process process = started.getProcess();
        if (limit == null) {
            process.waitFor();
            return true;
        }
        return process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public List<ProcessHandle> stepProcesses() {
        return containment.stepProcesses(handle);
    }

    @Override
    public void killAll() {
        containment.killAll(handle);
    }

    @Override
    public void abandon() {
        // killAll ended every process of the step; nothing else is held
    }

    @Override
    public int finish(boolean exited) throws InterruptedException, ExecutionException {
        if (exited) {
            containment.endLeftovers(handle);
        }
        return started.getFuture().get().getExitValue();
    }
}
