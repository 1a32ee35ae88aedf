package org.archpool.orchestrator.report;

import java.util.function.Consumer;
import org.archpool.orchestrator.pool.WorkerEvent;
import org.archpool.orchestrator.schedule.JobOutcome;
import org.archpool.orchestrator.schedule.SchedulerListener;
import org.archpool.protocol.Outcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Writes what happens during a build to the coordinator's log: each attempt, outcome and worker event. */
public final class LogReporter implements SchedulerListener, Consumer<WorkerEvent> {

    private static final Logger LOG = LoggerFactory.getLogger(LogReporter.class);

    @Override
    public void started(String jobId, String worker, int attempt) {
        LOG.info("job {} attempt {} sent to worker {}", jobId, attempt, worker);
    }

    @Override
    public void finished(JobOutcome o) {
        if (o.outcome() == Outcome.SUCCEEDED) {
            LOG.info("job {} succeeded {} in {} ms; artifacts {}", o.id(),
                    o.worker() != null ? "on " + o.worker()
                            : "from the cache (" + o.cache() + ", key " + o.cacheKey() + ")",
                    o.totalMs(), o.artifacts().stream().map(a -> a.path() + " " + a.archs()).toList());
        } else {
            LOG.info("job {} {} (attempts {}): {}", o.id(), o.outcome().wireName(), o.attempts(), o.message());
        }
        o.warnings().forEach(w -> LOG.info("job {} warning: {}", o.id(), w));
        if (o.cacheNote() != null) {
            LOG.info("job {} cache {}: {}", o.id(), o.cache(), o.cacheNote());
        }
    }

    @Override
    public void accept(WorkerEvent e) {
        LOG.info("worker {} {}{}{}{}", e.worker(), e.event(), e.pid() == null ? "" : " (pid " + e.pid() + ")",
                e.host() == null ? "" : " on " + e.host(),
                e.reason() == null ? "" : ": " + (e.cause() == null ? "" : "[" + e.cause() + "] ") + e.reason());
    }
}
