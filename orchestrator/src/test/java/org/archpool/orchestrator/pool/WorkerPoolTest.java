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
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.Phase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

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

    /** A worker whose state the test sets, e.g. to dead, as its reader thread would. */
    record DyingWorker(String id, AtomicReference<WorkerState> now) implements Worker {
        DyingWorker(String id) {
            this(id, new AtomicReference<>(WorkerState.IDLE));
        }

        @Override
        public long pid() {
            return 11;
        }

        @Override
        public String host() {
            return "node2";
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
            return now.get();
        }

        @Override
        public void close() {
        }
    }

    /** A launcher that starts {@link DyingWorker}s and writes down each start and each death it is told of. */
    private static final class TellingLauncher implements WorkerLauncher {
        final List<String> told = new ArrayList<>();
        final List<Worker> died = new ArrayList<>();
        final List<NodeSummary> nodes = List.of(new NodeSummary("node2", 3, 1, 0, "down* (Not responding)", true,
                "Slurm says it is down* (Not responding)"));

        @Override
        public synchronized Worker launch(String workerId) {
            told.add("launch " + workerId);
            return new DyingWorker(workerId);
        }

        @Override
        public synchronized void workerDied(Worker worker, WorkerFailure cause, String reason) {
            died.add(worker);
            told.add("died " + worker.id() + " " + cause + ": " + reason);
        }

        @Override
        public List<NodeSummary> nodes() {
            return nodes;
        }

        @Override
        public String mode() {
            return "process";
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = WorkerFailure.class, names = "SHUTDOWN", mode = EnumSource.Mode.EXCLUDE)
    void aDiscardedWorkersDeathIsToldToItsLauncherBeforeTheSlotStartsAnother(WorkerFailure cause) throws Exception {
        TellingLauncher launcher = new TellingLauncher();
        try (WorkerPool pool = new WorkerPool(launcher, 1, 0, new ManualClock(), e -> { })) {
            Worker w1 = pool.workerFor(0);
            pool.discard(0, w1, cause, "it stopped answering");
            assertThat(launcher.died).singleElement().isSameAs(w1);
            pool.workerFor(0);
            assertThat(launcher.told).containsExactly("launch w1", "died w1 " + cause + ": it stopped answering",
                    "launch w1.2");
        }
    }

    @Test
    void aWorkerDiscardedForTheShutdownIsNotToldAsADeath() throws Exception {
        TellingLauncher launcher = new TellingLauncher();
        try (WorkerPool pool = new WorkerPool(launcher, 1, 0, new ManualClock(), e -> { })) {
            Worker w1 = pool.workerFor(0);
            pool.discard(0, w1, WorkerFailure.SHUTDOWN, "the build is cancelled");
            assertThat(pool.events()).extracting(WorkerEvent::event).containsExactly("started", "died");
        }
        assertThat(launcher.died).isEmpty();
        assertThat(launcher.told).containsExactly("launch w1");
    }

    @Test
    void aWorkerFoundDeadIsToldToItsLauncherWithItsCauseAndReasonBeforeItsReplacementStarts() throws Exception {
        TellingLauncher launcher = new TellingLauncher();
        try (WorkerPool pool = new WorkerPool(launcher, 1, 0, new ManualClock(), e -> { })) {
            DyingWorker w1 = (DyingWorker) pool.workerFor(0);
            w1.now().set(new WorkerState.Dead(WorkerFailure.EXIT, "worker w1 exited with status 137"));
            assertThat(pool.workerFor(0).id()).isEqualTo("w1.2");
            assertThat(launcher.died).singleElement().isSameAs(w1);
            assertThat(launcher.told).containsExactly("launch w1", "died w1 EXIT: worker w1 exited with status 137",
                    "launch w1.2");
        }
    }

    @Test
    void aWorkerFoundShutDownIsNotToldAsADeath() throws Exception {
        TellingLauncher launcher = new TellingLauncher();
        try (WorkerPool pool = new WorkerPool(launcher, 1, 0, new ManualClock(), e -> { })) {
            DyingWorker w1 = (DyingWorker) pool.workerFor(0);
            w1.now().set(new WorkerState.Dead(WorkerFailure.SHUTDOWN, "closed"));
            assertThat(pool.workerFor(0).id()).isEqualTo("w1.2");
        }
        assertThat(launcher.died).isEmpty();
    }

    @Test
    void theNodesAreTheLaunchers() {
        TellingLauncher launcher = new TellingLauncher();
        try (WorkerPool pool = new WorkerPool(launcher, 1, new ManualClock())) {
            assertThat(pool.nodes()).isSameAs(launcher.nodes);
        }
    }

    @Test
    void aLauncherThatPlacesNoWorkersOnNodesHasNone() throws Exception {
        WorkerLauncher local = new WorkerLauncher() {
            @Override
            public Worker launch(String workerId) {
                return new IdleWorker(workerId, 7);
            }

            @Override
            public String mode() {
                return "process";
            }
        };
        try (WorkerPool pool = new WorkerPool(local, 1, new ManualClock())) {
            pool.discard(0, pool.workerFor(0), WorkerFailure.HANG, "no answer");
            assertThat(pool.nodes()).isEmpty();
        }
    }

    /**
     * A launcher whose first {@code failures} starts fail as a start on a bad node does, and which says each time
     * whether that failure is worth another start at once ({@link WorkerLauncher#startAgain}).
     */
    private static final class FlakyLauncher implements WorkerLauncher {
        final int failures;
        final boolean startAgain;
        final List<String> launched = new ArrayList<>();
        final List<WorkerFailedException> thrown = new ArrayList<>();
        final List<WorkerFailedException> askedAbout = new ArrayList<>();

        FlakyLauncher(int failures, boolean startAgain) {
            this.failures = failures;
            this.startAgain = startAgain;
        }

        @Override
        public synchronized Worker launch(String workerId) throws WorkerFailedException {
            launched.add(workerId);
            if (launched.size() <= failures) {
                WorkerFailedException e = new WorkerFailedException(WorkerFailure.START, "worker " + workerId
                        + " closed its output; Slurm said: srun: error: Node failure on node2");
                thrown.add(e);
                throw e;
            }
            return new IdleWorker(workerId, 300 + launched.size());
        }

        @Override
        public synchronized boolean startAgain(WorkerFailedException failure) {
            askedAbout.add(failure);
            return startAgain;
        }

        @Override
        public String mode() {
            return "process";
        }
    }

    @Test
    void aStartTheLauncherSaysIsWorthAnotherIsTriedAgainAtOnceUnderTheSlotsNextName() throws Exception {
        FlakyLauncher launcher = new FlakyLauncher(2, true);
        List<WorkerEvent> seen = new ArrayList<>();
        try (WorkerPool pool = new WorkerPool(launcher, 1, 0, new ManualClock(), seen::add)) {
            Worker worker = pool.workerFor(0);
            assertThat(worker.id()).isEqualTo("w1.3");
            assertThat(pool.workerFor(0)).as("the slot keeps it").isSameAs(worker);
            assertThat(launcher.launched).containsExactly("w1", "w1.2", "w1.3");
            assertThat(launcher.askedAbout).as("each failure, as thrown").containsExactlyElementsOf(launcher.thrown);
            assertThat(pool.events()).extracting(WorkerEvent::event, WorkerEvent::worker).containsExactly(
                    org.assertj.core.groups.Tuple.tuple("failed_to_start", "w1"),
                    org.assertj.core.groups.Tuple.tuple("failed_to_start", "w1.2"),
                    org.assertj.core.groups.Tuple.tuple("started", "w1.3"));
            assertThat(seen).as("told to the listener too").isEqualTo(pool.events());
            assertThat(pool.events().get(0).reason()).contains("Node failure on node2");
            assertThat(pool.noWorkerStarted()).isNull();
            assertThat(pool.liveWorkers()).isEqualTo(1);
        }
    }

    @Test
    void aStartTheLauncherAlwaysSaysIsWorthAnotherIsTriedAtMostStartsAgainTimesInARow() throws Exception {
        FlakyLauncher launcher = new FlakyLauncher(Integer.MAX_VALUE, true);
        try (WorkerPool pool = new WorkerPool(launcher, 1, 0, new ManualClock(), e -> { })) {
            AtomicReference<Throwable> caught = new AtomicReference<>();
            assertThatThrownBy(() -> pool.workerFor(0)).isInstanceOfSatisfying(WorkerFailedException.class, e -> {
                assertThat(e.failure()).isEqualTo(WorkerFailure.START);
                caught.set(e);
            });
            assertThat(launcher.launched).hasSize(1 + WorkerPool.STARTS_AGAIN)
                    .containsExactly("w1", "w1.2", "w1.3", "w1.4", "w1.5");
            assertThat(caught.get()).as("the last start's failure reaches the caller")
                    .isSameAs(launcher.thrown.get(launcher.thrown.size() - 1));
            assertThat(pool.events()).extracting(WorkerEvent::event).hasSize(1 + WorkerPool.STARTS_AGAIN)
                    .containsOnly("failed_to_start");
            assertThat(pool.events()).extracting(WorkerEvent::worker)
                    .containsExactly("w1", "w1.2", "w1.3", "w1.4", "w1.5");
            assertThat(pool.noWorkerStarted()).contains("w1.5").contains("Node failure on node2");

            // the starts tried again count as one failed start: one slot is refused after its second failed start
            assertThatThrownBy(() -> pool.workerFor(0)).isInstanceOf(WorkerFailedException.class)
                    .hasMessageContaining("w1.10");
            assertThat(launcher.launched).hasSize(2 * (1 + WorkerPool.STARTS_AGAIN)).endsWith("w1.10");
            assertThatThrownBy(() -> pool.workerFor(0)).isInstanceOf(WorkerFailedException.class)
                    .hasMessageContaining("not tried: none of this build's 2 worker starts succeeded");
            assertThat(launcher.launched).hasSize(2 * (1 + WorkerPool.STARTS_AGAIN));
        }
    }

    @Test
    void aStartTheLauncherSaysIsNotWorthAnotherFailsAtOnce() {
        FlakyLauncher launcher = new FlakyLauncher(1, false);
        try (WorkerPool pool = new WorkerPool(launcher, 1, 0, new ManualClock(), e -> { })) {
            AtomicReference<Throwable> caught = new AtomicReference<>();
            assertThatThrownBy(() -> pool.workerFor(0)).isInstanceOfSatisfying(WorkerFailedException.class,
                    caught::set);
            assertThat(caught.get()).isSameAs(launcher.thrown.get(0));
            assertThat(launcher.launched).containsExactly("w1");
            assertThat(launcher.askedAbout).containsExactly(launcher.thrown.get(0));
            assertThat(pool.events()).singleElement().satisfies(e -> {
                assertThat(e.event()).isEqualTo("failed_to_start");
                assertThat(e.worker()).isEqualTo("w1");
            });
            assertThat(pool.noWorkerStarted()).contains("Node failure on node2");
        }
    }
}
