package org.archpool.orchestrator.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import org.archpool.orchestrator.pool.ThreadWorkerLauncher;
import org.archpool.orchestrator.pool.WorkerPool;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;
import org.archpool.worker.JobRunner;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("process")
class JobOrderTest {

    private static final Target TARGET = new Target(Platform.CUDA, List.of("90"));

    @TempDir
    Path dir;

    private final Clock clock = Clock.systemUTC();

    private JobSpec sh(String id, String script) {
        return new CommandJob(id, List.of("sh", "-c", script), dir.toString(), null, null, null);
    }

    private List<JobSpec> jobs() {
        return List.of(sh("a", "true"), sh("b", "true"), sh("c", "true"), sh("d", "exit 3"), sh("e", "true"));
    }

    /** a took 10 ms last time, c 500, d 50; b and e never ran. */
    private DurationHistory history() throws Exception {
        Path file = dir.resolve("durations");
        DurationHistory earlier = DurationHistory.load(file);
        List<JobSpec> jobs = jobs();
        earlier.record("a", jobs.get(0), TARGET, 10);
        earlier.record("c", jobs.get(2), TARGET, 500);
        earlier.record("d", jobs.get(3), TARGET, 50);
        earlier.save();
        return DurationHistory.load(file);
    }

    private Run runAll(JobOrder order, DurationHistory history) {
        SchedulerConfig config = new SchedulerConfig(TARGET, dir.resolve("logs"), 0, 1, 0, true)
                .withOrder(order, history);
        try (WorkerPool pool = new WorkerPool(new ThreadWorkerLauncher(JobRunner.standard()), 1, clock);
             Scheduler scheduler = new Scheduler(pool, config, clock, SchedulerListener.NONE)) {
            List<JobOutcome> outcomes = scheduler.submitAll(jobs()).stream().map(f -> f.join()).toList();
            return new Run(outcomes, scheduler.summary());
        }
    }

    private record Run(List<JobOutcome> outcomes, ScheduleSummary summary) {
        List<String> started() {
            return outcomes.stream().sorted(Comparator.comparingLong(JobOutcome::startMs)
                    .thenComparingLong(JobOutcome::queueWaitMs)).map(JobOutcome::id).toList();
        }
    }

    @Test
    void longestFirstRunsTheLongestRecordedJobsFirstThenTheUnknownInManifestOrder() throws Exception {
        Run run = runAll(JobOrder.LONGEST_FIRST, history());
        assertThat(run.started()).containsExactly("c", "d", "a", "b", "e");
        // every job's future is its own, in the order given
        assertThat(run.outcomes()).extracting(JobOutcome::id).containsExactly("a", "b", "c", "d", "e");
        assertThat(run.outcomes()).extracting(JobOutcome::expectedMs).containsExactly(10L, null, 500L, 50L, null);
    }

    @Test
    void fifoKeepsTheManifestOrderWhateverTheHistorySays() throws Exception {
        Run run = runAll(JobOrder.FIFO, history());
        assertThat(run.started()).containsExactly("a", "b", "c", "d", "e");
    }

    @Test
    void withoutHistoryLongestFirstIsTheManifestOrder() {
        Run run = runAll(JobOrder.LONGEST_FIRST, DurationHistory.inMemory());
        assertThat(run.started()).containsExactly("a", "b", "c", "d", "e");
    }

    @Test
    void succeededJobsAreRecordedForTheNextRunAndAFailedOneKeepsItsOldRecord() throws Exception {
        DurationHistory history = history();
        runAll(JobOrder.LONGEST_FIRST, history);
        history.save();
        DurationHistory next = DurationHistory.load(dir.resolve("durations"));
        List<JobSpec> jobs = jobs();
        // the jobs took a few ms each now: c's 500 is replaced, b and e are known, d failed and keeps 50
        assertThat(next.expectedMs("c", jobs.get(2), TARGET)).isLessThan(500L);
        assertThat(next.expectedMs("b", jobs.get(1), TARGET)).isNotNull();
        assertThat(next.expectedMs("e", jobs.get(4), TARGET)).isNotNull();
        assertThat(next.expectedMs("d", jobs.get(3), TARGET)).isEqualTo(50L);
        // another target, or another folder, is another job
        assertThat(next.expectedMs("c", jobs.get(2), new Target(Platform.CUDA, List.of("80")))).isNull();
        assertThat(next.expectedMs("c", new CommandJob("c", List.of("true"), "/elsewhere", null, null, null),
                TARGET)).isNull();
    }

    @Test
    void theSummaryAddsUpTheJobsAndTheIdealMakespan() {
        Run run = runAll(JobOrder.LONGEST_FIRST, DurationHistory.inMemory());
        ScheduleSummary s = run.summary();
        assertThat(s.order()).isEqualTo("longest-first");
        assertThat(s.slots()).isEqualTo(1);
        assertThat(s.jobs()).isEqualTo(5);
        assertThat(s.jobTimeMs()).isEqualTo(run.outcomes().stream().mapToLong(JobOutcome::totalMs).sum());
        // one slot: the ideal is the sum of the jobs
        assertThat(s.idealMakespanMs()).isEqualTo(s.jobTimeMs());
        assertThat(s.wallMs()).isGreaterThanOrEqualTo(s.jobTimeMs());
        assertThat(run.outcomes().get(3).outcome()).isEqualTo(Outcome.FAILED);
    }

    @Test
    void theIdealMakespanIsTheLongestJobOrTheShareOfEachSlot() {
        assertThat(ScheduleSummary.of(JobOrder.FIFO, 2, 3, 1000, 800, 900).idealMakespanMs()).isEqualTo(800);
        assertThat(ScheduleSummary.of(JobOrder.FIFO, 2, 3, 1000, 300, 900).idealMakespanMs()).isEqualTo(500);
        assertThat(ScheduleSummary.of(JobOrder.FIFO, 2, 3, 1000, 300, 500).parallelism()).isEqualTo(2.0);
        assertThat(ScheduleSummary.of(JobOrder.FIFO, 2, 0, 0, 0, 0).parallelism()).isZero();
        assertThat(ScheduleSummary.of(JobOrder.LONGEST_FIRST, 2, 3, 38_200, 9_000, 19_800).line())
                .isEqualTo("schedule: longest-first, 2 slots; parallelism 1.93 (38.2 s of jobs in 19.8 s;"
                        + " ideal 19.1 s)");
    }

    @Test
    void anOrderIsReadByItsName() {
        assertThat(JobOrder.parse("longest-first")).isEqualTo(JobOrder.LONGEST_FIRST);
        assertThat(JobOrder.parse("fifo")).isEqualTo(JobOrder.FIFO);
        assertThatThrownBy(() -> JobOrder.parse("shortest")).hasMessage("'shortest' is no order; use one of fifo,"
                + " longest-first");
    }

    @Test
    void aDamagedHistoryFileIsNoHistoryAndIsWrittenAnewKeepingTheNewestRecords() throws Exception {
        Path file = dir.resolve("durations");
        java.nio.file.Files.writeString(file, "garbage\n" + "f".repeat(64) + "\tnot-a-number\n");
        DurationHistory h = DurationHistory.load(file);
        JobSpec a = sh("a", "true");
        assertThat(h.expectedMs("a", a, TARGET)).isNull();
        h.record("a", a, TARGET, 7);
        h.save();
        assertThat(DurationHistory.load(file).expectedMs("a", a, TARGET)).isEqualTo(7L);
        assertThat(java.nio.file.Files.readAllLines(file)).hasSize(2);
        // two sessions: the second keeps what the first wrote meanwhile
        DurationHistory first = DurationHistory.load(file);
        DurationHistory second = DurationHistory.load(file);
        JobSpec b = sh("b", "true");
        first.record("b", b, TARGET, 9);
        first.save();
        second.record("a", a, TARGET, 11);
        second.save();
        DurationHistory both = DurationHistory.load(file);
        assertThat(both.expectedMs("a", a, TARGET)).isEqualTo(11L);
        assertThat(both.expectedMs("b", b, TARGET)).isEqualTo(9L);
    }

    @Test
    void theFileKeepsTheMostRecentlyRecordedJobs() throws Exception {
        Path file = dir.resolve("durations");
        DurationHistory h = DurationHistory.load(file);
        JobSpec job = sh("x", "true");
        for (int i = 0; i <= DurationHistory.MAX_ENTRIES; i++) {
            h.record("x" + i, job, TARGET, i);
        }
        h.save();
        DurationHistory read = DurationHistory.load(file);
        assertThat(read.expectedMs("x0", job, TARGET)).isNull();
        assertThat(read.expectedMs("x1", job, TARGET)).isEqualTo(1L);
        assertThat(read.expectedMs("x" + DurationHistory.MAX_ENTRIES, job, TARGET))
                .isEqualTo((long) DurationHistory.MAX_ENTRIES);
    }

    @Test
    void aFullFileDropsItsOldestRecordsForANewSessionsAndReadsItsOwnBack() throws Exception {
        Path file = dir.resolve("durations");
        DurationHistory full = DurationHistory.load(file);
        JobSpec job = sh("x", "true");
        for (int i = 0; i < DurationHistory.MAX_ENTRIES; i++) {
            full.record("x" + i, job, TARGET, i);
        }
        full.save();
        DurationHistory next = DurationHistory.load(file);
        assertThat(next.expectedMs("x77", job, TARGET)).isEqualTo(77L);
        next.record("y", job, TARGET, 5);
        next.record("x5", job, TARGET, 500); // recorded again: it moves to the newest end
        next.save();
        assertThat(java.nio.file.Files.readAllLines(file)).hasSize(DurationHistory.MAX_ENTRIES + 1);
        DurationHistory read = DurationHistory.load(file);
        assertThat(read.expectedMs("x0", job, TARGET)).as("the oldest goes").isNull();
        assertThat(read.expectedMs("x1", job, TARGET)).isEqualTo(1L);
        assertThat(read.expectedMs("x5", job, TARGET)).isEqualTo(500L);
        assertThat(read.expectedMs("y", job, TARGET)).isEqualTo(5L);
        assertThat(read.expectedMs("x" + (DurationHistory.MAX_ENTRIES - 1), job, TARGET))
                .isEqualTo((long) DurationHistory.MAX_ENTRIES - 1);
    }
}
