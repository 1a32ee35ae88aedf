package org.archpool.orchestrator.output;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Log names that cannot collide, whatever the job ids. */
class LogLayoutTest {

    private final LogLayout layout = new LogLayout(Path.of("/b/logs"));

    @Test
    void jobsAttemptsAndTheCoordinatorHaveNamesOfTheirOwn() {
        assertThat(layout.jobLog("x", 1)).isEqualTo(Path.of("/b/logs/x.log"));
        assertThat(layout.jobLog("x", 2)).isEqualTo(Path.of("/b/logs/x@attempt2.log"));
        assertThat(layout.coordinatorLog()).isEqualTo(Path.of("/b/logs/@archpool.log"));
        assertThat(layout.workerLogs()).isEqualTo(Path.of("/b/logs/workers"));
    }

    @Test
    void idsThatLookLikeOtherNamesStillGetFilesOfTheirOwn() {
        List<String> ids = List.of("archpool", "x", "x.attempt2", "x@attempt2", "workers", "@archpool", ".lock",
                "archpool.lock", "x.log", "-", "_", ".x");
        Set<Path> taken = new HashSet<>(List.of(layout.coordinatorLog(), layout.lockFile(), layout.workerLogs()));
        for (String id : ids) {
            if (!id.matches("[A-Za-z0-9._-]{1,128}")) {
                continue; // not an id the manifest accepts
            }
            for (int attempt = 1; attempt <= 3; attempt++) {
                assertThat(taken.add(layout.jobLog(id, attempt))).as(id + " attempt " + attempt).isTrue();
            }
        }
    }

    @Test
    void theOwnerOfANameIsKnown() {
        Set<String> ids = Set.of("a", "x.attempt2");
        assertThat(LogLayout.owner("a.log", ids, 2)).isEqualTo("the log of job 'a'");
        assertThat(LogLayout.owner("a@attempt2.log", ids, 2)).isEqualTo("the log of attempt 2 of job 'a'");
        assertThat(LogLayout.owner("a@attempt3.log", ids, 2)).isNull();
        assertThat(LogLayout.owner("x.attempt2.log", ids, 2)).isEqualTo("the log of job 'x.attempt2'");
        assertThat(LogLayout.owner("x.log", ids, 2)).isNull();
        assertThat(LogLayout.owner("@archpool.log", ids, 2)).isEqualTo("the coordinator's log");
        assertThat(LogLayout.owner("@archpool.lock", ids, 2)).isEqualTo("the log folder's lock");
        assertThat(LogLayout.owner("report.json", ids, 2)).isNull();
    }
}
