package org.archpool.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Objects;

/**
 * Worker → coordinator: how a request ended; exactly one per {@link BuildRequest}.
 *
 * @param exitCode the exit status of the last process run, when it exited
 * @param signal   the signal that ended it (e.g. {@code SIGSEGV}), when one did
 * @param logTail  the last lines of the job's log, for failures
 * @param message  a one-line explanation for anything but success
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BuildResult(
        String requestId,
        Outcome outcome,
        Integer exitCode,
        String signal,
        List<PhaseTiming> phases,
        List<Artifact> artifacts,
        String logPath,
        String logTail,
        String message) implements Message {
    public BuildResult {
        Objects.requireNonNull(requestId, "result.requestId");
        Objects.requireNonNull(outcome, "result.outcome");
        phases = phases == null ? List.of() : List.copyOf(phases);
        artifacts = artifacts == null ? List.of() : List.copyOf(artifacts);
    }

    /** Milliseconds spent in {@code phase}, 0 when it did not run. */
    public long millisIn(Phase phase) {
        return phases.stream().filter(p -> p.name() == phase).mapToLong(PhaseTiming::ms).sum();
    }
}
