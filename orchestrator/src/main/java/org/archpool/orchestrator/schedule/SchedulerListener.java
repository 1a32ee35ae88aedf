package org.archpool.orchestrator.schedule;

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
}
