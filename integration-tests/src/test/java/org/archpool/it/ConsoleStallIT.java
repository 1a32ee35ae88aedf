package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console never stalls the build: a stdout nobody reads, and a build stopped (SIGSTOP, as Ctrl-Z stops it)
 * for longer than the heartbeat timeout, leave every healthy job to succeed at its first attempt.
 */
class ConsoleStallIT {

    /** Ids this long make each console line long, so that a few hundred jobs fill a pipe's 64 KiB. */
    private static final String PAD = "x".repeat(100);

    /**
     * {@code slow}, a job that runs for {@code seconds} and so needs heartbeats all along, then {@code quick}
     * jobs that each print lines on the console.
     */
    private static void manifest(Path dir, int seconds, int quick) throws Exception {
        StringBuilder jobs = new StringBuilder("{\"id\":\"slow\",\"kind\":\"command\",\"argv\":[\"sleep\",\"" + seconds
                + "\"]}");
        for (int i = 0; i < quick; i++) {
            jobs.append(",{\"id\":\"q").append(i).append(PAD).append("\",\"kind\":\"command\",\"argv\":[\"true\"]}");
        }
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + jobs + "]}");
    }

    /** archpool in a process group of its own (setsid), its stdout a pipe this test does not read. */
    private static Process start(Path dir, String... extra) throws Exception {
        List<String> command = new ArrayList<>(List.of("setsid", Archpool.home().resolve("bin/archpool").toString(),
                "build", "archpool.json", "--arch", "90", "-j2", "--retries", "0", "--heartbeat-timeout", "2s",
                "--no-toolchain-check", "--report", dir.resolve("r.json").toString()));
        command.addAll(List.of(extra));
        return Archpool.process(command).directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectError(dir.resolve("err.txt").toFile()).start();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return e.toString();
        }
    }

    private static void assertEveryJobSucceededAtOnce(JsonNode report, int jobs) {
        assertThat(report.path("jobs")).hasSize(jobs);
        for (JsonNode job : report.path("jobs")) {
            assertThat(job.path("outcome").asText()).as(job.toString()).isEqualTo("succeeded");
            assertThat(job.path("attempts").asInt()).as(job.toString()).isEqualTo(1);
        }
    }

    @Test
    void aStdoutNobodyReadsLosesNoJobAndNoFinishedLine(@TempDir Path dir) throws Exception {
        manifest(dir, 6, 400);
        Process archpool = start(dir, "-v");
        try {
            // the report is written before the summary, which is the one thing that waits for the reader
            await().atMost(Duration.ofSeconds(120)).until(() -> Files.exists(dir.resolve("r.json")));
            assertEveryJobSucceededAtOnce(Archpool.json(dir.resolve("r.json")), 401);
            String stdout;
            try (InputStream in = archpool.getInputStream()) {
                stdout = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            Exits.within(archpool, Duration.ofSeconds(30), dir.resolve("err.txt"));
            assertThat(archpool.exitValue()).as(stdout).isZero();
            assertThat(stdout).contains("] slow succeeded on w").contains("] q399" + PAD + " succeeded on w")
                    .containsPattern("archpool: \\d+ progress lines not shown: the console's reader was too slow")
                    .contains("401 of 401 jobs succeeded.");
            for (int i = 0; i < 400; i++) {
                assertThat(stdout).contains("] q" + i + PAD + " succeeded on w");
            }
        } finally {
            archpool.destroyForcibly();
        }
    }

    @Test
    void ctrlCWithAStdoutNobodyReadsStillWritesTheReport(@TempDir Path dir) throws Exception {
        manifest(dir, 60, 400);
        Process archpool = start(dir, "-v");
        try {
            Path slowLog = dir.resolve(".archpool/logs/slow.log");
            Path lastLog = dir.resolve(".archpool/logs/q399" + PAD + ".log");
            // every quick job has run, and written far more than the pipe holds
            await().atMost(Duration.ofSeconds(120)).until(() -> Files.exists(slowLog) && Files.exists(lastLog));
            new ProcessBuilder("kill", "-INT", Long.toString(archpool.pid())).start().waitFor();
            Exits.within(archpool, Duration.ofSeconds(10), dir.resolve("err.txt"));
            assertThat(archpool.exitValue()).isEqualTo(130);
            JsonNode report = Archpool.json(dir.resolve("r.json"));
            assertThat(report.path("exitCode").asInt()).isEqualTo(130);
            assertThat(report.path("jobs").get(0).path("outcome").asText()).isEqualTo("cancelled");
            assertThat(report.path("jobs").findValuesAsText("outcome")).doesNotContain("crashed");
        } finally {
            archpool.destroyForcibly();
        }
    }

    @Test
    void aBuildStoppedLongerThanTheHeartbeatTimeoutGoesOnAsIfNothingHappened(@TempDir Path dir) throws Exception {
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":["
                + "{\"id\":\"a\",\"kind\":\"command\",\"argv\":[\"sleep\",\"4\"]},"
                + "{\"id\":\"b\",\"kind\":\"command\",\"argv\":[\"sleep\",\"4\"]}]}");
        Process archpool = start(dir);
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> !archpool.isAlive()
                    || Files.exists(dir.resolve(".archpool/logs/a.log")) && Files.exists(dir.resolve(".archpool/logs/b.log")));
            assertThat(archpool.isAlive()).as(() -> "exited early: " + read(dir.resolve("err.txt"))).isTrue();
            Thread.sleep(300);
            String group = "-" + archpool.pid(); // setsid: the coordinator leads its group; its workers are in it
            assertThat(new ProcessBuilder("kill", "-STOP", "--", group).start().waitFor()).isZero();
            Thread.sleep(5_000); // well past --heartbeat-timeout 2s
            assertThat(new ProcessBuilder("kill", "-CONT", "--", group).start().waitFor()).isZero();
            Exits.within(archpool, Duration.ofSeconds(60), dir.resolve("err.txt"));
            String stdout = new String(archpool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(archpool.exitValue()).as(stdout).isZero();
            assertEveryJobSucceededAtOnce(Archpool.json(dir.resolve("r.json")), 2);
        } finally {
            archpool.destroyForcibly();
        }
    }
}
