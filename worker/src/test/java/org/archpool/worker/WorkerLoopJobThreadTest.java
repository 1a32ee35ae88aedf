package org.archpool.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.Message;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;
import org.archpool.protocol.Progress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whatever happens in a worker's job thread, the job ends: an error of any kind is the job's {@code failed}
 * result, and heartbeats say that the job thread is at work on the job, not only that the worker is up.
 */
@Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class WorkerLoopJobThreadTest {

    private static final Duration STALL = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    /** A clock the test moves. */
    private static final class ManualClock extends Clock {
        private final AtomicLong millis = new AtomicLong(1_000_000);

        void advance(Duration d) {
            millis.addAndGet(d.toMillis());
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
            return Instant.ofEpochMilli(millis.get());
        }
    }

    private static BuildResult succeeded(BuildRequest r) {
        return new BuildResult(r.requestId(), Outcome.SUCCEEDED, 0, null, null, null, r.logPath(), null, null);
    }

    private static int recurse(int n) {
        return recurse(n + 1) + 1;
    }

    @Test
    void anyThrowableInTheJobThreadIsThatJobsFailedResultAndTheWorkerRunsTheNextJob() throws Exception {
        RequestRunner runner = (request, token, activity) -> switch (request.requestId()) {
            case "oom" -> throw new OutOfMemoryError("Java heap space");
            case "deep" -> {
                recurse(0);
                yield succeeded(request);
            }
            case "bug" -> throw new IllegalStateException("a bug");
            default -> succeeded(request);
        };
        try (PipedWorker worker = PipedWorker.start(dir, runner, Clock.systemUTC(), STALL)) {
            worker.readHello();
            worker.sendCommand("oom", "true");
            BuildResult oom = worker.resultOf("oom");
            assertThat(oom.outcome()).isEqualTo(Outcome.FAILED);
            assertThat(oom.message()).contains("java.lang.OutOfMemoryError: Java heap space")
                    .contains("ARCHPOOL_WORKER_JAVA_OPTS");
            worker.sendCommand("deep", "true");
            assertThat(worker.resultOf("deep").message()).contains("java.lang.StackOverflowError");
            worker.sendCommand("bug", "true");
            assertThat(worker.resultOf("bug").message()).contains("java.lang.IllegalStateException: a bug");
            worker.sendCommand("fine", "true");
            assertThat(worker.resultOf("fine").outcome()).isEqualTo(Outcome.SUCCEEDED);
        }
    }

    @Test
    void aJobThreadThatEndsWithoutAResultHasItsFailureSentByTheHeartbeat() throws Exception {
        // an error whose every use fails again: the job thread cannot even describe it
        Error unspeakable = new Error() {
            @Override
            public String toString() {
                throw new OutOfMemoryError("again");
            }

            @Override
            public String getMessage() {
                throw new OutOfMemoryError("again");
            }
        };
        CountDownLatch thrown = new CountDownLatch(1);
        RequestRunner runner = (request, token, activity) -> {
            thrown.countDown();
            throw unspeakable;
        };
        try (PipedWorker worker = PipedWorker.start(dir, runner, Clock.systemUTC(), STALL)) {
            worker.readHello();
            worker.sendCommand("lost", "true");
            assertThat(thrown.await(10, TimeUnit.SECONDS)).isTrue();
            // the job thread's way out is over once the loop no longer counts it as inside the job
            Message m;
            do {
                worker.heartbeat();
                m = worker.read();
            } while (m instanceof Progress);
            assertThat(m).isInstanceOf(BuildResult.class);
            BuildResult lost = (BuildResult) m;
            assertThat(lost.requestId()).isEqualTo("lost");
            assertThat(lost.outcome()).isEqualTo(Outcome.FAILED);
            assertThat(lost.message()).contains("job thread ended in the command phase without a result");
        }
    }

    @Test
    void heartbeatsStopWhileTheJobThreadShowsNoSignOfLifeOutsideItsSteps() throws Exception {
        ManualClock clock = new ManualClock();
        CountDownLatch inStep = new CountDownLatch(1);
        CountDownLatch leaveStep = new CountDownLatch(1);
        CountDownLatch wedged = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        RequestRunner runner = (request, token, activity) -> {
            try {
                activity.phase(Phase.COMMAND);
                activity.waitingForStep(true);
                inStep.countDown();
                leaveStep.await();
                activity.waitingForStep(false);
                activity.phase(Phase.INSPECT);
                wedged.countDown();
                release.await(); // stuck, as a reader in an endless loop would be
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return succeeded(request);
        };
        try (PipedWorker worker = PipedWorker.start(dir, runner, clock, STALL)) {
            worker.readHello();
            worker.sendCommand("r", "true");
            assertThat(worker.read()).isEqualTo(new Progress("r", Phase.COMMAND));
            assertThat(inStep.await(10, TimeUnit.SECONDS)).isTrue();
            clock.advance(STALL.multipliedBy(10));
            worker.heartbeat();
            assertThat(worker.read()).as("waiting for a step is work, however long")
                    .isEqualTo(new Progress("r", Phase.COMMAND));
            leaveStep.countDown();
            assertThat(worker.read()).isEqualTo(new Progress("r", Phase.INSPECT));
            assertThat(wedged.await(10, TimeUnit.SECONDS)).isTrue();
            worker.heartbeat();
            assertThat(worker.read()).isEqualTo(new Progress("r", Phase.INSPECT));
            clock.advance(STALL.plusSeconds(1));
            worker.heartbeat();
            worker.heartbeat();
            release.countDown();
            assertThat(worker.read()).as("no heartbeat while the thread was stuck").isInstanceOf(BuildResult.class);
        }
    }
}
