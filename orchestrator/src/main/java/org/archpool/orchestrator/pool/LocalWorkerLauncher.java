package org.archpool.orchestrator.pool;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.archpool.protocol.HiddenDevices;
import org.archpool.protocol.codec.MessageCodec;
import org.archpool.protocol.codec.MessageReader;
import org.archpool.protocol.codec.MessageWriter;
import org.archpool.worker.exec.ProcessTreeKiller;

/**
 * Starts worker JVMs on this machine. Each gets the coordinator's environment with every device-visibility
 * variable set to empty (never the coordinator's values), a stderr file of its own, and must say hello
 * within the spec's timeout.
 */
public final class LocalWorkerLauncher implements WorkerLauncher {

    private final WorkerSpec spec;
    private final MessageCodec codec = new MessageCodec();
    private final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "archpool-worker-watchdog");
        t.setDaemon(true);
        return t;
    });

    public LocalWorkerLauncher(WorkerSpec spec) {
        this.spec = spec;
    }

    /** Stops the watchdog thread; workers are the pool's to close. */
    @Override
    public void close() {
        watchdog.shutdownNow();
    }

    @Override
    public String mode() {
        return "process";
    }

    @Override
    public Worker launch(String workerId) throws WorkerFailedException {
        Process process;
        Path stderr = spec.stderrDir().resolve(workerId + ".stderr.log");
        try {
            Files.createDirectories(spec.stderrDir());
            ProcessBuilder builder = new ProcessBuilder(spec.command(workerId))
                    .redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()));
            Map<String, String> env = builder.environment();
            env.clear();
            env.putAll(spec.environment());
            env.putAll(HiddenDevices.environment());
            process = builder.start();
        } catch (IOException e) {
            throw new WorkerFailedException(WorkerFailure.START, "cannot start worker " + workerId + " with " + spec.java() + ": "
                    + e.getMessage());
        }
        ProcessWorker worker = new ProcessWorker(workerId, process,
                new MessageReader(process.getInputStream(), codec, MessageReader.DEFAULT_MAX_LINE_BYTES),
                new MessageWriter(process.getOutputStream(), codec), watchdog, spec.silenceLimit());
        worker.startReading();
        try {
            worker.hello().get(spec.helloTimeout().toMillis(), TimeUnit.MILLISECONDS);
            return worker;
        } catch (ExecutionException e) {
            ProcessTreeKiller.kill(process.toHandle());
            throw new WorkerFailedException(WorkerFailure.START,
                    e.getCause().getMessage() + " (its stderr is in " + stderr + ")");
        } catch (TimeoutException e) {
            worker.close();
            throw new WorkerFailedException(WorkerFailure.START, "worker " + workerId + " did not say hello within "
                    + spec.helloTimeout().toSeconds() + " s (its stderr is in " + stderr + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            worker.close();
            throw new WorkerFailedException(WorkerFailure.SHUTDOWN, "interrupted while starting worker " + workerId);
        }
    }
}
