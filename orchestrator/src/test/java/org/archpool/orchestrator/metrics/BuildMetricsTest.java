package org.archpool.orchestrator.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.archpool.orchestrator.arch.ProbeReport;
import org.archpool.orchestrator.arch.Resolution;
import org.archpool.orchestrator.pool.WorkerEvent;
import org.archpool.orchestrator.pool.WorkerFailure;
import org.archpool.orchestrator.report.PrometheusFile;
import org.archpool.orchestrator.schedule.JobOutcome;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;
import org.archpool.protocol.PhaseTiming;
import org.archpool.protocol.Platform;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BuildMetricsTest {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final BuildMetrics metrics = new BuildMetrics(registry);

    private static JobOutcome job(String id, Outcome outcome, int attempts, PhaseTiming... phases) {
        return new JobOutcome(id, "cmake", outcome, 0, null, attempts == 0 ? null : "w1", attempts, 0, 250,
                0, 0, 0, 0, 4000, List.of(phases), null, null, null, null, null, null);
    }

    @Test
    void jobsAreCountedAndTimedByOutcomeKindAndPhase() {
        metrics.finished(job("a", Outcome.SUCCEEDED, 1, new PhaseTiming(Phase.CONFIGURE, 3000, 0),
                new PhaseTiming(Phase.BUILD, 1000, 0), new PhaseTiming(Phase.INSPECT, 5, null)));
        metrics.finished(job("b", Outcome.SUCCEEDED, 3, new PhaseTiming(Phase.CONFIGURE, 1000, 0)));
        metrics.finished(job("c", Outcome.FAILED, 1, new PhaseTiming(Phase.CONFIGURE, 500, 1)));
        metrics.finished(job("d", Outcome.CANCELLED, 0));

        assertThat(registry.get("archpool.jobs").tags("kind", "cmake", "outcome", "succeeded").counter().count())
                .isEqualTo(2);
        assertThat(registry.get("archpool.jobs").tags("outcome", "failed").counter().count()).isEqualTo(1);
        assertThat(registry.get("archpool.job.retries").counter().count()).isEqualTo(2);
        assertThat(registry.get("archpool.job.phase").tags("phase", "configure", "outcome", "succeeded").timer()
                .totalTime(java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(4000);
        assertThat(registry.get("archpool.job.phase").tags("phase", "inspect").timer().count()).isEqualTo(1);
        assertThat(registry.get("archpool.job.queue.wait").tags("outcome", "cancelled").timer().count()).isEqualTo(1);
        assertThat(registry.find("archpool.job.duration").tags("outcome", "cancelled").timer())
                .as("a job that never ran has no duration").isNull();

        String text = registry.scrape();
        assertThat(text).contains("archpool_jobs_total{kind=\"cmake\",outcome=\"succeeded\"} 2")
                .contains("archpool_job_phase_seconds_count{kind=\"cmake\",outcome=\"succeeded\",phase=\"configure\"} 2")
                .contains("archpool_job_phase_seconds_sum{kind=\"cmake\",outcome=\"succeeded\",phase=\"configure\"} 4")
                .contains("archpool_job_retries_total{kind=\"cmake\"} 2");
    }

    @Test
    void workerStartsAndDeathsByCause() {
        metrics.accept(WorkerEvent.started("w1", 10L, 0, 300L, null));
        metrics.accept(WorkerEvent.started("w2", 11L, 0, 500L, null));
        metrics.accept(WorkerEvent.died("w1", 10L, 5, WorkerFailure.HANG, "hung: no heartbeat"));
        metrics.accept(WorkerEvent.failedToStart("w3", 5, WorkerFailure.START, "cannot start"));
        metrics.accept(WorkerEvent.recycled("w2", 11L, 9, "ran 5 jobs"));
        String text = registry.scrape();
        assertThat(text).contains("archpool_worker_starts_total 2")
                .contains("archpool_worker_start_seconds_count 2")
                .contains("archpool_worker_start_seconds_sum 0.8")
                .contains("archpool_worker_deaths_total{cause=\"hang\"} 1")
                .contains("archpool_worker_start_failures_total{cause=\"start\"} 1")
                .contains("archpool_worker_recycles_total 1");
    }

    @Test
    void probesAreCountedByToolAndStatus() {
        Resolution resolution = new Resolution(Platform.CUDA, List.of("90"), "detected:nvidia-smi", null, List.of(),
                null, List.of(), List.of(
                        new ProbeReport("rocminfo", List.of("rocminfo"), "not_found", null, 1, 0, null),
                        new ProbeReport("nvidia-smi", List.of("nvidia-smi"), "detected", 0, 80, 1, null)));
        metrics.resolved(resolution);
        assertThat(registry.scrape()).contains("archpool_probes_total{status=\"detected\",tool=\"nvidia-smi\"} 1")
                .contains("archpool_probes_total{status=\"not_found\",tool=\"rocminfo\"} 1")
                .contains("archpool_probe_duration_seconds_count{tool=\"nvidia-smi\"} 1");
    }

    @Test
    void gaugesFollowThePoolLive(@TempDir Path dir) throws Exception {
        AtomicInteger busy = new AtomicInteger(2);
        AtomicInteger live = new AtomicInteger(3);
        AtomicInteger queued = new AtomicInteger(7);
        metrics.watchPool(busy::get, live::get, queued::get);
        assertThat(registry.get("archpool.workers.busy").gauge().value()).isEqualTo(2);
        assertThat(registry.get("archpool.workers.idle").gauge().value()).isEqualTo(1);
        queued.set(0);
        busy.set(0);
        assertThat(registry.get("archpool.queue.length").gauge().value()).isZero();
        assertThat(registry.get("archpool.workers.idle").gauge().value()).isEqualTo(3);

        Path file = dir.resolve("sub/archpool.prom");
        PrometheusFile.write(registry, file);
        assertThat(Files.readString(file)).contains("archpool_workers_idle 3").contains("# TYPE archpool_queue_length gauge");
        assertThat(Files.list(file.getParent())).containsExactly(file);
    }
}
