package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.archpool.testing.RequiredTool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.w3c.dom.Element;

/**
 * Every output of a large build, in a small heap, on a full or read-only file system, and when the build is
 * interrupted: each requested output is written, or named on stderr as not written, and never a stack trace.
 */
class LargeOutputsIT {

    /** Every output besides the JSON report, as options, each in {@code out/}. */
    private static final List<String> EVERY_OUTPUT = List.of("--metrics", "out/m.prom", "--trace", "out/t.json",
            "--junit", "out/j.xml", "--html", "out/h.html");

    private static String jobs(int count, String script) {
        StringBuilder jobs = new StringBuilder("{\"version\":1,\"jobs\":[");
        for (int i = 1; i <= count; i++) {
            jobs.append(i > 1 ? "," : "").append("{\"id\":\"job").append(i)
                    .append("\",\"kind\":\"command\",\"cwd\":\"work\",\"argv\":[\"sh\",\"-c\",\"").append(script)
                    .append("\"]}");
        }
        return jobs.append("]}").toString();
    }

    private static List<String> build(String... extra) {
        List<String> args = new ArrayList<>(List.of("build", "archpool.json", "--platform", "cuda", "--arch", "90",
                "--no-toolchain-check", "-q", "-j2", "--report", "out/r.json"));
        args.addAll(List.of(extra));
        return args;
    }

    private static Path prepare(Path dir, int count, String script) throws IOException {
        Files.createDirectories(dir.resolve("work"));
        Files.createDirectories(dir.resolve("out"));
        return Archpool.manifest(dir, jobs(count, script));
    }

    private static void assertReadable(Path dir, int jobs) throws Exception {
        assertThat(Archpool.json(dir.resolve("out/r.json")).path("jobs")).hasSize(jobs);
        assertThat(Archpool.json(dir.resolve("out/t.json")).path("traceEvents").size()).isGreaterThan(jobs);
        Element suites = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(dir.resolve("out/j.xml").toFile()).getDocumentElement();
        assertThat(suites.getAttribute("tests")).isEqualTo(Integer.toString(jobs));
        assertThat(Files.readString(dir.resolve("out/h.html"))).contains("id=\"archpool-report\"").endsWith("</html>\n");
        assertThat(Files.readString(dir.resolve("out/m.prom"))).contains("archpool_jobs_total");
    }

    /**
     * 5,000 jobs with every output in a 24 MiB heap, in thread mode: the outputs built whole as trees and strings
     * needed more than 28 MiB here and ended in an OutOfMemoryError's stack trace, exit 1. The cache folder's job
     * durations are full (100,000 jobs, the most the file keeps): read into a map of strings and merged so when the
     * history was saved, they ran out of the same heap (as a shared test cache filled up over runs).
     */
    @Test
    void everyOutputOfFiveThousandJobsIsStreamedThroughASmallHeap(@TempDir Path dir) throws Exception {
        prepare(dir, 5000, "true");
        Path cache = Files.createDirectories(dir.resolve("cache"));
        Files.setPosixFilePermissions(cache, PosixFilePermissions.fromString("rwx------"));
        StringBuilder durations = new StringBuilder("# archpool job durations 1\n");
        Random random = new Random(42);
        for (int i = 0; i < 100_000; i++) {
            durations.append(String.format("%016x%016x%016x%016x\t%d%n", random.nextLong(), random.nextLong(),
                    random.nextLong(), random.nextLong(), random.nextInt(100_000)));
        }
        Files.writeString(cache.resolve("durations"), durations);
        List<String> args = new ArrayList<>(build("--mode", "thread", "--cache", cache.toString()));
        args.addAll(EVERY_OUTPUT);
        Archpool.Run run = new Archpool().in(dir).env("ARCHPOOL_JAVA_OPTS", "-Xmx24m").run(args.toArray(String[]::new));
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.stderr()).doesNotContain("Exception", "OutOfMemoryError");
        assertReadable(dir, 5000);
        assertThat(Files.readAllLines(cache.resolve("durations"))).as("the history, capped").hasSize(100_001);
    }

    @Test
    void aFullFileSystemFailsOnlyItsOutputWithExit74AfterTheOthersAndTheSummary(@TempDir Path dir) throws Exception {
        prepare(dir, 200, "true");
        Path small = Files.createDirectories(dir.resolve("small"));
        try (Tmpfs tmpfs = Tmpfs.mount(small, "size=32k")) {
            Archpool.Run run = new Archpool().in(dir).run(build("--mode", "thread", "--metrics", "out/m.prom",
                    "--trace", "small/t.json", "--junit", "out/j.xml", "--html", "out/h.html")
                    .toArray(String[]::new));
            assertThat(run.exitCode()).as(run.toString()).isEqualTo(74);
            assertThat(run.stderr()).contains("cannot write --trace small/t.json: No space left on device")
                    .contains("written: the report ").contains("out/r.json, --metrics out/m.prom, --junit out/j.xml,"
                            + " --html out/h.html")
                    .doesNotContain("Exception");
            assertThat(run.stdout()).contains("200 of 200 jobs succeeded");
            assertThat(Archpool.json(dir.resolve("out/r.json")).path("jobs")).hasSize(200);
            assertThat(Files.readString(dir.resolve("out/h.html"))).contains("job200");
            try (Stream<Path> left = Files.list(small)) {
                assertThat(left).as("no temporary file is left on the full file system").isEmpty();
            }
        }
    }

    @Test
    void aFolderThatBecomesReadOnlyDuringTheBuildFailsOnlyItsOutputsWithExit74(@TempDir Path dir) throws Exception {
        prepare(dir, 2, "mktemp ../started.XXXXXX >/dev/null; sleep 2");
        Path later = Files.createDirectories(dir.resolve("later"));
        try (Tmpfs tmpfs = Tmpfs.mount(later, "size=1m")) {
            Process coordinator = start(dir, build("--junit", "later/j.xml", "--html", "out/h.html"));
            await().atMost(Duration.ofSeconds(30)).until(() -> started(dir) > 0);
            tmpfs.remountReadOnly();
            Exits.within(coordinator, Duration.ofSeconds(60), dir.resolve("err.txt"));
            String err = Files.readString(dir.resolve("err.txt"));
            assertThat(coordinator.exitValue()).as(err).isEqualTo(74);
            assertThat(err).contains("cannot write --junit later/j.xml: Read-only file system")
                    .contains("written: the report ").contains("out/r.json, --html out/h.html")
                    .doesNotContain("Exception");
            assertThat(Files.readString(dir.resolve("out.txt"))).contains("2 of 2 jobs succeeded");
            assertThat(Files.readString(dir.resolve("out/h.html"))).contains("job2");
        }
    }

    /**
     * Interrupted while two jobs run and the others wait: the build ends with 130 and every requested output is on
     * disk and parses. With 100,000 jobs the outputs built whole took longer than the fixed 4 s the process was
     * given to end, and the HTML, trace and JUnit files were dropped without a word.
     */
    @ParameterizedTest
    @CsvSource({"INT, 100000", "TERM, 20000"})
    void anInterruptedBuildWritesEveryOutputOrNamesIt(String signal, int jobs, @TempDir Path dir) throws Exception {
        prepare(dir, jobs, "mktemp ../started.XXXXXX >/dev/null; sleep 60");
        List<String> args = new ArrayList<>(build());
        args.addAll(EVERY_OUTPUT);
        Process coordinator = start(dir, args);
        await().atMost(Duration.ofSeconds(60)).until(() -> started(dir) >= 2);
        new ProcessBuilder("kill", "-" + signal, Long.toString(coordinator.pid())).start().waitFor();
        Exits.within(coordinator, Duration.ofSeconds(60), dir.resolve("err.txt"));
        String err = Files.readString(dir.resolve("err.txt"));
        assertThat(coordinator.exitValue()).as(err).isEqualTo(130);
        assertThat(err).contains("interrupted").doesNotContain("Exception").doesNotContain("not written");
        assertReadable(dir, jobs);
        assertThat(Archpool.json(dir.resolve("out/r.json")).path("jobs").findValuesAsText("outcome"))
                .containsOnly("cancelled");
    }

    /**
     * A second interrupt once the report is on disk, while the other outputs of 100,000 jobs are written, ends
     * the build at once: the report parses, each other output is on disk or named as not written, and the one cut
     * off leaves no temporary file.
     */
    @Test
    void aSecondInterruptStopsAtOnceAndNamesWhatWasNotWritten(@TempDir Path dir) throws Exception {
        prepare(dir, 100_000, "mktemp ../started.XXXXXX >/dev/null; sleep 60");
        List<String> args = new ArrayList<>(build());
        args.addAll(EVERY_OUTPUT);
        Process coordinator = start(dir, args);
        await().atMost(Duration.ofSeconds(60)).until(() -> started(dir) >= 2);
        new ProcessBuilder("kill", "-INT", Long.toString(coordinator.pid())).start().waitFor();
        Path report = dir.resolve("out/r.json");
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).until(() -> Files.exists(report));
        new ProcessBuilder("kill", "-INT", Long.toString(coordinator.pid())).start().waitFor();
        Exits.within(coordinator, Duration.ofSeconds(30), dir.resolve("err.txt"));
        String said = Files.readString(dir.resolve("err.txt"));
        assertThat(coordinator.exitValue()).as(said).isEqualTo(130);
        assertThat(said).contains("interrupted again: stopping now").doesNotContain("Exception");
        assertThat(Archpool.json(report).path("jobs")).hasSize(100_000);
        String notWritten = said.substring(said.indexOf("interrupted again"));
        assertThat(notWritten).as("the interrupt came before the outputs were done").contains("not written: ")
                .doesNotContain("the report");
        for (String output : List.of("--metrics out/m.prom", "--trace out/t.json", "--junit out/j.xml",
                "--html out/h.html")) {
            Path file = dir.resolve(output.substring(output.lastIndexOf(' ') + 1));
            assertThat(Files.exists(file) || notWritten.contains(output))
                    .as(output + " is written or named as not written: " + said).isTrue();
        }
        try (Stream<Path> left = Files.list(dir.resolve("out"))) {
            assertThat(left).as("no unfinished temporary file is left").noneMatch(f -> f.toString().endsWith(".tmp"));
        }
    }

    private static Process start(Path dir, List<String> args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Archpool.home().resolve("bin/archpool").toString());
        command.addAll(args);
        return Archpool.process(command).directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile())
                .start();
    }

    private static long started(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().startsWith("started.")).count();
        }
    }
}
