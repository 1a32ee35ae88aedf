package org.archpool.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.Message;
import org.archpool.protocol.Outcome;
import org.archpool.testing.MarkedProcesses;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker being terminated from outside (Slurm cancelling its step signals the job's processes too) withholds
 * the result of a job that the signal ended, so that the coordinator retries it rather than reporting it failed;
 * without a termination, such a job is reported as it ended.
 */
@Tag("process")
class WorkerTerminationTest {

    @TempDir
    Path dir;

    private final Termination termination = new Termination();

    @Test
    void aJobEndedBySigtermWhileTheWorkerIsTerminatedGetsNoResult() throws Exception {
        try (PipedWorker worker = PipedWorker.start(dir, termination)) {
            worker.readHello();
            worker.startCommand("r1", "sleep 0.2; kill -TERM $$");
            termination.begin(); // what the shutdown hook does when the same SIGTERM reaches the worker's JVM
            assertThat(worker.shutDownAndReadTheRest()).noneMatch(m -> m instanceof BuildResult);
        }
    }

    @Test
    void aTerminationThatShowsShortlyAfterTheJobsEndStillWithholdsItsResult() throws Exception {
        try (PipedWorker worker = PipedWorker.start(dir, termination)) {
            worker.readHello();
            String marker = MarkedProcesses.newMarker();
            worker.startCommand("r1", ": " + marker + "; touch job.started; kill -TERM $$");
            // the job's end comes first; the termination follows well within WorkerLoop.SIGNAL_SETTLE
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10))
                    .until(() -> Files.exists(dir.resolve("job.started")) && MarkedProcesses.alive(marker).isEmpty());
            termination.begin();
            assertThat(worker.shutDownAndReadTheRest()).noneMatch(m -> m instanceof BuildResult);
        }
    }

    @Test
    void withoutATerminationAJobEndedBySigtermIsReportedAsItEnded() throws Exception {
        try (PipedWorker worker = PipedWorker.start(dir, termination)) {
            worker.readHello();
            worker.startCommand("r1", "kill -TERM $$");
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
            worker.readHello();
            termination.begin();
            worker.startCommand("r1", "sleep 0.1; exit 3");
            assertThat(worker.shutDownAndReadTheRest()).filteredOn(m -> m instanceof BuildResult).singleElement()
                    .satisfies(m -> assertThat(((BuildResult) m).exitCode()).isEqualTo(3));
        }
    }
}
