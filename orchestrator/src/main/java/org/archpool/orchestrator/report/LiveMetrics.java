package org.archpool.orchestrator.report;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A long-running session's {@code --metrics} file, rewritten atomically every {@code interval} while it runs, so
 * that a textfile collector reads live counts and not only the last ones. A write that fails is logged (once
 * until one succeeds again) and tried again at the next tick; the session's final write is its own.
 */
public final class LiveMetrics implements AutoCloseable {

    /** How often {@code archpool serve} rewrites its {@code --metrics} file. */
    public static final Duration SERVE_INTERVAL = Duration.ofSeconds(5);

    private static final Logger LOG = LoggerFactory.getLogger(LiveMetrics.class);

    private final ScheduledExecutorService timer;
    private final PrometheusMeterRegistry registry;
    private final Path file;
    private boolean failing; // only on the timer's thread

    private LiveMetrics(PrometheusMeterRegistry registry, Path file, ScheduledExecutorService timer) {
        this.registry = registry;
        this.file = file;
        this.timer = timer;
    }

    /**
     * Starts rewriting {@code file} from {@code registry} (the first write at once); does nothing when there is no
     * file or the registry is not a Prometheus one.
     */
    public static LiveMetrics start(Object registry, Path file, Duration interval) {
        if (file == null || !(registry instanceof PrometheusMeterRegistry prometheus)) {
            return new LiveMetrics(null, null, null);
        }
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "archpool-live-metrics");
            t.setDaemon(true);
            return t;
        });
        LiveMetrics live = new LiveMetrics(prometheus, file, timer);
        timer.scheduleWithFixedDelay(live::write, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
        return live;
    }

    private void write() {
        try {
            PrometheusFile.write(registry, file);
            failing = false;
        } catch (IOException | RuntimeException e) {
            if (!failing) {
                LOG.warn("cannot rewrite the live metrics file {} (tried again every tick): {}", file, e.toString());
            }
            failing = true;
        }
    }

    /** Stops the rewrites and waits for one in progress. */
    @Override
    public void close() {
        if (timer == null) {
            return;
        }
        timer.shutdownNow();
        try {
            timer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
