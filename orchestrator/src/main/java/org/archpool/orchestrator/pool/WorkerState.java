package org.archpool.orchestrator.pool;

import java.util.Objects;

/**
 * Where a worker is in its life, as its handle knows it: {@link Starting} until it has said hello, then
 * {@link Idle} or {@link Busy} with one request, and finally {@link Dead} with the reason. A dead worker never
 * comes back; its slot gets a fresh one.
 */
public sealed interface WorkerState {

    /** Launched, has not said hello yet. */
    record Starting() implements WorkerState {
    }

    /** Ready for a request. */
    record Idle() implements WorkerState {
    }

    /** Running {@code requestId}. */
    record Busy(String requestId) implements WorkerState {
        public Busy {
            Objects.requireNonNull(requestId, "requestId");
        }
    }

    /**
     * Gone, or about to be: it failed, was shut down or its process ended.
     *
     * @param cause  the category, for reports and metrics
     * @param reason the sentence that says what happened
     */
    record Dead(WorkerFailure cause, String reason) implements WorkerState {
        public Dead {
            Objects.requireNonNull(cause, "cause");
            Objects.requireNonNull(reason, "reason");
        }
    }

    WorkerState STARTING = new Starting();
    WorkerState IDLE = new Idle();

    /** @return false only for {@link Dead} */
    default boolean isAlive() {
        return !(this instanceof Dead);
    }
}
