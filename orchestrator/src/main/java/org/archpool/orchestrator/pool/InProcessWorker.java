package org.archpool.orchestrator.pool;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.Phase;
import org.archpool.worker.JobRunner;
import org.archpool.worker.RequestRunner;
import org.archpool.worker.exec.CancellationToken;

/**
 * Thread mode: the worker's job runner on a thread of the coordinator. The job's processes still get the
 * hidden-device environment; only the JVM is shared.
 */
final class InProcessWorker implements Worker {

    private final String id;
    private final JobRunner runner;
    private final ExecutorService thread;
    private volatile CancellationToken token;
    /** The request running now, or null. */
    private volatile String requestId;

    InProcessWorker(String id, JobRunner runner) {
        this.id = id;
        this.runner = runner;
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "archpool-thread-worker-" + id);
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public long pid() {
        return -1;
    }

    @Override
    public CompletableFuture<BuildResult> execute(BuildRequest request, Consumer<Phase> progress) {
        CancellationToken t = new CancellationToken();
        token = t;
        requestId = request.requestId();
        return CompletableFuture.supplyAsync(() -> {
            try {
                return runner.run(request, progress, t);
            } catch (Throwable e) { // OutOfMemoryError, StackOverflowError, a bug: the job's outcome, as in a worker JVM
                return RequestRunner.thrown(request, e);
            } finally {
                requestId = null;
            }
        }, thread);
    }

    @Override
    public void cancel(String id) {
        CancellationToken t = token;
        if (t != null && id.equals(requestId)) {
            t.cancel();
        }
    }

    @Override
    public WorkerState state() {
        if (thread.isShutdown()) {
            return new WorkerState.Dead(WorkerFailure.SHUTDOWN, "worker was shut down");
        }
        String running = requestId;
        return running == null ? WorkerState.IDLE : new WorkerState.Busy(running);
    }

    @Override
    public void close() {
        CancellationToken t = token;
        if (t != null) {
            t.cancel();
        }
        thread.shutdown();
    }
}
