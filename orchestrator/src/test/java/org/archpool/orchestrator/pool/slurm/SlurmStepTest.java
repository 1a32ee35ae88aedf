package org.archpool.orchestrator.pool.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.archpool.worker.exec.ProcessTreeKiller;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Killing a worker's Slurm step as its handle does, with local processes standing in for {@code srun} and a
 * canceller that records what it was asked to cancel; {@link SlurmStepDeathNotesTest} reads what Slurm said.
 */
@Tag("process")
class SlurmStepTest {

    private static final String NAME = "archpool.t.w1";

    @TempDir
    Path dir;

    private final List<String> cancelled = Collections.synchronizedList(new ArrayList<>());
    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void killLeftovers() {
        started.forEach(p -> ProcessTreeKiller.kill(p.toHandle()));
    }

    private Process start(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        started.add(process);
        return process;
    }

    private SlurmStep step() {
        return new SlurmStep(NAME, cancelled::add, dir.resolve("w1.srun.log"), dir.resolve("w1.stderr.log"));
    }

    private static ProcessHandle firstChild(Process process) {
        return await("the shell starts a child").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> process.toHandle().children().findFirst(), Optional::isPresent).orElseThrow();
    }

    private static void assertDies(ProcessHandle process) throws Exception {
        process.onExit().get(10, TimeUnit.SECONDS);
        assertThat(process.isAlive()).as("pid " + process.pid() + " is alive").isFalse();
    }

    @Test
    void killingALiveStepCancelsItThroughSlurmOnceThenKillsSrun() throws Exception {
        Process srun = start("sleep", "60");
        SlurmStep step = step();
        assertThat(step.name()).isEqualTo(NAME);

        step.kill(srun);

        assertThat(cancelled).containsExactly(NAME);
        assertDies(srun.toHandle());
    }

    @Test
    void killingAStepWhoseSrunIgnoresTheCancelKillsSrunAndWhatItStarted() throws Exception {
        Process srun = start("sh", "-c", "sleep 60 & wait");
        ProcessHandle child = firstChild(srun);

        step().kill(srun);

        assertThat(cancelled).containsExactly(NAME);
        assertDies(srun.toHandle());
        assertDies(child);
    }

    @Test
    void aSrunThatEndsWhenSlurmCancelsTheStepIsNotKilledTwice() throws Exception {
        Process srun = start("sleep", "60");
        SlurmStep step = new SlurmStep(NAME, name -> {
            cancelled.add(name);
            srun.destroy(); // what srun does when Slurm cancels its step: it reports it and exits
        }, dir.resolve("w1.srun.log"), dir.resolve("w1.stderr.log"));
        long start = System.nanoTime();

        step.kill(srun);

        assertThat(cancelled).containsExactly(NAME);
        assertDies(srun.toHandle());
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                .as("srun's exit is awaited, not the whole grace period").isLessThan(2500);
    }

    @Test
    void killingAnExitedSrunDoesNotAskSlurm() throws Exception {
        Process srun = start("true");
        assertThat(srun.waitFor(10, TimeUnit.SECONDS)).isTrue();

        step().kill(srun);

        assertThat(cancelled).isEmpty();
    }
}
