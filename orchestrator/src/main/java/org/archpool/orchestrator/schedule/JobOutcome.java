package org.archpool.orchestrator.schedule;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import org.archpool.protocol.Artifact;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.PhaseTiming;

/**
 * The one recorded outcome of a job, as the report shows it.
 *
 * @param worker          the worker that ran the last attempt (null when none did)
 * @param attempts        how many times the job was sent to a worker
 * @param startMs         when the last attempt was sent to a worker, in ms since the scheduler started
 * @param queueWaitMs     from submission to the first dispatch
 * @param inspectMs       reading the GPU code of the artifacts, in the worker
 * @param totalMs         from the first dispatch to the outcome
 * @param attemptFailures why earlier attempts crashed, in order
 * @param warnings        what the user should know about a job that passed (e.g. extra architectures)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JobOutcome(
        String id,
        String kind,
        Outcome outcome,
        Integer exitCode,
        String signal,
        String worker,
        int attempts,
        long startMs,
        long queueWaitMs,
        long configureMs,
        long buildMs,
        long commandMs,
        long inspectMs,
        long totalMs,
        List<PhaseTiming> phases,
        String logPath,
        String logTail,
        String message,
        List<Artifact> artifacts,
        List<String> attemptFailures,
        List<String> warnings) {

    public JobOutcome {
        phases = phases == null ? List.of() : List.copyOf(phases);
        artifacts = artifacts == null ? List.of() : List.copyOf(artifacts);
        attemptFailures = attemptFailures == null ? List.of() : List.copyOf(attemptFailures);
        warnings = warnings == null ? List.of() : List.copyOf(warnings);
    }
}
