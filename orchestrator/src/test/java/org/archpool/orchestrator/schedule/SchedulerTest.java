package org.archpool.orchestrator.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.archpool.orchestrator.pool.ThreadWorkerLauncher;
import org.archpool.orchestrator.pool.Worker;
import org.archpool.orchestrator.pool.WorkerFailedException;
import org.archpool.orchestrator.pool.WorkerLauncher;
import org.archpool.orchestrator.pool.WorkerPool;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;
import org.archpool.worker.JobRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SchedulerTest {

    @TempDir
    Path dir;

    private final Clock clock = Clock.systemUTC();

    private SchedulerConfig config(int retries, boolean keepGoing) {
        return new SchedulerConfig(new Target(Platform.CUDA, List.of("90")), dir.resolve("logs"), 0, 1, retries,
                keepGoing);
    }

    private JobSpec sh(String id, String script) {
        return new CommandJob(id, List.of("sh", "-c", script), dir.toString(), null, null, null);
    }

    private List<JobOutcome> runAll(WorkerLauncher launcher, int slots, SchedulerConfig config, List<JobSpec> jobs) {
        List<JobOutcome> outcomes = new ArrayList<>();
        try (WorkerPool pool = new WorkerPool(launcher, slots, clock);
             Scheduler scheduler = new Scheduler(pool, config, clock, SchedulerListener.NONE)) {
            List<CompletableFuture<JobOutcome>> futures = new ArrayList<>();
            jobs.forEach(j -> futures.add(scheduler.submit(j)));
            futures.forEach(f -> outcomes.add(f.join()));
        }
        return outcomes;
    }

    @Test
    void everyJobGetsExactlyOneOutcomeInOrder() {
        List<JobSpec> jobs = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            jobs.add(sh("j" + i, i == 3 ? "exit 7" : "true"));
        }
        List<JobOutcome> outcomes = runAll(new ThreadWorkerLauncher(JobRunner.standard()), 3, config(1, true), jobs);
        assertThat(outcomes).extracting(JobOutcome::id).containsExactly("j0", "j1", "j2", "j3", "j4", "j5", "j6", "j7");
        assertThat(outcomes.get(3).outcome()).isEqualTo(Outcome.FAILED);
        assertThat(outcomes.get(3).exitCode()).isEqualTo(7);
        assertThat(outcomes).filteredOn(o -> o.outcome() == Outcome.SUCCEEDED).hasSize(7);
        assertThat(outcomes).extracting(JobOutcome::worker).allMatch(w -> w.matches("w[123]"));
    }

    @Test
    void withoutKeepGoingTheFirstFailureStopsDispatching() {
        List<JobOutcome> outcomes = runAll(new ThreadWorkerLauncher(JobRunner.standard()), 1, config(1, false),
                List.of(sh("ok", "true"), sh("bad", "exit 1"), sh("later", "true")));
        assertThat(outcomes).extracting(JobOutcome::outcome)
                .containsExactly(Outcome.SUCCEEDED, Outcome.FAILED, Outcome.CANCELLED);
        assertThat(outcomes.get(2).message()).contains("not started").contains("'bad' failed");
    }

    /** A launcher whose first {@code crashes} workers die under their first request, as a killed JVM would. */
    private static final class CrashingLauncher implements WorkerLauncher {
        private final WorkerLauncher real = new ThreadWorkerLauncher(JobRunner.standard());
        private final AtomicInteger toCrash;
        final List<String> launched = new ArrayList<>();

        CrashingLauncher(int crashes) {
            toCrash = new AtomicInteger(crashes);
        }

        @Override
        public Worker launch(String id) throws WorkerFailedException {
            launched.add(id);
            Worker worker = real.launch(id);
            if (toCrash.getAndDecrement() <= 0) {
                return worker;
            }
            return new Worker() {
                private boolean dead;

                public String id() {
                    return id;
                }

                public long pid() {
                    return -1;
                }

                public CompletableFuture<BuildResult> execute(BuildRequest r, Consumer<Phase> p) {
                    dead = true;
                    return CompletableFuture.failedFuture(new WorkerFailedException(org.archpool.orchestrator.pool.WorkerFailure.EXIT, "worker " + id + " exited with status 137"));
                }

                public void cancel(String requestId) {
                }

                public boolean isAlive() {
                    return !dead;
                }

                public void close() {
                    worker.close();
                }
            };
        }

        @Override
        public String mode() {
            return "test";
        }
    }

    @Test
    void aCrashedWorkerIsReplacedAndTheJobRetried() {
        CrashingLauncher launcher = new CrashingLauncher(1);
        List<JobOutcome> outcomes = runAll(launcher, 1, config(1, true), List.of(sh("a", "true"), sh("b", "true")));
        assertThat(outcomes.get(0).outcome()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(outcomes.get(0).attempts()).isEqualTo(2);
        assertThat(outcomes.get(0).worker()).isEqualTo("w1.2");
        assertThat(outcomes.get(0).attemptFailures()).singleElement().asString().contains("status 137");
        assertThat(outcomes.get(1).attempts()).isEqualTo(1);
        assertThat(launcher.launched).containsExactly("w1", "w1.2");
    }

    @Test
    void retriesAreBoundedThenTheJobIsCrashed() {
        List<JobOutcome> outcomes = runAll(new CrashingLauncher(5), 1, config(2, true), List.of(sh("a", "true")));
        assertThat(outcomes.get(0).outcome()).isEqualTo(Outcome.CRASHED);
        assertThat(outcomes.get(0).attempts()).isEqualTo(3);
        assertThat(outcomes.get(0).attemptFailures()).hasSize(3);
        assertThat(outcomes.get(0).message()).contains("status 137");
    }
}
