package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;

/** The files a build step's CI reads: metrics, trace, JUnit XML, HTML, next to the JSON report. */
class OutputsIT {

    private static final String MANIFEST = "{\"version\":1,\"jobs\":["
            + "{\"id\":\"ok1\",\"kind\":\"command\",\"cwd\":\".\",\"argv\":[\"true\"]},"
            + "{\"id\":\"ok2\",\"kind\":\"command\",\"cwd\":\".\",\"argv\":[\"sh\",\"-c\",\"echo built\"]},"
            + "{\"id\":\"bad\",\"kind\":\"command\",\"cwd\":\".\",\"argv\":[\"sh\",\"-c\",\"echo 'error: no' >&2; exit 3\"]}"
            + "]}";

    private static Archpool.Run build(Path dir, String... extra) throws Exception {
        Archpool.manifest(dir, MANIFEST);
        String[] args = new String[9 + extra.length];
        System.arraycopy(new String[] {"build", "archpool.json", "--platform", "cuda", "--arch", "90",
            "--no-toolchain-check", "-k", "-j2"}, 0, args, 0, 9);
        System.arraycopy(extra, 0, args, 9, extra.length);
        return new Archpool().in(dir).run(args);
    }

    @Test
    void everyOutputIsWrittenAndReadable(@TempDir Path dir) throws Exception {
        Archpool.Run run = build(dir, "--metrics", "out/archpool.prom", "--trace", "out/trace.json",
                "--junit", "out/junit.xml", "--html", "out/report.html");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);

        String metrics = Files.readString(dir.resolve("out/archpool.prom"));
        assertThat(metrics).contains("archpool_jobs_total{kind=\"command\",outcome=\"succeeded\"} 2")
                .contains("archpool_jobs_total{kind=\"command\",outcome=\"failed\"} 1")
                .contains("archpool_worker_starts_total 2")
                .contains("archpool_job_phase_seconds_count{kind=\"command\",outcome=\"failed\",phase=\"command\"} 1")
                .contains("# TYPE archpool_workers_busy gauge")
                .doesNotContain("archpool_probes_total");

        JsonNode trace = new ObjectMapper().readTree(dir.resolve("out/trace.json").toFile());
        assertThat(trace.path("traceEvents").findValuesAsText("name")).anyMatch(n -> n.startsWith("bad"));

        Element suites = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(dir.resolve("out/junit.xml").toFile()).getDocumentElement();
        assertThat(suites.getAttribute("tests")).isEqualTo("3");
        assertThat(suites.getAttribute("failures")).isEqualTo("1");

        assertThat(Files.readString(dir.resolve("out/report.html"))).contains("<html").contains("bad");

        String log = Files.readString(dir.resolve(".archpool/logs/@archpool.log"));
        String here = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
        assertThat(log).contains("target: cuda 90").containsPattern("worker w1 started \\(pid \\d+\\) on " + java.util.regex.Pattern.quote(here))
                .contains("job bad failed (attempts 1)").contains("job ok1 succeeded on w");
        assertThat(run.stderr()).as("INFO lines go to the log file only").doesNotContain("INFO");
    }

    @Test
    void quietPrintsOnlyWhatFailed(@TempDir Path dir) throws Exception {
        Archpool.Run run = build(dir, "--quiet");
        assertThat(run.stdout()).containsPattern("\\[[1-3]/3\\] bad failed").doesNotContain("ok1")
                .doesNotContain("archs found")
                .contains("2 of 3 jobs succeeded. Report: ");
        assertThat(run.stdout().lines().filter(l -> l.startsWith("[")).count()).isEqualTo(1);
    }

    @Test
    void anOutputThatCannotBeWrittenLosesNothingElse(@TempDir Path dir) throws Exception {
        // a file in the way before the build is refused up front (exit 2); this one appears while the build runs
        Archpool.Run run = new Archpool().in(dir).run("build", Archpool.manifest(dir, MANIFEST.replace("echo built",
                        "echo built; echo a file, not a folder > blocker")).toString(), "--platform", "cuda", "--arch",
                "90", "--no-toolchain-check", "-k", "-j2", "--junit", "blocker/junit.xml", "--metrics", "m.prom");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(74);
        assertThat(run.stderr()).contains("cannot write --junit blocker/junit.xml: ")
                .contains("blocker is in the way: something is already there where a folder").doesNotContain("Exception");
        assertThat(Files.exists(dir.resolve(".archpool/report.json"))).isTrue();
        assertThat(Files.readString(dir.resolve("m.prom"))).contains("archpool_jobs_total");
        assertThat(run.stdout()).contains("2 of 3 jobs succeeded");
    }

    @Test
    void contradictoryOrFolderOutputsAreUsageErrors(@TempDir Path dir) throws Exception {
        Archpool.Run both = build(dir, "--quiet", "--verbose");
        assertThat(both.exitCode()).isEqualTo(2);
        assertThat(both.stderr()).contains("--quiet and --verbose contradict each other");
        Files.createDirectories(dir.resolve("html"));
        Archpool.Run folder = build(dir, "--html", "html");
        assertThat(folder.exitCode()).isEqualTo(2);
        assertThat(folder.stderr()).contains("--html html is a folder").contains("html/archpool.html");
    }
}
