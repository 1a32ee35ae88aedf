package org.archpool.orchestrator.arch;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProbeOutputExceptionTest {

    @Test
    void messageNamesToolProblemAndLine() {
        ProbeOutputException e = new ProbeOutputException("nvidia-smi", "bad", "0, x");
        assertThat(e).hasMessage("nvidia-smi: bad: \"0, x\"");
        assertThat(e.tool()).isEqualTo("nvidia-smi");
        assertThat(e.offendingLine()).isEqualTo("\"0, x\"");
    }

    @Test
    void withoutLine() {
        ProbeOutputException e = new ProbeOutputException("rocminfo", "printed nothing", null);
        assertThat(e).hasMessage("rocminfo: printed nothing");
        assertThat(e.offendingLine()).isNull();
    }

    @Test
    void controlCharactersAndQuotesAreEscapedAndLongLinesCut() {
        assertThat(new ProbeOutputException("t", "p", "a\u001B[0m\"b\\").offendingLine())
                .isEqualTo("\"a\\u001b[0m\\\"b\\\\\"");
        assertThat(new ProbeOutputException("t", "p", "y".repeat(201)).offendingLine())
                .isEqualTo("\"" + "y".repeat(200) + "\"... (201 characters in all)");
        assertThat(new ProbeOutputException("t", "p", "y".repeat(200)).offendingLine())
                .isEqualTo("\"" + "y".repeat(200) + "\"");
    }
}
