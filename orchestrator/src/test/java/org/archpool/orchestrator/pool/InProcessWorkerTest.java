package org.archpool.orchestrator.pool;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Step;
import org.archpool.protocol.Target;
import org.archpool.worker.ArtifactScanner;
import org.archpool.worker.JobRunner;
import org.archpool.worker.exec.StepRunner;
import org.archpool.worker.inspect.GpuCodeInspector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** In thread mode, whatever the job thread throws is that job's outcome, as in a worker JVM. */
class InProcessWorkerTest {

    @TempDir
    Path dir;

    /** A clock that fails as the heap or the stack of a job thread can. */
    private static final class FailingClock extends Clock {
        private final Error error;

        FailingClock(Error error) {
            this.error = error;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            throw error;
        }
    }

    @Test
    void anErrorInTheJobThreadIsTheJobsFailedResult() throws Exception {
        for (Error error : List.of(new OutOfMemoryError("Java heap space"), new StackOverflowError())) {
            Clock clock = new FailingClock(error);
            InProcessWorker worker = new InProcessWorker("t1",
                    new JobRunner(new StepRunner(clock), new ArtifactScanner(new GpuCodeInspector()), clock));
            try {
                List<String> argv = List.of("true");
                BuildRequest request = new BuildRequest("r1", new CommandJob("j", argv, dir.toString(), null, null,
                        null), new Target(Platform.CUDA, List.of("90")),
                        List.of(new Step(Phase.COMMAND, argv, dir.toString(), Map.of())), 0,
                        dir.resolve("j.log").toString());

                BuildResult result = worker.execute(request, phase -> { }).get(30, TimeUnit.SECONDS);

                assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
                assertThat(result.requestId()).isEqualTo("r1");
                assertThat(result.message()).contains("the worker failed while running the job")
                        .contains(error.getClass().getName());
                assertThat(worker.state()).isEqualTo(WorkerState.IDLE);
            } finally {
                worker.close();
            }
        }
    }
}
