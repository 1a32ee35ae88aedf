package org.archpool.worker;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.Phase;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Step;
import org.archpool.protocol.Target;

/** Build requests as the coordinator sends them: a command job for CUDA 90, with its one step concrete. */
final class TestRequests {

    static final Target TARGET = new Target(Platform.CUDA, List.of("90"));

    private TestRequests() {
    }

    /** Job {@code jobId}'s request {@code requestId}: {@code argv} run in {@code dir}, logged to {@code <requestId>.log}. */
    static BuildRequest command(String requestId, String jobId, Path dir, long timeoutMs, List<String> argv) {
        CommandJob job = new CommandJob(jobId, argv, dir.toString(), null, timeoutMs == 0 ? null : timeoutMs, null);
        return new BuildRequest(requestId, job, TARGET,
                List.of(new Step(Phase.COMMAND, argv, dir.toString(), Map.of("CUDAARCHS", "90"))), timeoutMs,
                dir.resolve(requestId.replace('#', '_') + ".log").toString());
    }
}
