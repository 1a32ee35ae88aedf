package org.archpool.orchestrator.pool.slurm;

import static org.archpool.orchestrator.pool.slurm.FakeTools.exited;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.util.List;
import org.archpool.orchestrator.tool.ToolOutput;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** How {@link Scancel} cancels a worker's job or step, with Slurm's commands faked. */
class ScancelTest {

    private static final String SQUEUE_STEPS = """
            777.0 archpool.t.w1
            777.1 archpool.t.w1.2
            777.2 archpool.t.w2
            777.3 archpool.t.w1
            777.extern extern
            """;

    private static ToolOutput ok(List<String> command) {
        return exited(command, 0, command.get(0).equals("squeue") ? SQUEUE_STEPS : "", "");
    }

    private static SlurmConfig config(String allocation) {
        return new SlurmConfig("srun", "scancel", "squeue", "sinfo", allocation, null, List.of(), 1, "t", "someone");
    }

    @Test
    void aJobOfItsOwnIsCancelledByNameAndUser() {
        FakeTools tools = new FakeTools(ScancelTest::ok);
        new Scancel(config(null), tools).cancel("archpool.t.w1");
        assertThat(tools.commands).containsExactly(List.of("scancel", "--name=archpool.t.w1", "--user=someone"));
        assertThat(tools.timeouts).containsOnly(SlurmCommand.TIMEOUT);
    }

    @Test
    void aStepOfTheAllocationIsLookedUpAndCancelledByIdExactlyByName() {
        FakeTools tools = new FakeTools(ScancelTest::ok);
        new Scancel(config("777"), tools).cancel("archpool.t.w1");
        assertThat(tools.commands).containsExactly(
                List.of("squeue", "--steps", "--jobs=777", "--noheader", "--format=%i %j"),
                List.of("scancel", "777.0"),
                List.of("scancel", "777.3"));
    }

    @Test
    void aReplacementWorkersStepIsNotAPrefixMatch() {
        FakeTools tools = new FakeTools(ScancelTest::ok);
        new Scancel(config("777"), tools).cancel("archpool.t.w1.2");
        assertThat(tools.commands).hasSize(2).last().isEqualTo(List.of("scancel", "777.1"));
    }

    @Test
    void aStepSlurmDoesNotListIsNotCancelled() {
        FakeTools tools = new FakeTools(ScancelTest::ok);
        new Scancel(config("777"), tools).cancel("archpool.t.w9");
        assertThat(tools.commands).singleElement().extracting(c -> c.get(0)).isEqualTo("squeue");
    }

    @ParameterizedTest(name = "squeue {0}")
    @EnumSource(value = ToolOutput.Status.class, names = {"MISSING", "TIMED_OUT", "NOT_EXECUTABLE", "FAILED_TO_START"})
    void aSqueueThatDoesNotRunCancelsNothingAndDoesNotThrow(ToolOutput.Status status) {
        FakeTools tools = new FakeTools(c -> new ToolOutput(c, status, null, SQUEUE_STEPS, "", 0,
                c.get(0) + " went wrong"));
        assertThatCode(() -> new Scancel(config("777"), tools).cancel("archpool.t.w1")).doesNotThrowAnyException();
        assertThat(tools.commands).hasSize(1);
    }

    @Test
    void aSqueueThatFailsCancelsNothingAndDoesNotThrow() {
        FakeTools exits = new FakeTools(c -> exited(c, 1, SQUEUE_STEPS, "squeue: error: Invalid job id specified"));
        assertThatCode(() -> new Scancel(config("777"), exits).cancel("archpool.t.w1")).doesNotThrowAnyException();
        assertThat(exits.commands).as("stdout of a failed squeue is not trusted").hasSize(1);
    }

    @ParameterizedTest(name = "scancel {0}")
    @EnumSource(value = ToolOutput.Status.class, names = {"MISSING", "TIMED_OUT"})
    void aScancelThatDoesNotRunDoesNotThrow(ToolOutput.Status status) {
        FakeTools tools = new FakeTools(c -> new ToolOutput(c, status, null, "", "", 0, "scancel went wrong"));
        assertThatCode(() -> new Scancel(config(null), tools).cancel("archpool.t.w1")).doesNotThrowAnyException();
        assertThat(tools.commands).singleElement().extracting(c -> c.get(0)).isEqualTo("scancel");
    }

    @Test
    void aFailingScancelDoesNotThrow() {
        FakeTools exits = new FakeTools(c -> c.get(0).equals("squeue") ? ok(c)
                : exited(c, 1, "", "scancel: error: Kill job error on job id 777.0: Invalid job id specified"));
        assertThatCode(() -> new Scancel(config("777"), exits).cancel("archpool.t.w1")).doesNotThrowAnyException();
        assertThat(exits.commands).as("each step is tried").hasSize(3);
        FakeTools missing = new FakeTools(c -> new ToolOutput(c, ToolOutput.Status.MISSING, null, "", "", 0,
                "scancel is not on the PATH"));
        assertThatCode(() -> new Scancel(config(null), missing).cancel("archpool.t.w1")).doesNotThrowAnyException();
    }

    @Test
    void stepIdsAreThoseOfExactlyTheNamedStep() {
        assertThat(Scancel.stepIds(SQUEUE_STEPS, "archpool.t.w1")).containsExactly("777.0", "777.3");
        assertThat(Scancel.stepIds(SQUEUE_STEPS, "archpool.t.w1.2")).containsExactly("777.1");
        assertThat(Scancel.stepIds(SQUEUE_STEPS, "archpool.t.w")).isEmpty();
        assertThat(Scancel.stepIds(SQUEUE_STEPS, "archpool.t")).isEmpty();
    }

    @Test
    void stepIdsToleratesPaddingBlankLinesAndCarriageReturns() {
        String padded = "\n   777.4    archpool.t.w3   \r\n\n777.5\n   \nnot-a-step-line\n";
        assertThat(Scancel.stepIds(padded, "archpool.t.w3")).containsExactly("777.4");
        assertThat(Scancel.stepIds("", "archpool.t.w3")).isEmpty();
        assertThat(Scancel.stepIds("777.5\n", "")).isEmpty();
    }

    @Test
    void cancelUsesTheConfiguredPrograms() {
        FakeTools tools = new FakeTools(c -> exited(c, 0, c.get(0).endsWith("squeue") ? SQUEUE_STEPS : "", ""));
        SlurmConfig config = new SlurmConfig("srun", "/slurm/bin/scancel", "/slurm/bin/squeue", "sinfo", "777", null,
                List.of(), 1, "t", "u");
        new Scancel(config, tools).cancel("archpool.t.w2");
        assertThat(tools.commands).extracting(c -> c.get(0)).containsExactly("/slurm/bin/squeue", "/slurm/bin/scancel");
    }
}
