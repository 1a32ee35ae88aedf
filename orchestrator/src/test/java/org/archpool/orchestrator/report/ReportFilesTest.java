package org.archpool.orchestrator.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.AbstractList;
import java.util.List;
import java.util.stream.Stream;
import org.archpool.orchestrator.schedule.JobOutcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportFilesTest {

    @TempDir
    Path dir;

    /**
     * The jobs of a build too large for the trace and JUnit writers' memory: they run out of it (here, when they
     * stream the list), the report's and the HTML's writers, which read it by index, do not.
     */
    private static final class TooLargeToStream extends AbstractList<JobOutcome> {
        private final List<JobOutcome> jobs;

        TooLargeToStream(List<JobOutcome> jobs) {
            this.jobs = jobs;
        }

        @Override
        public JobOutcome get(int index) {
            return jobs.get(index);
        }

        @Override
        public int size() {
            return jobs.size();
        }

        @Override
        public Stream<JobOutcome> stream() {
            throw new OutOfMemoryError("Java heap space");
        }
    }

    @Test
    void anOutputThatRunsOutOfMemoryIsNamedAndTheOthersAreStillWritten() throws Exception {
        BuildReport full = ReportTestData.load(ReportTestData.MIXED);
        BuildReport report = new BuildReport(full.schemaVersion(), full.archpoolVersion(), full.manifest(),
                full.startedAt(), full.durationMs(), full.exitCode(), full.resolution(), full.toolchainCheck(),
                full.pool(), full.outcomes(), new TooLargeToStream(full.jobs()));
        ReportFiles files = new ReportFiles(dir.resolve("r.json"), dir.resolve("m.prom"), dir.resolve("t.json"),
                dir.resolve("j.xml"), dir.resolve("h.html"));
        OutputProgress progress = files.progress();

        assertThatThrownBy(() -> files.write(report, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), progress))
                .isInstanceOf(OutputWriteException.class)
                .hasMessageContaining("cannot write --trace " + dir.resolve("t.json")
                        + ": the coordinator ran out of memory (its heap is ")
                .hasMessageContaining("cannot write --junit " + dir.resolve("j.xml") + ": the coordinator ran out")
                .hasMessageContaining("give it more with, e.g., ARCHPOOL_JAVA_OPTS=-Xmx1g")
                .hasMessageContaining("; written: the report " + dir.resolve("r.json") + ", --metrics "
                        + dir.resolve("m.prom") + ", --html " + dir.resolve("h.html"));
        assertThat(progress.written()).hasSize(3);
        assertThat(progress.notWritten()).containsExactly("--trace " + dir.resolve("t.json"),
                "--junit " + dir.resolve("j.xml"));
        assertThat(dir.resolve("r.json")).isNotEmptyFile();
        assertThat(Files.readString(dir.resolve("h.html"))).contains("archpool-report");
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("r.json", "m.prom",
                    "h.html");
        }
    }

    @Test
    void onceAbandonedNoOutputStartsAndTheOneInProgressIsRemoved() throws Exception {
        ReportFiles files = new ReportFiles(dir.resolve("r.json"), null, dir.resolve("t.json"), null, null);
        OutputProgress progress = files.progress();
        Path temp = Files.createFile(dir.resolve(".r.json123.tmp"));
        progress.writing(temp);

        assertThat(progress.abandon()).isNull();

        assertThat(temp).doesNotExist();
        assertThatThrownBy(() -> files.write(ReportTestData.load(ReportTestData.MIXED), null, progress))
                .isInstanceOf(OutputWriteException.class)
                .hasMessageContaining("cannot write the report " + dir.resolve("r.json")
                        + ": the build was stopped before it was written")
                .hasMessageContaining("no output was written");
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).isEmpty();
        }
    }
}
