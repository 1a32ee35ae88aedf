package org.archpool.orchestrator.pool;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Time that passed while the coordinator was running: a monotonic clock that does not count time the process
 * spent stopped (Ctrl-Z, SIGSTOP, a frozen cgroup, a suspended laptop), so that a whole build that was stopped
 * and continued does not find its workers "silent" for the time it was stopped.
 *
 * <p>The rule: the clock is {@linkplain #tick() ticked} every {@code tick} (by the pool's watchdog thread), and
 * between two ticks it counts at most {@code tick + slack}. While the process is stopped nothing ticks; when it
 * continues, the first tick (or any reading before it) finds the last tick late by the time it was stopped and
 * counts only {@code tick + slack} of it. So a stop of any length counts as at most {@code tick + slack}, and
 * a reading taken before the late tick has run already counts no more than that. A coordinator that is merely
 * slow to tick (a long GC pause, an overloaded machine) makes the clock slow too: silences then take longer to
 * be declared, never shorter. Time in which the coordinator runs normally is counted in full.
 *
 * <p>{@link System#nanoTime()} keeps counting while a process is stopped, which is why heartbeats are measured
 * on this clock and not on it.
 */
public final class AwakeClock {

    /** How often the pool's clock ticks. */
    public static final Duration DEFAULT_TICK = Duration.ofMillis(100);
    /** How late a tick may be and still count in full. */
    public static final Duration DEFAULT_SLACK = Duration.ofMillis(400);

    private final LongSupplier nanoTime;
    private final long maxStepNanos;
    private long lastTickNanos;
    private long awakeNanos;

    /**
     * @param nanoTime a monotonic clock in nanoseconds ({@code System::nanoTime})
     * @param tick     how often {@link #tick()} is called
     * @param slack    how late a tick may be and still count in full
     */
    public AwakeClock(LongSupplier nanoTime, Duration tick, Duration slack) {
        this.nanoTime = nanoTime;
        this.maxStepNanos = tick.plus(slack).toNanos();
        this.lastTickNanos = nanoTime.getAsLong();
    }

    /** A clock over {@link System#nanoTime()} with the default tick and slack, not yet ticking. */
    public static AwakeClock system() {
        return new AwakeClock(System::nanoTime, DEFAULT_TICK, DEFAULT_SLACK);
    }

    /** Ticks this clock every {@link #DEFAULT_TICK} on {@code scheduler}; cancel the future to stop. */
    public ScheduledFuture<?> tickOn(ScheduledExecutorService scheduler) {
        long period = DEFAULT_TICK.toNanos();
        return scheduler.scheduleAtFixedRate(this::tick, period, period, TimeUnit.NANOSECONDS);
    }

    /** Records that the process is running now; called every {@code tick}. */
    public synchronized void tick() {
        long now = nanoTime.getAsLong();
        awakeNanos += Math.min(Math.max(0, now - lastTickNanos), maxStepNanos);
        lastTickNanos = now;
    }

    /** Nanoseconds the process was awake, from an arbitrary origin; only differences mean anything. */
    public synchronized long nanos() {
        long now = nanoTime.getAsLong();
        return awakeNanos + Math.min(Math.max(0, now - lastTickNanos), maxStepNanos);
    }
}
