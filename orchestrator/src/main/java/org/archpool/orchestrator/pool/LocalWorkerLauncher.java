package org.archpool.orchestrator.pool;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Starts worker JVMs on this machine. Each gets the coordinator's environment under the UTF-8 locale, with every
 * device-visibility variable set to empty (never the coordinator's values), a stderr file of its own, and must say hello
 * within the spec's timeout. With device isolation, each starts in a mount namespace of its own with the GPU devices
 * masked ({@link WorkerSpec#isolation()}), listed in {@code workers/device-masks.fstab}. A worker that does not start is named with the first lines its JVM wrote to stderr
 * (an unknown option, a heap too small), which are the reason.
 */
public final class LocalWorkerLauncher implements WorkerLauncher {

    /**
     * In the worker log folder: the device masks, one fstab line per masked path, which every worker's
     * namespace mounts with one {@code mount -a} (and a record of what the workers could not see).
     */
    public static final String MASKS_FILE = "device-masks.fstab";

    private final WorkerSpec spec;
    private final WorkerHandshake handshake;
    private WorkerSpec started; // spec with its masks listed; guarded by this

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

    /** The spec workers start from: with isolation, its masks listed in {@link #MASKS_FILE}, written once. */
    private synchronized WorkerSpec startable() throws WorkerFailedException {
        if (started == null) {
            Path masks = spec.stderrDir().resolve(MASKS_FILE);
            try {
                Files.createDirectories(spec.stderrDir());
                started = spec.isolation().isEmpty() ? spec
                        : spec.isolatedIn(Optional.of(spec.isolation().get().listedIn(masks)));
            } catch (IOException e) {
                throw new WorkerFailedException(WorkerFailure.START, "cannot write the device masks of the workers to "
                        + masks + ": " + e.getMessage());
            }
        }
        return started;
    }

    @Override
    public Worker launch(String workerId) throws WorkerFailedException {
        Process process;
        Path stderr = spec.stderrDir().resolve(workerId + ".stderr.log");
        long stderrFrom;
        WorkerSpec masked = startable();
        try {
            Files.createDirectories(spec.stderrDir());
            stderrFrom = Files.exists(stderr) ? Files.size(stderr) : 0;
            process = masked.processBuilder(masked.isolatedCommand(workerId), stderr).start();
        } catch (IOException e) {
            throw new WorkerFailedException(WorkerFailure.START, "cannot start worker " + workerId + " with " + spec.java() + ": "
                    + e.getMessage());
        }
        return handshake.await(workerId, process, ProcessControl.LOCAL,
                () -> "its stderr is in " + stderr + StartupError.said(stderr, stderrFrom));
    }
}
