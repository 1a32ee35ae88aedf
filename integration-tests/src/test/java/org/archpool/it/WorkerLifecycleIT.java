package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.archpool.protocol.Message;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real worker JVM: it exits when its parent dies, and what jobs print never reaches its protocol stream. */
class WorkerLifecycleIT {

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    @Test
    void aWorkerWhoseParentIsKilledExitsEvenWhileItsStdinStaysOpen(@TempDir Path dir) throws Exception {
        Path pidFile = dir.resolve("worker.pid");
        // sh is the worker's parent; 'tail -f /dev/null' keeps the worker's stdin open forever, so only the
        // parent's death can end it.
        String script = "tail -f /dev/null | " + java() + " -cp '" + Archpool.home().resolve("lib") + "/*' "
                + "org.archpool.worker.WorkerMain --worker-id orphan > " + dir.resolve("out") + " 2>&1 &"
                + " until pgrep -P $$ -f WorkerMain > " + pidFile + "; do sleep 0.1; done; wait";
        Process parent = new ProcessBuilder("sh", "-c", script).start();
        await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(pidFile) && Files.size(pidFile) > 0
                && Files.readString(dir.resolve("out")).contains("\"type\":\"hello\""));
        long workerPid = Long.parseLong(Files.readAllLines(pidFile).get(0).strip());
        ProcessHandle worker = ProcessHandle.of(workerPid).orElseThrow();
        List<ProcessHandle> tails = parent.descendants().filter(p -> p.info().command().orElse("").endsWith("tail"))
                .toList();
        try {
            parent.toHandle().destroyForcibly();
            await().atMost(Duration.ofSeconds(10)).until(() -> !worker.isAlive());
        } finally {
            tails.forEach(ProcessHandle::destroyForcibly);
            worker.destroyForcibly();
        }
    }

    @Test
    void whatAJobPrintsCannotDisturbTheProtocol(@TempDir Path dir) throws Exception {
        String fake = "{\\\"type\\\":\\\"result\\\",\\\"requestId\\\":\\\"noise#1\\\",\\\"outcome\\\":\\\"failed\\\"}";
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":["
                + "{\"id\":\"noise\",\"kind\":\"command\",\"argv\":[\"sh\",\"-c\",\"echo '" + fake
                + "'; echo '{\\\"type\\\":\\\"hello\\\"}'; head -c 100000 /dev/urandom; echo; echo done\"]},"
                + "{\"id\":\"after\",\"kind\":\"command\",\"argv\":[\"sh\",\"-c\",\"echo second job\"]}]}");
        Path report = dir.resolve("report.json");

        Archpool.Run run = new Archpool().in(dir).run("build", "archpool.json", "--arch", "90", "-j1",
                "--report", report.toString());

        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode r = Archpool.json(report);
        assertThat(r.path("jobs").findValuesAsText("outcome")).containsExactly("succeeded", "succeeded");
        assertThat(r.path("jobs").findValuesAsText("worker")).containsExactly("w1", "w1");
        assertThat(r.path("pool").path("workerEvents").findValuesAsText("event")).containsExactly("started");
        Path log = Path.of(r.path("jobs").get(0).path("logPath").asText());
        assertThat(Files.readString(log, StandardCharsets.ISO_8859_1)).contains("\"requestId\":\"noise#1\"").contains("done");
    }

    @Test
    void aWorkerSaysHelloFirstAndExitsAtEndOfInput() throws Exception {
        Process p = new ProcessBuilder(java(), "-cp", Archpool.home().resolve("lib") + "/*",
                "org.archpool.worker.WorkerMain", "--worker-id", "w9").redirectErrorStream(false).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String first = out.readLine();
            assertThat(first).startsWith("{\"type\":\"hello\"").contains("\"protocolVersion\":" + Message.PROTOCOL_VERSION)
                    .contains("\"workerId\":\"w9\"").contains("\"pid\":" + p.pid());
            p.getOutputStream().close();
            await().atMost(Duration.ofSeconds(10)).until(() -> !p.isAlive());
            assertThat(p.exitValue()).isZero();
            assertThat(out.readLine()).isNull();
        } finally {
            p.destroyForcibly();
        }
    }
}
