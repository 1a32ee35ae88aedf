package org.archpool.orchestrator.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.archpool.orchestrator.arch.Resolution;
import org.archpool.orchestrator.pool.NodeSummary;
import org.archpool.orchestrator.schedule.JobOutcome;
import org.archpool.protocol.Platform;
import org.archpool.testing.RequiredTool;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opens a generated report in headless Chromium and reads the DOM after its script ran ({@code --dump-dom}):
 * no console output or uncaught error, the timeline drawn, the table sorted by the URL's {@code #sort=}, and
 * hostile job data shown as text. Chromium logs every console message (and every uncaught exception) as a
 * {@code CONSOLE} line on stderr with {@code --enable-logging=stderr}; the page also copies errors into
 * {@code <body data-errors>}, so either shows a broken script.
 */
@Tag("process")
class HtmlReportChromiumTest {

    private static final List<String> BROWSERS = List.of("chromium", "chromium-browser", "google-chrome",
            "google-chrome-stable");
    private static final Pattern CONSOLE = Pattern.compile(".*(:CONSOLE[(:]|Uncaught).*");

    private static Path browser;

    @TempDir
    Path dir;

    @BeforeAll
    static void findBrowser() {
        browser = RequiredTool.requireOneOf(BROWSERS, "scripts/setup-debian.sh --browser installs chromium");
    }

    @Test
    void drawsTheReportWithoutErrors() throws Exception {
        BuildReport report = HtmlReportWriterTest.sampleReport();
        Path page = dir.resolve("report.html");
        new HtmlReportWriter().write(report, page);

        Dump dump = open(page, "#sort=total:desc");

        dump.assertClean();
        assertThat(dump.body()).as("the page's <body>").contains("data-ready=\"true\"");
        // the chart: one bar per job that reached a worker, drawn as SVG, and the marker the script sets
        List<JobOutcome> jobs = report.jobs();
        long placed = jobs.stream().filter(j -> j.worker() != null).count();
        assertThat(attribute(dump.dom, "timeline", "data-rendered")).as("the timeline's data-rendered")
                .isEqualTo(String.valueOf(placed));
        assertThat(indices(dump.dom, "<g class=\"bar[^\"]*\" data-index=\"(\\d+)\"")).hasSize((int) placed);
        assertThat(dump.dom).as("the DOM").contains("<svg ");
        // the table: every job, longest first, and the header says so
        List<Integer> expected = IntStream.range(0, jobs.size()).boxed()
                .sorted(Comparator.comparingLong((Integer i) -> jobs.get(i).totalMs()).reversed()).toList();
        assertThat(indices(dump.dom, "<tr data-index=\"(\\d+)\"")).containsExactlyElementsOf(expected);
        assertThat(sortState(dump.dom)).as("aria-sort of the columns").containsEntry("total", "descending")
                .containsEntry("id", "none").containsEntry("outcome", "none");
        // user data arrived as text: the id did not become an element, the log tail did not end any script
        assertThat(dump.dom).doesNotContain("<img").contains("&lt;img src=x onerror=alert(1)&gt;");
        assertThat(dump.dom).contains("&lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;");
        // the summary and the failure details
        assertThat(dump.dom).contains("data-outcome=\"crashed\"", "id=\"job-0\"", "truncated fatbin at offset 96",
                "worker w2 died: exit code 137 (killed)", "/tmp/archpool-logs");
    }

    @Test
    void sortsJobIdsNaturally() throws Exception {
        BuildReport report = HtmlReportWriterTest.sampleReport();
        Path page = dir.resolve("report.html");
        new HtmlReportWriter().write(report, page);

        Dump dump = open(page, "#sort=id");

        dump.assertClean();
        List<String> ids = indices(dump.dom, "<tr data-index=\"(\\d+)\"").stream()
                .map(i -> report.jobs().get(i).id()).toList();
        assertThat(ids).containsExactly(
                "<img src=x onerror=alert(1)>", "cmd/never", "cmd/saxpy", "cmd/slow", "cmd/tool-1", "cmd/tool-2",
                "cmd/tool-3", "cmd/tool-4", "cmd/tool-5", "kernels/bad-archive", "kernels/fft", "kernels/gemm",
                "kernels/reduce", "kernels/scan");
        assertThat(sortState(dump.dom)).as("aria-sort of the columns").containsEntry("id", "ascending")
                .containsEntry("total", "none");
    }

    /**
     * A page of 6,000 jobs shows the first 2,000 rows in the table's order and 5,000 bars (every failure, then the
     * longest), and says so; the embedded JSON still holds every job.
     */
    @Test
    void aLargeBuildIsShownInPartAndSaysSo() throws Exception {
        List<JobOutcome> jobs = new ArrayList<>();
        for (int i = 0; i < 6000; i++) {
            ReportTestData.Job job = ReportTestData.job("job" + i).kind("command").on(i % 2 == 0 ? "w1" : "w2", i * 3L)
                    .phase("command", i % 97, 0);
            jobs.add((i == 4321 ? job.outcome("failed").exitCode(1).message("exit code 1") : job).build());
        }
        Path page = dir.resolve("large.html");
        new HtmlReportWriter().write(ReportTestData.report(jobs), page);

        Dump dump = open(page, "#sort=total:desc");

        dump.assertClean();
        assertThat(dump.body()).contains("data-ready=\"true\"");
        assertThat(indices(dump.dom, "<tr data-index=\"(\\d+)\"")).hasSize(2000);
        assertThat(dump.dom).contains("Showing the first 2000 of 6000 jobs in this order")
                .contains("Drawn: 5000 of 6000 jobs, every one that did not succeed and then the longest.");
        assertThat(attribute(dump.dom, "timeline", "data-rendered")).isEqualTo("5000");
        assertThat(indices(dump.dom, "<g class=\"bar[^\"]*\" data-index=\"(\\d+)\"")).contains(4321);
    }

    /** Two targets: every entry is named id[platform] with its target, each target in the summary, skipped counted. */
    @Test
    void aBuildOfSeveralTargetsNamesEachEntryByItsPlatform() throws Exception {
        List<JobOutcome> jobs = List.of(
                ReportTestData.job("kernels").target("cuda", "80", "90").on("w1", 0).phase("build", 900, 0).build(),
                ReportTestData.job("kernels").target("hip", "gfx942").on("w2", 0).phase("build", 700, 0).build(),
                ReportTestData.job("fp8").kind("command").target("cuda", "80", "90").outcome("skipped")
                        .attempts(0).message("skipped: it supports 90a, and the run builds 80;90").build());
        BuildReport one = ReportTestData.report(jobs);
        Resolution hip = new Resolution(Platform.HIP, List.of("gfx942"), "flag", "--target hip:gfx942", List.of(),
                null, List.of(), List.of());
        List<BuildReport.TargetEntry> targets = new ArrayList<>(one.gpuTargets());
        targets.add(new BuildReport.TargetEntry(hip, null));
        BuildReport report = new BuildReport(one.schemaVersion(), one.archpoolVersion(), one.manifest(),
                one.startedAt(), one.durationMs(), 0, targets, one.pool(), one.outcomes(), null, null, one.jobs());
        Path page = dir.resolve("targets.html");
        new HtmlReportWriter().write(report, page);

        Dump dump = open(page, "#sort=id");

        dump.assertClean();
        assertThat(dump.dom).contains(">kernels[cuda]<", ">kernels[hip]<", "fp8[cuda]", "data-outcome=\"skipped\"",
                "gfx942", "--target hip:gfx942", "skipped: it supports 90a");

        // with no sort asked for, the table is grouped by target, each group under a heading row
        Dump grouped = open(page, "");
        grouped.assertClean();
        assertThat(indices(grouped.dom, "<tr data-index=\"(\\d+)\"")).containsExactly(0, 2, 1);
        int cudaHeading = grouped.dom.indexOf("CUDA 80, 90 \u2013 2 jobs");
        int hipHeading = grouped.dom.indexOf("HIP gfx942 \u2013 1 job<");
        assertThat(cudaHeading).as("the CUDA group heading").isPositive();
        assertThat(hipHeading).as("the HIP group heading, after the CUDA rows").isGreaterThan(
                grouped.dom.indexOf("<tr data-index=\"2\""));
        assertThat(grouped.dom.indexOf("<tr data-index=\"2\"")).isGreaterThan(cudaHeading);
    }

    /** The checks above would see a script that breaks: this one makes sure they can. */
    @Test
    void aSlurmBuildListsItsNodesTheLostOneFirst() throws Exception {
        BuildReport sample = HtmlReportWriterTest.sampleReport();
        BuildReport.Pool local = sample.pool();
        BuildReport.Pool slurm = new BuildReport.Pool(local.mode(), "slurm", local.workers(), local.buildParallelism(),
                local.retries(), local.keepGoing(), local.logDir(), local.workerEvents(), local.deviceIsolation(),
                List.of(new NodeSummary("node1", 2, 0, 0, null, false, null),
                        new NodeSummary("node2", 2, 2, 0, "allocated* (Not responding)", true,
                                "Slurm says it is allocated* (Not responding) (worker death: hung)")));
        BuildReport report = new BuildReport(sample.schemaVersion(), sample.archpoolVersion(), sample.manifest(),
                sample.startedAt(), sample.durationMs(), sample.exitCode(), sample.gpuTargets(), slurm,
                sample.outcomes(), sample.cache(), sample.schedule(), sample.jobs());
        Path page = dir.resolve("report.html");
        new HtmlReportWriter().write(report, page);

        Dump dump = open(page, "");

        dump.assertClean();
        String lost = "node2: 2 workers started, 2 died, 0 failed to start; lost (Slurm says allocated* (Not"
                + " responding)); no more workers started there: Slurm says it is allocated* (Not responding)"
                + " (worker death: hung)";
        assertThat(dump.dom).contains(lost, "node1: 2 workers started, 0 died, 0 failed to start");
        assertThat(dump.dom.indexOf(lost)).as("the lost node first")
                .isLessThan(dump.dom.indexOf("node1: 2 workers started"));
    }

    @Test
    void seesAnErrorInThePage() throws Exception {
        String html = HtmlReportWriterTest.render(new HtmlReportWriter(), HtmlReportWriterTest.sampleReport());
        Path page = dir.resolve("broken.html");
        Files.writeString(page, html.replace("</body>", "<script>noSuchFunction();</script>\n</body>"));

        Dump dump = open(page, "");

        assertThat(dump.consoleLines()).anyMatch(l -> l.contains("noSuchFunction"));
        assertThat(dump.body()).contains("data-errors=").contains("noSuchFunction");
    }

    private record Dump(String dom, String stderr) {
        List<String> consoleLines() {
            return stderr.lines().filter(l -> CONSOLE.matcher(l).matches()).toList();
        }

        String body() {
            Matcher m = Pattern.compile("<body[^>]*>").matcher(dom);
            return m.find() ? m.group() : "";
        }

        void assertClean() {
            assertThat(consoleLines()).as("console output of the page").isEmpty();
            assertThat(body()).as("the page's <body>").doesNotContain("data-errors");
            assertThat(dom).contains("id=\"errors\" class=\"errors\" role=\"alert\" hidden=\"\"");
        }
    }

    private Dump open(Path page, String fragment) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory(dir, "profile");
        Path out = dir.resolve("dom.html");
        Path err = dir.resolve("stderr.txt");
        Process p = new ProcessBuilder(browser.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-extensions", "--mute-audio",
                "--user-data-dir=" + profile, "--window-size=1400,1000", "--enable-logging=stderr", "--v=0",
                "--dump-dom", page.toUri() + fragment)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            fail(browser + " did not finish within 60 s; stderr:\n" + Files.readString(err));
        }
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as("%s exit code; stderr:%n%s", browser, stderr).isZero();
        String dom = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(dom).as("dumped DOM; stderr:%n%s", stderr).contains("</html>");
        return new Dump(dom, stderr);
    }

    /** The value of {@code name} on the element with {@code id}, or null. */
    private static String attribute(String dom, String id, String name) {
        Matcher element = Pattern.compile("<[a-z]+ [^>]*\\bid=\"" + Pattern.quote(id) + "\"[^>]*>").matcher(dom);
        if (!element.find()) {
            return null;
        }
        Matcher value = Pattern.compile("\\b" + Pattern.quote(name) + "=\"([^\"]*)\"").matcher(element.group());
        return value.find() ? value.group(1) : null;
    }

    /** Each column header's aria-sort, by its key. */
    private static Map<String, String> sortState(String dom) {
        Map<String, String> state = new LinkedHashMap<>();
        Pattern.compile("<th [^>]*data-key=\"([a-z]+)\" aria-sort=\"([a-z]+)\"").matcher(dom).results()
                .forEach(r -> state.put(r.group(1), r.group(2)));
        return state;
    }

    private static List<Integer> indices(String dom, String regex) {
        return Pattern.compile(regex).matcher(dom).results().map(r -> Integer.parseInt(r.group(1))).toList();
    }
}
