package org.archpool.orchestrator.schedule;

import java.util.List;
import org.archpool.protocol.Phase;

/** Told what the scheduler does, e.g. to print progress. Called from slot threads. */
public interface SchedulerListener {

    default void started(String jobId, String worker, int attempt) {
    }

    default void phase(String jobId, Phase phase) {
    }

    default void finished(JobOutcome outcome) {
    }

    SchedulerListener NONE = new SchedulerListener() {
    };

    /** @return a listener that tells each of {@code listeners}, in order */
    static SchedulerListener all(SchedulerListener... listeners) {
        List<SchedulerListener> list = List.of(listeners);
        return new SchedulerListener() {
            @Override
            public void started(String jobId, String worker, int attempt) {
                list.forEach(l -> l.started(jobId, worker, attempt));
            }

            @Override
            public void phase(String jobId, Phase phase) {
                list.forEach(l -> l.phase(jobId, phase));
            }

            @Override
            public void finished(JobOutcome outcome) {
                list.forEach(l -> l.finished(outcome));
            }
        };
    }
}
