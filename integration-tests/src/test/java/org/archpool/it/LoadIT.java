package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 2,000 command jobs at -j8 while about 2% of them kill their worker: every job has exactly one outcome,
 * all succeed after retries, and afterwards no process of the build remains.
 */
class LoadIT {

    private static final int JOBS = 2000;
    private static final int KILL_EVERY = 50;

    @Test
    void everyJobSucceedsWhileWorkersAreKilled(@TempDir Path dir) throws Exception {
        StringBuilder jobs = new StringBuilder();
        for (int i = 0; i < JOBS; i++) {
            // a job cannot see its worker from its PID namespace: it asks the fault agent to kill it, and every
            // 50th other job to record it, so that the test can check at the end that no worker is left
            String script = i % KILL_EVERY == 7
                    ? "[ -f m" + i + " ] || { touch m" + i + "; " + FaultAgent.ask(dir, "job-" + i, "KILL") + "; sleep 5; }"
                    : i % KILL_EVERY == 20 ? FaultAgent.ask(dir, "job-" + i, "0") : "true";
            jobs.append(i > 0 ? "," : "").append("{\"id\":\"job-").append(i)
                    .append("\",\"kind\":\"command\",\"argv\":[\"sh\",\"-c\",\"").append(script).append("\"]}");
        }
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + jobs + "]}");
        Path report = dir.resolve("r.json");

        Archpool.Run run;
        List<Long> pids;
        try (FaultAgent agent = new FaultAgent(dir)) {
            run = new Archpool().in(dir).run("build", "archpool.json", "--arch", "90", "-j8", "-k",
                    "--retries", "2", "--report", report.toString());
            pids = List.copyOf(agent.signalled().values());
        }

        assertThat(run.exitCode()).as(run.stderr()).isZero();
        JsonNode r = Archpool.json(report);
        JsonNode all = r.path("jobs");
        assertThat(all).hasSize(JOBS);
        Set<String> ids = new HashSet<>(all.findValuesAsText("id"));
        assertThat(ids).hasSize(JOBS);
        assertThat(all.findValuesAsText("outcome")).containsOnly("succeeded");
        List<String> retried = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (JsonNode j : all) {
            if (j.path("attempts").asInt() > 1) {
                retried.add(j.path("id").asText() + " " + j.path("attemptFailures"));
            }
            if (Integer.parseInt(j.path("id").asText().substring(4)) % KILL_EVERY == 7) {
                expected.add(j.path("id").asText());
            }
        }
        assertThat(retried).hasSize(JOBS / KILL_EVERY)
                .allSatisfy(line -> assertThat(expected).contains(line.substring(0, line.indexOf(' '))));
        assertThat(r.path("pool").path("workerEvents").findValuesAsText("event").stream()
                .filter(e -> e.equals("died")).count()).isEqualTo(JOBS / KILL_EVERY);

        assertThat(pids).hasSize(2 * JOBS / KILL_EVERY);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(pids.stream().distinct()
                .filter(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))).isEmpty());
        assertThat(ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("").contains(dir.toString())))
                .isEmpty();
    }
}
