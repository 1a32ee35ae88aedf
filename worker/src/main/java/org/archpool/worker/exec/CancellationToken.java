package org.archpool.worker.exec;

import java.util.ArrayList;
import java.util.List;

/** Set once when a job must stop; callbacks registered before or after run exactly once. Thread-safe. */
public final class CancellationToken {

    private final List<Runnable> callbacks = new ArrayList<>();
    private boolean cancelled;

    public void cancel() {
        List<Runnable> toRun;
        synchronized (this) {
            if (cancelled) {
                return;
            }
            cancelled = true;
            toRun = List.copyOf(callbacks);
            callbacks.clear();
        }
        toRun.forEach(Runnable::run);
    }

    public synchronized boolean isCancelled() {
        return cancelled;
    }

    /**
     * Runs {@code callback} when the token is cancelled, at once if it already is.
     *
     * @return an action that unregisters the callback
     */
    public Runnable onCancel(Runnable callback) {
        synchronized (this) {
            if (!cancelled) {
                callbacks.add(callback);
                return () -> {
                    synchronized (this) {
                        callbacks.remove(callback);
                    }
                };
            }
        }
        callback.run();
        return () -> { };
    }
}
