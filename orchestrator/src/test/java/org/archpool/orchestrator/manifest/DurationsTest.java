package org.archpool.orchestrator.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {

    @Test
    void readsTheDocumentedForms() {
        assertThat(Durations.parse("90s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(Durations.parse("10m")).isEqualTo(Duration.ofMinutes(10));
        assertThat(Durations.parse("1h30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("45")).isEqualTo(Duration.ofSeconds(45));
        assertThat(Durations.parse("1.5")).isEqualTo(Duration.ofMillis(1500));
    }

    @Test
    void rejectsAnythingElse() {
        for (String bad : new String[] {"", "0", "0s", "-5s", "10 minutes", "1h30", "s", "10x", "1m1"}) {
            assertThatThrownBy(() -> Durations.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void formatsWhatItParses() {
        for (String s : new String[] {"90s", "10m", "1h30m", "500ms", "2h"}) {
            Duration d = Durations.parse(s);
            assertThat(Durations.parse(Durations.format(d))).isEqualTo(d);
        }
        assertThat(Durations.format(Duration.ofSeconds(5430))).isEqualTo("1h30m30s");
    }
}
