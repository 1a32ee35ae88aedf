package org.archpool.protocol;

import java.util.List;
import java.util.Objects;

/**
 * Coordinator → worker: run {@code steps}, the concrete processes of {@code job} for {@code target}. The worker
 * answers with progress lines and exactly one {@link BuildResult} carrying the same {@code requestId}.
 *
 * @param job       the job the steps belong to, as the coordinator made it concrete: its id and kind name the
 *                  job's log, its output folder and {@code artifacts} say what to inspect after it succeeds
 * @param target    what the steps were made for; the worker writes it into the job's log and derives nothing
 *                  from it
 * @param steps     the processes to run, in order; the first that does not succeed ends the job
 * @param timeoutMs the job's whole time limit (0 = none)
 * @param logPath   absolute path of the file that receives every line the job's processes print
 * @param maxLogBytes the most bytes the job's log may hold; over it the log keeps its head and its tail and says
 *                  what was cut between them. Null (absent on the wire) for no cap
 */
public record BuildRequest(
        String requestId, JobSpec job, Target target, List<Step> steps, long timeoutMs, String logPath,
        Long maxLogBytes)
        implements Message {

    /** A request whose log has no size cap. */
    public BuildRequest(String requestId, JobSpec job, Target target, List<Step> steps, long timeoutMs,
                        String logPath) {
        this(requestId, job, target, steps, timeoutMs, logPath, null);
    }

    public BuildRequest {
        Objects.requireNonNull(requestId, "build.requestId");
        Objects.requireNonNull(job, "build.job");
        Objects.requireNonNull(target, "build.target");
        Objects.requireNonNull(steps, "build.steps");
        steps = List.copyOf(steps);
        if (steps.isEmpty()) {
            throw new IllegalArgumentException("build.steps must not be empty");
        }
        Objects.requireNonNull(logPath, "build.logPath");
        if (timeoutMs < 0) {
            throw new IllegalArgumentException("build.timeoutMs must be >= 0");
        }
        if (maxLogBytes != null && maxLogBytes <= 0) {
            throw new IllegalArgumentException("build.maxLogBytes must be > 0 (leave it out for no cap)");
        }
    }
}
