package org.archpool.orchestrator.pool.slurm;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A node's state as {@code sinfo --format=%T|%E} gives it. */
class NodeStateTest {

    @Test
    void aNodeThatDoesNotRespondIsParsedWithItsReason() {
        assertThat(NodeState.parse("down*|Not responding")).isEqualTo(new NodeState("down*", "Not responding"));
    }

    @Test
    void noneAndAnEmptyReasonAreNoReason() {
        assertThat(NodeState.parse("allocated*|none")).isEqualTo(new NodeState("allocated*", null));
        assertThat(NodeState.parse("idle|none")).isEqualTo(new NodeState("idle", null));
        assertThat(NodeState.parse("mixed|")).isEqualTo(new NodeState("mixed", null));
        assertThat(NodeState.parse("mixed")).isEqualTo(new NodeState("mixed", null));
    }

    @Test
    void anAdministratorsReasonIsKept() {
        assertThat(NodeState.parse("drained|maintenance")).isEqualTo(new NodeState("drained", "maintenance"));
    }

    @Test
    void aReasonWithABarIsKeptWhole() {
        assertThat(NodeState.parse("drained|disk | fan")).isEqualTo(new NodeState("drained", "disk | fan"));
    }

    @Test
    void paddingAndACarriageReturnAreStripped() {
        assertThat(NodeState.parse("  down* | Not responding \r")).isEqualTo(new NodeState("down*", "Not responding"));
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"", "   ", "\r"})
    void aBlankLineIsNoState(String line) {
        assertThat(NodeState.parse(line)).isNull();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"down*|Not responding", "allocated*|none", "mixed*|", "idle*|none", "down|reboot",
        "DOWN|Not responding", "fail|bad dimm", "failing|bad dimm", "drained*|maintenance"})
    void aNodeThatDoesNotRespondOrIsDownOrFailedIsLost(String line) {
        assertThat(NodeState.parse(line).lost()).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"idle|none", "allocated|none", "mixed|", "drained|maintenance", "draining|maintenance",
        "completing|none", "reserved|none"})
    void aNodeThatRespondsIsNotLost(String line) {
        assertThat(NodeState.parse(line).lost()).isFalse();
    }

    @Test
    void theReportGivesTheStateWithItsReason() {
        assertThat(NodeState.parse("down*|Not responding")).hasToString("down* (Not responding)");
        assertThat(NodeState.parse("drained|maintenance")).hasToString("drained (maintenance)");
        assertThat(NodeState.parse("idle|none")).hasToString("idle");
        assertThat(NodeState.parse("mixed|")).hasToString("mixed");
    }
}
