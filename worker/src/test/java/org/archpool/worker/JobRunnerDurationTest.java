package org.archpool.worker;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How a job's time limit is written in a timed-out result's message: as the manifest writes it. */
class JobRunnerDurationTest {

    @ParameterizedTest(name = "{0} ms is {1}")
    @CsvSource({
        "3000,    3s",
        "90000,   1m30s",
        "600000,  10m",
        "5400000, 1h30m",
        "3600000, 1h",
        "3661000, 1h1m1s",
        "1500,    1500 ms",
    })
    void theTimeLimitIsWrittenAsTheManifestWritesIt(long millis, String written) {
        assertThat(JobRunner.duration(millis)).isEqualTo(written);
    }
}
