package org.archpool.orchestrator.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.archpool.orchestrator.arch.GpuDevice;
import org.archpool.orchestrator.arch.ProbeReport;
import org.archpool.orchestrator.arch.Resolution;
import org.archpool.orchestrator.arch.ToolchainCheck;
import org.archpool.orchestrator.pool.WorkerEvent;
import org.archpool.orchestrator.pool.WorkerFailure;
import org.archpool.orchestrator.schedule.JobOutcome;
import org.archpool.protocol.Artifact;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;
import org.archpool.protocol.PhaseTiming;
import org.archpool.protocol.Platform;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HtmlReportWriterTest {

    static final String HOSTILE_ID = "<img src=x onerror=alert(1)>";
    static final String HOSTILE_TAIL = "error: boom\n</script><script>alert(2)</script>\n<!-- x --> & done\u2028";

    private static final Pattern DATA = Pattern.compile(
            "<script type=\"application/json\" id=\"archpool-report\">(.*?)</script>", Pattern.DOTALL);

    @TempDir
    Path dir;

    private final HtmlReportWriter writer = new HtmlReportWriter();

    @Test
    void embedsTheWholeReportAsJsonThatCannotCloseTheScriptElement() throws IOException {
        BuildReport report = sampleReport();
        String html = render(writer, report);

        Matcher m = DATA.matcher(html);
        assertThat(m.find()).isTrue();
        String json = m.group(1);
        assertThat(json).doesNotContain("<", ">", "&");
        ObjectMapper mapper = new ObjectMapper();
        JsonNode embedded = mapper.readTree(json);
        assertThat(embedded).isEqualTo(mapper.readTree(new ReportWriter().toJson(report)));
        assertThat(embedded.at("/jobs/0/id").asText()).isEqualTo(HOSTILE_ID);
        assertThat(embedded.at("/jobs/0/logTail").asText()).isEqualTo(HOSTILE_TAIL);

        // the data's own </script> and <!-- never reach the markup: only the page's two script elements close
        assertThat(html).doesNotContain("<!--", "<img", "alert(2)</script>");
        assertThat(Pattern.compile("</script>", Pattern.CASE_INSENSITIVE).matcher(html).results().count())
                .isEqualTo(2);
    }

    @Test
    void isSelfContained() {
        String html = render(writer, sampleReport());

        assertThat(html).startsWith("<!DOCTYPE html>");
        assertThat(html).contains("<style>", "Content-Security-Policy", "default-src 'none'");
        // nothing to fetch: no links, no sourced scripts or images, no imports or url()s
        assertThat(html).doesNotContainPattern("(?i)<link|<script[^>]*\\ssrc=|<img|<iframe|@import|url\\(");
        // the only URL is the SVG namespace, which is a name, not a fetch
        assertThat(html.replace("http://www.w3.org/2000/svg", ""))
                .doesNotContainPattern("(?i)https?:|//[a-z0-9.-]+\\.[a-z]{2,}/");
        assertThat(html).doesNotContain("{{");
    }

    @Test
    void escapesTheManifestInTheHeading() {
        BuildReport report = withManifest(sampleReport(), "/tmp/<b>&\"x'/jobs.yaml");
        String html = render(writer, report);

        assertThat(html).contains("<title>archpool report \u2014 jobs.yaml</title>");
        assertThat(html).contains("/tmp/&lt;b&gt;&amp;&quot;x&#39;/jobs.yaml");
        assertThat(html).doesNotContain("<b>");
    }

    @Test
    void substitutesPlaceholdersOnlyOnce() {
        String html = render(writer, withManifest(sampleReport(), "{{DATA}}{{JS}}/m.yaml"));

        assertThat(html).contains("{{DATA}}{{JS}}/m.yaml");
        assertThat(DATA.matcher(html).results().count()).isEqualTo(1);
    }

    @Test
    void rendersAReportWithNothingInIt() {
        BuildReport empty = new BuildReport(1, "0.1.0", null, null, 0, 2, null, null, null, Map.of(), List.of());

        String html = render(writer, empty);

        assertThat(html).contains("\"jobs\":[]").contains("<title>archpool report</title>");
    }

    @Test
    void staysSmall() throws IOException {
        BuildReport empty = new BuildReport(1, "0.1.0", "m.yaml", null, 0, 0, null, null, null, Map.of(), List.of());

        assertThat(render(writer, empty).getBytes(StandardCharsets.UTF_8).length).isLessThan(40 * 1024);
        for (String asset : List.of("report.css", "report.js")) {
            assertThat(resource(asset)).as(asset).doesNotContainPattern("(?i)</script|</style|<!--");
        }
    }

    @Test
    void writesAtomicallyOverAnOldPage() throws IOException {
        Path page = dir.resolve("sub/report.html");
        Files.createDirectories(page.getParent());
        Files.writeString(page, "old");

        writer.write(sampleReport(), page);

        assertThat(Files.readString(page)).isEqualTo(render(writer, sampleReport()));
        try (Stream<Path> files = Files.list(page.getParent())) {
            assertThat(files).containsExactly(page);
        }
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = HtmlReportWriter.class.getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static BuildReport withManifest(BuildReport r, String manifest) {
        return new BuildReport(r.schemaVersion(), r.archpoolVersion(), manifest, r.startedAt(), r.durationMs(),
                r.exitCode(), r.resolution(), r.toolchainCheck(), r.pool(), r.outcomes(), r.jobs());
    }

    /**
     * A build of 14 jobs on four workers (one died, one was recycled), with every outcome, a hostile job id and a
     * log tail that tries to close the script element. {@code totalMs} are all different, so any sort is total.
     */
    static BuildReport sampleReport() {
        List<JobOutcome> jobs = new ArrayList<>();
        jobs.add(job(HOSTILE_ID, "command", Outcome.FAILED, 2, null, "w1", 1, 0, 5, 0, 0, 2400, 0,
                "exit code 2 from nvcc", HOSTILE_TAIL, List.of(), List.of(), List.of()));
        jobs.add(job("kernels/gemm", "cmake", Outcome.SUCCEEDED, 0, null, "w3", 1, 0, 4, 1800, 5200, 0, 35, null,
                null, List.of(new Artifact("/b/gemm/libgemm.so", List.of("sm_90", "sm_100"))), List.of(),
                List.of()));
        jobs.add(job("kernels/reduce", "cmake", Outcome.SUCCEEDED, 0, null, "w1", 1, 6100, 6090, 1500, 3100, 0, 20,
                null, null, List.of(new Artifact("/b/reduce/libreduce.so", List.of("sm_90", "sm_100", "compute_80"))),
                List.of(), List.of("also holds compute_80, which was not asked for")));
        jobs.add(job("kernels/scan", "cmake", Outcome.CRASHED, null, null, "w4", 2, 5400, 6, 900, 0, 0, 0,
                "worker w4 spoke garbage while building", "[ 40%] Building CUDA object scan.cu.o",
                List.of(), List.of("worker w2 died: exit code 137 (killed)"), List.of()));
        jobs.add(job("cmd/saxpy", "command", Outcome.SUCCEEDED, 0, null, "w1", 1, 2500, 2490, 0, 0, 700, 12,
                null, null, List.of(new Artifact("/b/saxpy", List.of("sm_90"))), List.of(), List.of()));
        jobs.add(job("cmd/slow", "command", Outcome.TIMED_OUT, null, "SIGKILL", "w4", 1, 6400, 6390, 0, 0, 6000,
                0, "timed out after 6 s", "still compiling...", List.of(), List.of(), List.of()));
        jobs.add(job("cmd/never", "command", Outcome.CANCELLED, null, null, null, 0, 0, 0, 0, 0, 0, 0,
                "cancelled: the build was interrupted", null, List.of(), List.of(), List.of()));
        jobs.add(job("kernels/fft", "cmake", Outcome.SUCCEEDED, 0, null, "w3", 1, 7100, 7090, 1200, 2600, 0, 30,
                null, null, List.of(new Artifact("/b/fft/libfft.so", List.of("sm_90", "sm_100"), null,
                        List.of())), List.of(), List.of()));
        jobs.add(job("kernels/bad-archive", "cmake", Outcome.SUCCEEDED, 0, null, "w1", 1, 3300, 3290, 800, 1900, 0,
                40, null, null, List.of(new Artifact("/b/bad/libbad.a", List.of(), "truncated fatbin at offset 96")),
                List.of(), List.of()));
        String[] workers = {"w1", "w3", "w1", "w3", "w4"};
        long[] starts = {11000, 11000, 11600, 11600, 12500};
        for (int i = 1; i <= 5; i++) {
            jobs.add(job("cmd/tool-" + i, "command", Outcome.SUCCEEDED, 0, null, workers[i - 1], 1, starts[i - 1],
                    starts[i - 1] - 10, 0, 0, 300 + i * 111, 7, null, null,
                    List.of(new Artifact("/b/tool-" + i, List.of("sm_100"))), List.of(), List.of()));
        }
        Map<String, Integer> counts = new LinkedHashMap<>();
        jobs.forEach(j -> counts.merge(j.outcome().wireName(), 1, Integer::sum));
        Resolution resolution = new Resolution(Platform.CUDA, List.of("90", "100"), "flag", "--arch 90,100",
                List.of(new GpuDevice(Platform.CUDA, 0, "GPU-1234", "90", "NVIDIA H200")), null,
                List.of("100 is not among the detected devices"),
                List.of(new ProbeReport("nvidia-smi", List.of("nvidia-smi", "-L"), "detected", 0, 41, 1, null)));
        ToolchainCheck.Result check = new ToolchainCheck.Result(List.of(new ProbeReport("nvcc",
                List.of("nvcc", "--list-gpu-code"), "ok", 0, 120, 0, null)), List.of(), "nvcc");
        BuildReport.Pool pool = new BuildReport.Pool("process", "local", 4, 8, 1, true, "/tmp/archpool-logs", List.of(
                WorkerEvent.started("w1", 101L, 0, 0, null),
                WorkerEvent.started("w2", 102L, 0, 0, null),
                WorkerEvent.started("w3", 103L, 0, 0, null),
                WorkerEvent.died("w2", 102L, 5300, WorkerFailure.EXIT, "exit code 137 (killed)"),
                WorkerEvent.started("w4", 104L, 5350, 0, null),
                WorkerEvent.recycled("w4", 104L, 6310, "spoke garbage: unexpected token")), "namespace");
        return new BuildReport(BuildReport.SCHEMA_VERSION, "0.1.0-test", "/home/user/project/archpool.json",
                "2025-01-02T03:04:05.678Z", 14100, 1, resolution, check, pool, counts, jobs);
    }

    private static JobOutcome job(String id, String kind, Outcome outcome, Integer exitCode, String signal,
                                  String worker, int attempts, long startMs, long queueWaitMs, long configureMs,
                                  long buildMs, long commandMs, long inspectMs, String message, String logTail,
                                  List<Artifact> artifacts, List<String> attemptFailures, List<String> warnings) {
        List<PhaseTiming> phases = new ArrayList<>();
        if (configureMs > 0) {
            phases.add(new PhaseTiming(Phase.CONFIGURE, configureMs, 0));
        }
        Integer last = outcome == Outcome.SUCCEEDED ? Integer.valueOf(0) : exitCode;
        if (buildMs > 0) {
            phases.add(new PhaseTiming(Phase.BUILD, buildMs, last));
        }
        if (commandMs > 0) {
            phases.add(new PhaseTiming(Phase.COMMAND, commandMs, last));
        }
        if (inspectMs > 0) {
            phases.add(new PhaseTiming(Phase.INSPECT, inspectMs, null));
        }
        long total = attempts == 0 ? 0 : configureMs + buildMs + commandMs + inspectMs + 3 + (attempts - 1) * 1000L;
        String log = worker == null ? null : "/tmp/archpool-logs/" + id.replaceAll("[^A-Za-z0-9._-]", "_") + ".log";
        return new JobOutcome(id, kind, outcome, exitCode, signal, worker, attempts, startMs, queueWaitMs,
                configureMs, buildMs, commandMs, inspectMs, total, phases, log, logTail, message, artifacts,
                attemptFailures, warnings);
    }

    /** The page as text, as {@link HtmlReportWriter#writeTo} streams it. */
    static String render(HtmlReportWriter writer, BuildReport report) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            writer.writeTo(report, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
