package org.archpool.orchestrator.pool;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.archpool.protocol.codec.MessageCodec;
import org.archpool.protocol.codec.MessageReader;
import org.archpool.protocol.codec.MessageWriter;

/**
 * The part of starting a worker process that does not depend on where it runs: wrap the started process in a
 * {@link ProcessWorker} and wait for its {@code hello}. Owns the watchdog thread that checks busy workers'
 * heartbeats, and the {@link AwakeClock} they are measured on; a launcher closes it when it closes.
 */
public final class WorkerHandshake implements AutoCloseable {

    private final MessageCodec codec = new MessageCodec();
    private final Duration helloTimeout;
    private final Duration silenceLimit;
    private final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "archpool-worker-watchdog");
        t.setDaemon(true);
        return t;
    });
    private final AwakeClock clock;

    public WorkerHandshake(Duration helloTimeout, Duration silenceLimit) {
        this(helloTimeout, silenceLimit, AwakeClock.system());
    }

    /** @param clock heartbeats are measured on it; the watchdog ticks it */
    public WorkerHandshake(Duration helloTimeout, Duration silenceLimit, AwakeClock clock) {
        this.helloTimeout = helloTimeout;
        this.silenceLimit = silenceLimit;
        this.clock = clock;
        clock.tickOn(watchdog);
    }

    /**
     * Waits for the started {@code process} to say hello.
     *
     * @param where says where to look for more, e.g. {@code its stderr is in …}; appended to any failure
     * @throws WorkerFailedException {@link WorkerFailure#START} when it ends, breaks the protocol or stays silent
     *                               past the timeout (it is then killed), {@link WorkerFailure#SHUTDOWN} when
     *                               interrupted
     */
    public Worker await(String workerId, Process process, ProcessControl control, Supplier<String> where)
            throws WorkerFailedException {
        ProcessWorker worker = new ProcessWorker(workerId, process, control,
                new MessageReader(process.getInputStream(), codec, MessageReader.DEFAULT_MAX_LINE_BYTES),
                new MessageWriter(process.getOutputStream(), codec), watchdog, clock, silenceLimit);
        worker.startReading();
        try {
            worker.hello().get(helloTimeout.toMillis(), TimeUnit.MILLISECONDS);
            return worker;
        } catch (ExecutionException e) {
            control.kill(process);
            throw new WorkerFailedException(WorkerFailure.START, e.getCause().getMessage() + " (" + where.get() + ")");
        } catch (TimeoutException e) {
            worker.close();
            String notes = control.deathNotes(); // e.g. that Slurm kept it waiting in the queue
            throw new WorkerFailedException(WorkerFailure.START, "worker " + workerId + " did not say hello within "
                    + helloTimeout.toSeconds() + " s" + (notes.isEmpty() ? "" : "; " + notes) + " (" + where.get() + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            worker.close();
            throw new WorkerFailedException(WorkerFailure.SHUTDOWN, "interrupted while starting worker " + workerId);
        }
    }

    /** Stops the watchdog thread; the workers are the pool's to close. */
    @Override
    public void close() {
        watchdog.shutdownNow();
    }
}
