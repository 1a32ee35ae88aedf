package org.archpool.worker;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Whether this worker JVM is being terminated from outside: SIGTERM or SIGINT started its shutdown hooks.
 * Whoever sent it usually signalled the job's processes too (Slurm cancelling a step signals every process of
 * it), so a job that ends by a signal at that moment did not fail: the infrastructure under it went away. Its
 * result is then withheld; the coordinator sees the worker end without one and retries the job elsewhere.
 */
public final class Termination {

    private final CountDownLatch begun = new CountDownLatch(1);

    /** Called first thing by the worker's shutdown hook. */
    public void begin() {
        begun.countDown();
    }

    /** Whether termination has begun. */
    public boolean begun() {
        return begun.getCount() == 0;
    }

    /**
     * Waits up to {@code within} for termination to begin: a signal sent to a whole step reaches the job's
     * processes and this JVM at about the same time, but their ends are noticed in either order.
     */
    public boolean begins(Duration within) {
        try {
            return begun.await(within.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return begun();
        }
    }
}
