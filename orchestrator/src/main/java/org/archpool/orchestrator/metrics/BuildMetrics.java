package org.archpool.orchestrator.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import org.archpool.orchestrator.arch.ProbeReport;
import org.archpool.orchestrator.arch.Resolution;
import org.archpool.orchestrator.pool.WorkerEvent;
import org.archpool.orchestrator.schedule.JobOutcome;
import org.archpool.orchestrator.schedule.SchedulerListener;
import org.archpool.protocol.PhaseTiming;

/**
 * Records one build into a {@link MeterRegistry}. It listens to the scheduler (each finished job) and to the pool
 * (each worker start and death), is told the resolution's probes, and exposes live gauges of the pool. Names are
 * Micrometer's dotted form; the Prometheus names (with units and {@code _total}) are in {@code docs/metrics.md}.
 * Thread-safe: meters are.
 */
public final class BuildMetrics implements SchedulerListener, Consumer<WorkerEvent> {

    static final String QUEUE_WAIT = "archpool.job.queue.wait";
    static final String PHASE = "archpool.job.phase";
    static final String DURATION = "archpool.job.duration";
    static final String JOBS = "archpool.jobs";
    static final String RETRIES = "archpool.job.retries";
    static final String WORKER_STARTS = "archpool.worker.starts";
    static final String WORKER_START_TIME = "archpool.worker.start";
    static final String WORKER_START_FAILURES = "archpool.worker.start.failures";
    static final String WORKER_DEATHS = "archpool.worker.deaths";
    static final String WORKER_RECYCLES = "archpool.worker.recycles";
    static final String PROBES = "archpool.probes";
    static final String PROBE_DURATION = "archpool.probe.duration";
    static final String WORKERS_BUSY = "archpool.workers.busy";
    static final String WORKERS_IDLE = "archpool.workers.idle";
    static final String QUEUE_LENGTH = "archpool.queue.length";
    static final String CACHE = "archpool.cache.jobs";

    private final MeterRegistry registry;

    public BuildMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /**
     * Registers the live gauges of the pool.
     *
     * @param busy   how many workers run a job now
     * @param live   how many workers are started now (busy or idle)
     * @param queued how many jobs wait for a worker now
     */
    public void watchPool(IntSupplier busy, IntSupplier live, IntSupplier queued) {
        Gauge.builder(WORKERS_BUSY, busy, IntSupplier::getAsInt)
                .description("Workers running a job").register(registry);
        Gauge.builder(WORKERS_IDLE, () -> Math.max(0, live.getAsInt() - busy.getAsInt()))
                .description("Started workers waiting for a job").register(registry);
        Gauge.builder(QUEUE_LENGTH, queued, IntSupplier::getAsInt)
                .description("Jobs waiting for a worker").register(registry);
    }

    /** Counts and times the probes that resolved the architecture (zero when {@code --arch} or env decided). */
    public void resolved(Resolution resolution) {
        for (ProbeReport p : resolution.probes()) {
            Counter.builder(PROBES).description("Detection tools run (rocminfo, amdgpu-arch, nvidia-smi)")
                    .tag("tool", p.tool()).tag("status", p.status()).register(registry).increment();
            Timer.builder(PROBE_DURATION).description("How long each detection tool ran")
                    .tag("tool", p.tool()).register(registry).record(Duration.ofMillis(p.ms()));
        }
    }

    @Override
    public void finished(JobOutcome o) {
        String kind = o.kind();
        String outcome = o.outcome().wireName();
        Counter.builder(JOBS).description("Jobs by outcome").tag("kind", kind).tag("outcome", outcome)
                .register(registry).increment();
        if (o.cache() != null) {
            Counter.builder(CACHE).description("Jobs by what the build cache did for them (hit, remote-hit, miss,"
                    + " stored, uncacheable, rejected)").tag("kind", kind).tag("result", o.cache())
                    .register(registry).increment();
        }
        if (o.attempts() > 1) {
            Counter.builder(RETRIES).description("Attempts beyond the first, after a worker failed")
                    .tag("kind", kind).register(registry).increment(o.attempts() - 1.0);
        }
        Timer.builder(QUEUE_WAIT).description("From submission to the first dispatch")
                .tag("kind", kind).tag("outcome", outcome).register(registry)
                .record(Duration.ofMillis(o.queueWaitMs()));
        if (o.attempts() > 0) {
            Timer.builder(DURATION).description("From the first dispatch to the outcome")
                    .tag("kind", kind).tag("outcome", outcome).register(registry)
                    .record(Duration.ofMillis(o.totalMs()));
        }
        for (PhaseTiming phase : o.phases()) {
            Timer.builder(PHASE).description("Time in each phase: configure, build, command, inspect")
                    .tag("phase", phase.name().wireName()).tag("kind", kind).tag("outcome", outcome)
                    .register(registry).record(Duration.ofMillis(phase.ms()));
        }
    }

    /** A worker started, died, failed to start or was recycled. */
    @Override
    public void accept(WorkerEvent e) {
        switch (e.event()) {
            case "started" -> {
                Counter.builder(WORKER_STARTS).description("Worker processes started").register(registry).increment();
                if (e.startMs() != null) {
                    Timer.builder(WORKER_START_TIME).description("From launching a worker to its hello")
                            .register(registry).record(Duration.ofMillis(e.startMs()));
                }
            }
            case "died" -> Counter.builder(WORKER_DEATHS).description("Workers lost under a job, by cause")
                    .tag("cause", e.cause() == null ? "unknown" : e.cause()).register(registry).increment();
            case "failed_to_start" -> Counter.builder(WORKER_START_FAILURES)
                    .description("Workers that could not be started, by cause")
                    .tag("cause", e.cause() == null ? "unknown" : e.cause()).register(registry).increment();
            case "recycled" -> Counter.builder(WORKER_RECYCLES).description("Workers replaced by --max-jobs-per-worker")
                    .register(registry).increment();
            default -> throw new IllegalArgumentException("unknown worker event " + e.event());
        }
    }
}
