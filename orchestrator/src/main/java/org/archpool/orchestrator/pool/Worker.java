package org.archpool.orchestrator.pool;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.Phase;

/** One slot's executor of jobs: a worker JVM, or a thread of the coordinator in thread mode. */
public interface Worker extends AutoCloseable {

    /** A stable name for reports, e.g. {@code w1}, {@code w1.2} after a replacement. */
    String id();

    /** The operating-system process that runs jobs ({@code -1} in thread mode). */
    long pid();

    /** The host the worker process runs on, as it said in its hello; null in thread mode. */
    default String host() {
        return null;
    }

    /**
     * Runs one request; one at a time. The future completes with the worker's result, or exceptionally with
     * {@link WorkerFailedException} when the worker died or broke the protocol.
     *
     * @param progress told each phase the worker reports
     */
    CompletableFuture<BuildResult> execute(BuildRequest request, Consumer<Phase> progress);

    /** Asks the worker to cancel {@code requestId}; its result then says cancelled. */
    void cancel(String requestId);

    /** Where the worker is in its life now: starting, idle, busy with a request, or dead with the reason. */
    WorkerState state();

    /** @return whether the worker can still take requests: any {@link #state()} but dead */
    default boolean isAlive() {
        return state().isAlive();
    }

    /** Shuts the worker down, killing it (and everything it started) if it does not go quickly. */
    @Override
    void close();
}
