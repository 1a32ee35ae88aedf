package org.archpool.orchestrator.pool;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Starts worker JVMs on this machine. Each gets the coordinator's environment under the UTF-8 locale, with every
 * device-visibility variable set to empty (never the coordinator's values), a stderr file of its own, and must say hello
 * within the spec's timeout. With device isolation, each starts in a mount namespace of its own with the GPU devices
 * masked ({@link WorkerSpec#isolation()}). A worker that does not start is named with the first lines its JVM wrote to stderr
 * (an unknown option, a heap too small), which are the reason.
 */
public final class LocalWorkerLauncher implements WorkerLauncher {

    private final WorkerSpec spec;
    private final WorkerHandshake handshake;

    public LocalWorkerLauncher(WorkerSpec spec) {
        this.spec = spec;
        this.handshake = new WorkerHandshake(spec.helloTimeout(), spec.silenceLimit());
    }

    /** Stops the watchdog thread; workers are the pool's to close. */
    @Override
    public void close() {
        handshake.close();
    }

    @Override
    public String mode() {
        return "process";
    }

    @Override
    public DeviceIsolation deviceIsolation() {
        return spec.isolation().isPresent() ? DeviceIsolation.NAMESPACE : DeviceIsolation.ENVIRONMENT;
    }

    @Override
    public Worker launch(String workerId) throws WorkerFailedException {
        Process process;
        Path stderr = spec.stderrDir().resolve(workerId + ".stderr.log");
        long stderrFrom;
        try {
            Files.createDirectories(spec.stderrDir());
            stderrFrom = Files.exists(stderr) ? Files.size(stderr) : 0;
            process = spec.processBuilder(spec.isolatedCommand(workerId), stderr).start();
        } catch (IOException e) {
            throw new WorkerFailedException(WorkerFailure.START, "cannot start worker " + workerId + " with " + spec.java() + ": "
                    + e.getMessage());
        }
        return handshake.await(workerId, process, ProcessControl.LOCAL,
                () -> "its stderr is in " + stderr + StartupError.said(stderr, stderrFrom));
    }
}
