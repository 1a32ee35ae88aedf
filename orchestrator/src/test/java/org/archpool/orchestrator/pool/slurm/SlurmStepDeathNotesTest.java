package org.archpool.orchestrator.pool.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a worker's Slurm step says when the worker ends: the lines Slurm and srun wrote to the worker's log files
 * since the step started.
 */
class SlurmStepDeathNotesTest {

    private static final String NAME = "archpool.t.w1";

    @TempDir
    Path dir;

    /** Reading what Slurm said never cancels the step. */
    private static final StepCanceller NO_CANCEL = name -> fail("cancelled " + name);

    private SlurmStep step() {
        return new SlurmStep(NAME, NO_CANCEL, dir.resolve("w1.srun.log"), dir.resolve("w1.stderr.log"));
    }

    @Test
    void deathNotesAreWhatSlurmWroteSinceTheStepStarted() throws Exception {
        Path srunLog = dir.resolve("w1.srun.log");
        Path stderr = dir.resolve("w1.stderr.log");
        Files.writeString(srunLog, "srun: error: an old worker's allocation failed\n");
        Files.writeString(stderr, "slurmstepd-node0: error: *** STEP 11.0 ON node0 CANCELLED AT 2024-05-01 ***\n"
                + "an old worker's line\n");
        SlurmStep step = step();
        append(stderr, "[worker w1] INFO started\n"
                + "slurmstepd-node1: error: *** STEP 12.0 ON node1 CANCELLED AT 2024-05-02T10:00:00 ***\n");
        append(srunLog, "srun: error: Unable to allocate resources: Invalid partition name specified\n\n"
                + "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n");

        String notes = step.deathNotes();

        assertThat(notes).isEqualTo("Slurm said: "
                + "slurmstepd-node1: error: *** STEP 12.0 ON node1 CANCELLED AT 2024-05-02T10:00:00 ***; "
                + "srun: error: Unable to allocate resources: Invalid partition name specified; "
                + "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.");
        assertThat(notes).doesNotContain("INFO started", "old worker", "STEP 11.0");
    }

    @Test
    void atMostTheLastFourNotesAreKept() throws Exception {
        Path srunLog = dir.resolve("w1.srun.log");
        SlurmStep step = step();
        append(dir.resolve("w1.stderr.log"), "slurmstepd: error: the first\n");
        StringBuilder lines = new StringBuilder();
        for (int i = 1; i <= 6; i++) {
            lines.append("srun: line ").append(i).append('\n');
        }
        append(srunLog, lines.toString());

        assertThat(step.deathNotes()).isEqualTo("Slurm said: srun: line 3; srun: line 4; srun: line 5; srun: line 6");
    }

    @Test
    void aLongLineIsAbbreviated() throws Exception {
        SlurmStep step = step();
        append(dir.resolve("w1.srun.log"), "srun: error: " + "x".repeat(1000) + "\n");

        String notes = step.deathNotes();

        assertThat(notes).startsWith("Slurm said: srun: error: xxx").endsWith("...")
                .hasSize("Slurm said: ".length() + 300);
    }

    @Test
    void noNotesWhenNothingNewWasWritten() throws Exception {
        Files.writeString(dir.resolve("w1.srun.log"), "srun: error: before this step\n");
        Files.writeString(dir.resolve("w1.stderr.log"), "slurmstepd: error: before this step\n");
        SlurmStep step = step();
        assertThat(step.deathNotes()).isEmpty();

        append(dir.resolve("w1.stderr.log"), "an ordinary line of the worker\n\n");
        append(dir.resolve("w1.srun.log"), "\n  \n");
        assertThat(step.deathNotes()).as("only ordinary lines and blank ones").isEmpty();
    }

    @Test
    void noNotesWhenTheFilesDoNotExist() {
        assertThat(step().deathNotes()).isEmpty();
        assertThat(new SlurmStep(NAME, NO_CANCEL, dir.resolve("nowhere/a.log"), dir.resolve("nowhere/b.log"))
                .deathNotes()).isEmpty();
    }

    @Test
    void filesCreatedAfterTheStepStartedAreReadFromTheirStart() throws Exception {
        SlurmStep step = step();
        Files.writeString(dir.resolve("w1.srun.log"), "srun: error: Unable to create step for job 12: Job/step"
                + " already completing or completed\n");
        assertThat(step.deathNotes()).isEqualTo("Slurm said: srun: error: Unable to create step for job 12:"
                + " Job/step already completing or completed");
    }

    private static void append(Path file, String text) throws Exception {
        Files.writeString(file, text, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
}
