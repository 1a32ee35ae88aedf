package org.archpool.worker.exec;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SignalsTest {

    @ParameterizedTest
    @CsvSource({"1,SIGHUP", "2,SIGINT", "3,SIGQUIT", "4,SIGILL", "5,SIGTRAP", "6,SIGABRT", "7,SIGBUS", "8,SIGFPE",
        "9,SIGKILL", "10,SIGUSR1", "11,SIGSEGV", "12,SIGUSR2", "13,SIGPIPE", "14,SIGALRM", "15,SIGTERM",
        "24,SIGXCPU", "25,SIGXFSZ", "31,SIGSYS"})
    void namesTheLinuxSignals(int number, String name) {
        assertThat(Signals.name(number)).contains(name);
        assertThat(Signals.fromExitStatus(128 + number)).contains(name);
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, 0, 1, 2, 127, 128, 160, 255, 256})
    void ordinaryStatusesAreNoSignal(int status) {
        assertThat(Signals.fromExitStatus(status)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(ints = {17, 18, 19, 20, 21, 22, 23, 28})
    void aSignalThatCannotEndAProcessIsNeverReadFromAStatus(int number) {
        assertThat(Signals.name(number)).isPresent();
        assertThat(Signals.fromExitStatus(128 + number)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 32, 64})
    void unknownNumbersHaveNoName(int number) {
        assertThat(Signals.name(number)).isEmpty();
    }

    @Test
    void aStepReportsASignalOnlyWhenItExitedOnItsOwn() {
        assertThat(new StepResult(StepResult.Ending.EXITED, 139, 5, null).signal()).contains("SIGSEGV");
        assertThat(new StepResult(StepResult.Ending.EXITED, 1, 5, null).signal()).isEmpty();
        assertThat(new StepResult(StepResult.Ending.TIMED_OUT, null, 5, "killed").signal()).isEmpty();
        assertThat(new StepResult(StepResult.Ending.CANCELLED, null, 5, "killed").signal()).isEmpty();
        assertThat(new StepResult(StepResult.Ending.NOT_STARTED, null, 5, "missing").signal()).isEmpty();
    }
}
