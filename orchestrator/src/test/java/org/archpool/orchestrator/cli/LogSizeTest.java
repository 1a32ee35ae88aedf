package org.archpool.orchestrator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code --max-log-size}: sizes in binary units, and 0 or unlimited for no cap. */
class LogSizeTest {

    @ParameterizedTest
    @CsvSource({"64M, 67108864", "1G, 1073741824", "512K, 524288", "4096, 4096", "4k, 4096", "2MiB, 2097152",
        "3MB, 3145728", "1T, 1099511627776", "5000B, 5000", "' 8M ', 8388608"})
    void aSizeIsReadInBinaryUnits(String value, long bytes) throws UsageException {
        assertThat(LogSize.parse(value)).isEqualTo(bytes);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "0M", "unlimited", "UNLIMITED"})
    void zeroOrUnlimitedMeansNoCap(String value) throws UsageException {
        assertThat(LogSize.parse(value)).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "M", "1.5G", "-1", "64X", "1 G B", "4095", "10000000000000000000", "9999999T"})
    void anythingElseIsRefusedWithWhatIsAccepted(String value) {
        assertThatThrownBy(() -> LogSize.parse(value)).isInstanceOf(UsageException.class)
                .hasMessageStartingWith("--max-log-size " + value + " is not valid")
                .hasMessageContaining("64M").hasMessageContaining("unlimited");
    }

    @Test
    void theDefaultIs64MiB() throws UsageException {
        assertThat(LogSize.parse(LogSize.DEFAULT)).isEqualTo(64L << 20);
    }
}
