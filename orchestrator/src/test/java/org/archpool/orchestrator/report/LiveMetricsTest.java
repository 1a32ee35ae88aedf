package org.archpool.orchestrator.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LiveMetricsTest {

    @TempDir
    Path dir;

    @Test
    void theFileFollowsTheCountsWhileItRunsAndStopsWhenClosed() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Counter jobs = registry.counter("archpool_test_jobs");
        Path file = dir.resolve("metrics.prom");
        try (LiveMetrics live = LiveMetrics.start(registry, file, Duration.ofMillis(50))) {
            await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(file)
                    && Files.readString(file).contains("archpool_test_jobs_total 0.0"));
            jobs.increment(3);
            await().atMost(Duration.ofSeconds(10)).until(() -> Files.readString(file).contains("archpool_test_jobs_total 3.0"));
        }
        jobs.increment();
        Thread.sleep(200); // several intervals: a rewrite after close would show 4.0
        assertThat(Files.readString(file)).contains("archpool_test_jobs_total 3.0");
    }

    @Test
    void withoutAFileNothingIsWritten() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (LiveMetrics live = LiveMetrics.start(registry, null, Duration.ofMillis(10))) {
            assertThat(dir).isEmptyDirectory();
        }
    }
}
