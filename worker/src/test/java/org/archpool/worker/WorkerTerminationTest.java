package org.archpool.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.Hello;
import org.archpool.protocol.Message;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;
import org.archpool.protocol.Progress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker being terminated from outside (Slurm cancelling its step signals the job's processes too) withholds
 * the result of a job that the signal ended, so that the coordinator retries it rather than reporting it failed;
 * without a termination, such a job is reported as it ended.
 */
class WorkerTerminationTest {

    @TempDir
    Path dir;

    private final Termination termination = new Termination();

    @Test
    void aJobEndedBySigtermWhileTheWorkerIsTerminatedGetsNoResult() throws Exception {
        try (PipedWorker worker = PipedWorker.start(dir, termination)) {
            assertThat(worker.read()).isInstanceOf(Hello.class);
            worker.sendCommand("r1", "sleep 0.2; kill -TERM $$");
            assertThat(worker.read()).isEqualTo(new Progress("r1", Phase.COMMAND));
            termination.begin(); // what the shutdown hook does when the same SIGTERM reaches the worker's JVM
            assertThat(worker.shutDownAndReadTheRest()).noneMatch(m -> m instanceof BuildResult);
        }
    }

    @Test
    void aTerminationThatShowsShortlyAfterTheJobsEndStillWithholdsItsResult() throws Exception {
        try (PipedWorker worker = PipedWorker.start(dir, termination)) {
            assertThat(worker.read()).isInstanceOf(Hello.class);
            worker.sendCommand("r1", "kill -TERM $$");
            assertThat(worker.read()).isEqualTo(new Progress("r1", Phase.COMMAND));
            Thread.sleep(WorkerLoop.SIGNAL_SETTLE.toMillis() / 5);
            termination.begin();
            assertThat(worker.shutDownAndReadTheRest()).noneMatch(m -> m instanceof BuildResult);
        }
    }

    @Test
    void withoutATerminationAJobEndedBySigtermIsReportedAsItEnded() throws Exception {
        try (PipedWorker worker = PipedWorker.start(dir, termination)) {
            assertThat(worker.read()).isInstanceOf(Hello.class);
            worker.sendCommand("r1", "kill -TERM $$");
            assertThat(worker.read()).isEqualTo(new Progress("r1", Phase.COMMAND));
            List<Message> sent = worker.shutDownAndReadTheRest();
            assertThat(sent).filteredOn(m -> m instanceof BuildResult).singleElement()
                    .satisfies(m -> {
                        BuildResult r = (BuildResult) m;
                        assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
                        assertThat(r.signal()).isEqualTo("SIGTERM");
                    });
        }
    }

    @Test
    void aJobThatEndsNormallyIsReportedEvenDuringATermination() throws Exception {
        try (PipedWorker worker = PipedWorker.start(dir, termination)) {
            assertThat(worker.read()).isInstanceOf(Hello.class);
            termination.begin();
            worker.sendCommand("r1", "sleep 0.1; exit 3");
            assertThat(worker.read()).isEqualTo(new Progress("r1", Phase.COMMAND));
            assertThat(worker.shutDownAndReadTheRest()).filteredOn(m -> m instanceof BuildResult).singleElement()
                    .satisfies(m -> assertThat(((BuildResult) m).exitCode()).isEqualTo(3));
        }
    }
}
