package org.archpool.orchestrator.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.Phase;
import org.junit.jupiter.api.Test;

class WorkerPoolTest {

    /** A clock the test moves by hand. */
    static final class ManualClock extends Clock {
        long millis;

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis);
        }
    }

    /** A worker that does nothing; only its identity matters here, and how often it was closed. */
    record IdleWorker(String id, long pid, AtomicInteger closes) implements Worker {
        IdleWorker(String id, long pid) {
            this(id, pid, new AtomicInteger());
        }

        @Override
        public CompletableFuture<BuildResult> execute(BuildRequest request, Consumer<Phase> progress) {
            return new CompletableFuture<>();
        }

        @Override
        public void cancel(String requestId) {
        }

        @Override
        public WorkerState state() {
            return WorkerState.IDLE;
        }

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    /** A launcher whose workers never start, as a worker JVM refusing its options never does. */
    private static WorkerLauncher neverStarts(AtomicInteger launches) {
        return new WorkerLauncher() {
            @Override
            public Worker launch(String workerId) throws WorkerFailedException {
                launches.incrementAndGet();
                throw new WorkerFailedException(WorkerFailure.START, "worker " + workerId
                        + " closed its output (it says: Unrecognized VM option 'Bogus')");
            }

            @Override
            public String mode() {
                return "process";
            }
        };
    }

    @Test
    void aPoolWhoseWorkersNeverStartStopsLaunchingAfterTwoFailedStartsPerSlot() {
        AtomicInteger launches = new AtomicInteger();
        try (WorkerPool pool = new WorkerPool(neverStarts(launches), 2, 0, new ManualClock(), e -> { })) {
            for (int i = 0; i < 10; i++) {
                int slot = i % 2;
                assertThatThrownBy(() -> pool.workerFor(slot))
                        .isInstanceOf(WorkerFailedException.class).hasMessageContaining("Unrecognized VM option");
            }
            assertThat(launches).hasValue(4);
            assertThat(pool.noWorkerStarted()).contains("Unrecognized VM option 'Bogus'");
            assertThat(pool.events()).extracting(WorkerEvent::event).containsOnly("failed_to_start").hasSize(4);
        }
    }

    @Test
    void aPoolInWhichOneWorkerStartedKeepsTrying() throws Exception {
        AtomicInteger launches = new AtomicInteger();
        WorkerLauncher failing = neverStarts(launches);
        WorkerLauncher firstStarts = new WorkerLauncher() {
            @Override
            public Worker launch(String workerId) throws WorkerFailedException {
                return workerId.equals("w1") ? new IdleWorker(workerId, 1) : failing.launch(workerId);
            }

            @Override
            public String mode() {
                return "process";
            }
        };
        try (WorkerPool pool = new WorkerPool(firstStarts, 2, 0, new ManualClock(), e -> { })) {
            pool.workerFor(0);
            for (int i = 0; i < 6; i++) {
                assertThatThrownBy(() -> pool.workerFor(1))
                        .isInstanceOf(WorkerFailedException.class);
            }
            assertThat(launches).hasValue(6);
            assertThat(pool.noWorkerStarted()).isNull();
        }
    }

    @Test
    void aStartRecordsHowLongTheLaunchTookUntilHello() throws Exception {
        ManualClock clock = new ManualClock();
        clock.millis = 1_000;
        WorkerLauncher launcher = new WorkerLauncher() {
            @Override
            public Worker launch(String workerId) {
                clock.millis += 137; // the worker's JVM start and hello
                return new IdleWorker(workerId, 4242);
            }

            @Override
            public String mode() {
                return "process";
            }
        };
        List<WorkerEvent> seen = new ArrayList<>();
        try (WorkerPool pool = new WorkerPool(launcher, 2, 0, clock, seen::add)) {
            clock.millis += 50;
            pool.workerFor(0);
            pool.workerFor(0); // reused: no second start
            pool.workerFor(1);
        }
        assertThat(seen).extracting(WorkerEvent::event).containsExactly("started", "started");
        assertThat(seen).extracting(WorkerEvent::startMs).containsExactly(137L, 137L);
        assertThat(seen).extracting(WorkerEvent::atMs).containsExactly(187L, 324L);
    }

    @Test
    void aJobWaitsForTheWarmUpStartOfItsSlotInsteadOfStartingASecondWorker() throws Exception {
        CountDownLatch launching = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger launches = new AtomicInteger();
        WorkerLauncher launcher = new WorkerLauncher() {
            @Override
            public Worker launch(String workerId) throws WorkerFailedException {
                launches.incrementAndGet();
                launching.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new WorkerFailedException(WorkerFailure.SHUTDOWN, "interrupted");
                }
                return new IdleWorker(workerId, 100 + launches.get());
            }

            @Override
            public String mode() {
                return "process";
            }
        };
        try (WorkerPool pool = new WorkerPool(launcher, 2, Clock.systemUTC())) {
            pool.warmUp();
            assertThat(launching.await(10, TimeUnit.SECONDS)).as("both slots start at once").isTrue();
            CompletableFuture<Worker> job = CompletableFuture.supplyAsync(() -> {
                try {
                    return pool.workerFor(0);
                } catch (WorkerFailedException e) {
                    throw new IllegalStateException(e);
                }
            });
            release.countDown();
            assertThat(job.get(10, TimeUnit.SECONDS).id()).isEqualTo("w1");
            assertThat(pool.workerFor(1).id()).isEqualTo("w2");
            assertThat(launches).hasValue(2);
            assertThat(pool.events()).extracting(WorkerEvent::event).containsExactly("started", "started");
        }
    }

    @Test
    void aFailedWarmUpIsRecordedAndTheSlotStartsAgainWhenAJobNeedsIt() throws Exception {
        AtomicInteger launches = new AtomicInteger();
        CountDownLatch failed = new CountDownLatch(1);
        WorkerLauncher launcher = new WorkerLauncher() {
            @Override
            public Worker launch(String workerId) throws WorkerFailedException {
                if (launches.incrementAndGet() == 1) {
                    throw new WorkerFailedException(WorkerFailure.START, "no java here");
                }
                return new IdleWorker(workerId, 9);
            }

            @Override
            public String mode() {
                return "process";
            }
        };
        try (WorkerPool pool = new WorkerPool(launcher, 1, 0, Clock.systemUTC(), e -> {
            if (e.event().equals("failed_to_start")) {
                failed.countDown();
            }
        })) {
            pool.warmUp();
            assertThat(failed.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(pool.workerFor(0).id()).isEqualTo("w1.2");
            assertThat(pool.events()).extracting(WorkerEvent::event).containsExactly("failed_to_start", "started");
        }
    }

    @Test
    void closeWaitsForAStartInProgressAndThatWorkerIsClosedToo() throws Exception {
        CountDownLatch launching = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger closed = new AtomicInteger();
        WorkerLauncher launcher = new WorkerLauncher() {
            @Override
            public Worker launch(String workerId) throws WorkerFailedException {
                launching.countDown();
                try {
                    release.await(); // the worker's JVM starting
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new WorkerFailedException(WorkerFailure.SHUTDOWN, "interrupted");
                }
                return new IdleWorker(workerId, 5, closed);
            }

            @Override
            public String mode() {
                return "process";
            }
        };
        WorkerPool pool = new WorkerPool(launcher, 1, Clock.systemUTC());
        pool.warmUp();
        assertThat(launching.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> closing = CompletableFuture.runAsync(pool::close);
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> !closing.isDone());
        release.countDown();
        closing.get(10, TimeUnit.SECONDS);
        assertThat(closed).as("the worker that finished starting after close() began").hasValue(1);
    }

    @Test
    void eventsOtherThanAStartHaveNoStartTime() throws Exception {
        ManualClock clock = new ManualClock();
        WorkerLauncher launcher = new WorkerLauncher() {
            @Override
            public Worker launch(String workerId) {
                return new IdleWorker(workerId, 7);
            }

            @Override
            public String mode() {
                return "process";
            }
        };
        List<WorkerEvent> seen = new ArrayList<>();
        try (WorkerPool pool = new WorkerPool(launcher, 1, 1, clock, seen::add)) {
            Worker w = pool.workerFor(0);
            pool.jobFinished(0, w);
            Worker w2 = pool.workerFor(0);
            pool.discard(0, w2, WorkerFailure.EXIT, "gone");
        }
        assertThat(seen).extracting(WorkerEvent::event).containsExactly("started", "recycled", "started", "died");
        assertThat(seen).extracting(WorkerEvent::startMs).containsExactly(0L, null, 0L, null);
    }
}
