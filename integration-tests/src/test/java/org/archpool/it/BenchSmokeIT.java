package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.archpool.testing.RequiredTool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench/run --smoke}, the benchmark harness at CI size: it measures every section against the built
 * distribution and writes a markdown report with each section's table and a JSON file with a figure for each
 * measurement. The figures themselves are not judged here (they are printed, never asserted); only that each
 * was measured, and the counts that say the build was right (no probe in a worker, no cache hit across targets).
 * Only the compile section builds real CUDA: {@code --smoke} runs the cache and schedule sections with command
 * jobs standing in for nvcc ({@code --stand-ins on}), which take the same paths through archpool, and two sections
 * at a time ({@code --lanes 2}).
 */
class BenchSmokeIT {

    /** Every section's heading in the markdown, by the name {@code --only} takes. */
    private static final Map<String, String> HEADINGS = Map.ofEntries(
            Map.entry("compile", "## 1. Compile: 2 CUDA CMake projects at parallelism 2"),
            Map.entry("dispatch", "## 2. Dispatch overhead: 100 trivial jobs"),
            Map.entry("start", "## 3. Worker start: 3 workers, one after the other"),
            Map.entry("memory", "## 4. Memory"),
            Map.entry("probes", "## 5. Probes per build"),
            Map.entry("outputs", "## 6. Outputs of a large build"),
            Map.entry("serve", "## 7. serve: 100 trivial jobs through one serve"),
            Map.entry("isolation", "## 8. Device isolation: 3 workers and steps, on against off"),
            Map.entry("cache", "## 9. Build cache: cold builds, builds from the cache, and no hit across targets"),
            Map.entry("schedule", "## 10. Schedule: 2 small stand-in jobs and one long one listed last, at -j2 and -j8"));

    private static final String TABLE_HEAD = "| figure | value | min | max | of | target | met |";

    /** Figures that must be measured, positive numbers. */
    private static final List<String> POSITIVE = List.of(
            "compile.wall.archpool-process", "compile.wall.archpool-thread", "compile.wall.archpool-client",
            "compile.wall.xargs", "compile.wall.python", "compile.wall.ninja", "compile.cpu.archpool-process",
            "dispatch.rate.archpool-j2", "dispatch.rate.archpool-j8", "dispatch.rate.xargs-P2",
            "dispatch.rate.xargs-P8", "dispatch.rate.ninja-j2", "dispatch.rate.ninja-j8", "start.process",
            "memory.coordinator-peak", "memory.worker-rss-mean", "outputs.rss-peak", "outputs.heap-peak",
            "serve.rate.serve", "serve.rate.xargs", "serve.accept.p99", "serve.rss", "isolation.start.off",
            "isolation.start.on", "isolation.step.on", "cache.projects.cold", "cache.projects.warm",
            "cache.commands.warm", "cache.commands.one", "schedule.j2.wall.archpool-run1",
            "schedule.j2.wall.archpool-run2", "schedule.j2.wall.archpool-fifo", "schedule.j2.wall.xargs",
            "schedule.j2.wall.ninja", "schedule.j2.ideal", "schedule.j8.ideal", "schedule.long-factor");

    /** Counts that must be zero: a worker ran no detection tool; a build for one target hit nothing of another. */
    private static final List<String> ZERO = List.of("probes.from-workers", "cache.archs.cuda", "cache.archs.hip");

    @Test
    void measuresEverySectionAndWritesTheReportAndItsFigures(@TempDir Path dir) throws Exception {
        RequiredTool.require("cmake", "ninja", "nvcc", "python3");
        Path markdown = dir.resolve("performance.md");
        Path json = dir.resolve("p.json");
        Path work = dir.resolve("work");

        Run run = bench("--smoke", "--archpool", Archpool.home().resolve("bin/archpool").toString(),
                "--out", markdown.toString(), "--json", json.toString(), "--work", work.toString());

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(work).as("the work folder is removed at the end").doesNotExist();
        String report = Files.readString(markdown, StandardCharsets.UTF_8);
        assertThat(report).startsWith("# archpool performance").contains("## Machine")
                .contains("`bench/run --smoke --archpool ")
                .as("a report of sections run side by side says so").contains("**2 sections ran at a time**");
        for (Map.Entry<String, String> section : HEADINGS.entrySet()) {
            assertThat(sectionOf(report, section.getValue())).as(section.getKey())
                    .contains(TABLE_HEAD)
                    .contains("Reproduce: `bench/run --only " + section.getKey() + " --smoke`");
        }
        assertThat(sectionOf(report, HEADINGS.get("cache"))).contains("**Stand-ins** (`--stand-ins on`");

        JsonNode figures = Archpool.json(json).path("figures");
        List<String> sections = new ArrayList<>();
        figures.fields().forEachRemaining(figure -> {
            String key = figure.getKey();
            JsonNode value = figure.getValue().path("value");
            assertThat(value.isNumber()).as("%s is measured: %s", key, figure.getValue()).isTrue();
            // differences (isolation.added.*: on minus off) may be negative; no figure is NaN or infinite
            assertThat(Double.isFinite(value.asDouble())).as("%s is finite: %s", key, value).isTrue();
            assertThat(report).as("%s is printed", key).contains("| " + figure.getValue().path("label").asText() + " |");
            sections.add(key.substring(0, key.indexOf('.')));
        });
        assertThat(sections).as("every section has figures").containsAll(HEADINGS.keySet());
        for (String key : POSITIVE) {
            assertThat(figures.path(key).path("value").asDouble()).as(key).isPositive();
        }
        for (String key : ZERO) {
            assertThat(figures.path(key).path("value").isNumber()).as(key).isTrue();
            assertThat(figures.path(key).path("value").asInt()).as(key).isZero();
        }
        List<String> probeCounts = new ArrayList<>();
        figures.fieldNames().forEachRemaining(key -> {
            if (key.startsWith("probes.") && !key.equals("probes.from-workers")) {
                probeCounts.add(key);
            }
        });
        assertThat(probeCounts).as("the smoke run's two builds, three tools each").containsExactlyInAnyOrder(
                "probes.4x2.rocminfo", "probes.4x2.amdgpu-arch", "probes.4x2.nvidia-smi",
                "probes.8x4.rocminfo", "probes.8x4.amdgpu-arch", "probes.8x4.nvidia-smi");
        for (String key : probeCounts) {
            assertThat(figures.path(key).path("value").asInt()).as(key).isEqualTo(1);
        }
    }

    /** The text of one section: from its heading to the next. */
    private static String sectionOf(String report, String heading) {
        int start = report.indexOf(heading + "\n");
        assertThat(start).as("heading '%s' in the report", heading).isNotNegative();
        int end = report.indexOf("\n## ", start + heading.length());
        return report.substring(start, end < 0 ? report.length() : end);
    }

    record Run(int exitCode, String output) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- output\n" + output;
        }
    }

    /**
     * Runs bench/run from the repository root, stdout and stderr together, for at most 10 minutes: it takes about
     * 75 s alone, and up to 4 minutes beside two other classes on 2 cores; the limit only stops a hang.
     */
    private static Run bench(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Archpool.repo().resolve("bench/run").toString()));
        command.addAll(List.of(args));
        Path output = Files.createTempFile("bench-run", ".out");
        try {
            Process p = Archpool.process(command).directory(Archpool.repo().toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectErrorStream(true).redirectOutput(output.toFile()).start();
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroy(); // SIGTERM: the harness stops its contenders and removes its work folder
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                }
                throw new AssertionError("bench/run --smoke did not finish in 10 minutes:\n"
                        + Files.readString(output, StandardCharsets.UTF_8));
            }
            return new Run(p.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(output);
        }
    }
}
