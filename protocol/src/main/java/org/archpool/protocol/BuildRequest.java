package org.archpool.protocol;

import java.util.Objects;

/**
 * Coordinator → worker: run {@code job} for {@code target}. The worker answers with progress lines and
 * exactly one {@link BuildResult} carrying the same {@code requestId}.
 *
 * @param timeoutMs        the job's whole time limit (0 = none)
 * @param buildParallelism {@code K} of {@code cmake --build --parallel K}
 * @param logPath          absolute path of the file that receives every line the job's processes print
 */
public record BuildRequest(
        String requestId, JobSpec job, Target target, long timeoutMs, int buildParallelism, String logPath)
        implements Message {
    public BuildRequest {
        Objects.requireNonNull(requestId, "build.requestId");
        Objects.requireNonNull(job, "build.job");
        Objects.requireNonNull(target, "build.target");
        Objects.requireNonNull(logPath, "build.logPath");
        if (timeoutMs < 0) {
            throw new IllegalArgumentException("build.timeoutMs must be >= 0");
        }
        if (buildParallelism < 1) {
            throw new IllegalArgumentException("build.buildParallelism must be >= 1");
        }
    }
}
