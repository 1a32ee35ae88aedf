package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Workers that die, hang or get recycled, and a coordinator that is interrupted or killed: every job keeps
 * exactly one outcome and no process is left behind. The jobs themselves play the fault (a job can reach its
 * worker as {@code $PPID}); a marker file makes the fault happen on the first attempt only.
 */
class WorkerFaultIT {

    private static String commandJob(String id, String script) {
        return "{\"id\":\"" + id + "\",\"kind\":\"command\",\"argv\":[\"sh\",\"-c\",\"" + script + "\"]}";
    }

    private static JsonNode job(JsonNode report, String id) {
        for (JsonNode j : report.path("jobs")) {
            if (j.path("id").asText().equals(id)) {
                return j;
            }
        }
        throw new AssertionError("no job " + id);
    }

    @Test
    void aWorkerThatDiesMidJobIsReplacedAndTheJobRetried(@TempDir Path dir) throws Exception {
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":["
                + commandJob("victim", "[ -f died ] || { touch died; kill -9 $PPID; sleep 5; }; echo second try")
                + "," + commandJob("bystander", "echo fine") + "]}");
        Path report = dir.resolve("r.json");
        Archpool.Run run = new Archpool().in(dir).run("build", "archpool.json", "--arch", "90", "-j1",
                "--report", report.toString());
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode r = Archpool.json(report);
        JsonNode victim = job(r, "victim");
        assertThat(victim.path("outcome").asText()).isEqualTo("succeeded");
        assertThat(victim.path("attempts").asInt()).isEqualTo(2);
        assertThat(victim.path("worker").asText()).isEqualTo("w1.2");
        assertThat(victim.path("attemptFailures").get(0).asText()).contains("w1").contains("status 137");
        assertThat(r.path("pool").path("workerEvents").findValuesAsText("event"))
                .containsExactly("started", "died", "started");
        assertThat(job(r, "bystander").path("attempts").asInt()).isEqualTo(1);
    }

    @Test
    void aHungWorkerIsDetectedByItsMissingHeartbeat(@TempDir Path dir) throws Exception {
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":["
                + commandJob("freezer", "[ -f froze ] || { touch froze; echo $PPID > frozen.pid; kill -STOP $PPID; sleep 30; }; echo ok")
                + "]}");
        Path report = dir.resolve("r.json");
        long start = System.nanoTime();
        Archpool.Run run = new Archpool().in(dir).run("build", "archpool.json", "--arch", "90", "-j1",
                "--heartbeat-timeout", "2s", "--report", report.toString());
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(25));
        JsonNode freezer = job(Archpool.json(report), "freezer");
        assertThat(freezer.path("attempts").asInt()).isEqualTo(2);
        assertThat(freezer.path("attemptFailures").get(0).asText()).contains("hung").contains("no heartbeat");
        long frozen = Long.parseLong(Files.readString(dir.resolve("frozen.pid")).strip());
        await().atMost(Duration.ofSeconds(5)).until(() -> ProcessHandle.of(frozen).map(p -> !p.isAlive()).orElse(true));
    }

    @Test
    void workersAreRecycledAfterTheirQuota(@TempDir Path dir) throws Exception {
        StringBuilder jobs = new StringBuilder();
        for (int i = 1; i <= 5; i++) {
            jobs.append(i > 1 ? "," : "").append(commandJob("j" + i, "echo $PPID >> workers.txt"));
        }
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + jobs + "]}");
        Path report = dir.resolve("r.json");
        Archpool.Run run = new Archpool().in(dir).run("build", "archpool.json", "--arch", "90", "-j1",
                "--max-jobs-per-worker", "2", "--report", report.toString());
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode r = Archpool.json(report);
        assertThat(r.path("jobs").findValuesAsText("worker")).containsExactly("w1", "w1", "w1.2", "w1.2", "w1.3");
        assertThat(Files.readAllLines(dir.resolve("workers.txt")).stream().distinct().count()).isEqualTo(3);
        assertThat(r.path("pool").path("workerEvents").findValuesAsText("event"))
                .containsExactly("started", "recycled", "started", "recycled", "started");
    }

    /** A build of two jobs that sleep under their workers (PIDs recorded) and two more queued behind them. */
    private static Process startLongBuild(Path dir) throws Exception {
        StringBuilder jobs = new StringBuilder();
        for (int i = 1; i <= 4; i++) {
            jobs.append(i > 1 ? "," : "").append(commandJob("long" + i,
                    "echo $PPID >> pids.txt; sleep 600 & echo $! >> pids.txt; sh -c 'sleep 600' & echo $! >> pids.txt; wait"));
        }
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + jobs + "]}");
        List<String> command = new ArrayList<>(List.of(Archpool.home().resolve("bin/archpool").toString(), "build",
                "archpool.json", "--arch", "90", "-j2", "-k", "--report", dir.resolve("r.json").toString()));
        Process p = new ProcessBuilder(command).directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile()).start();
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(dir.resolve("pids.txt"))
                && Files.readAllLines(dir.resolve("pids.txt")).size() >= 6);
        return p;
    }

    private static void assertAllGone(Path dir) throws Exception {
        List<Long> pids = Files.readAllLines(dir.resolve("pids.txt")).stream().map(String::strip).map(Long::parseLong)
                .toList();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(pids)
                .allMatch(pid -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true)));
    }

    @Test
    void ctrlCCancelsEverythingWritesTheReportAndExits130(@TempDir Path dir) throws Exception {
        Process coordinator = startLongBuild(dir);
        long start = System.nanoTime();
        new ProcessBuilder("kill", "-INT", Long.toString(coordinator.pid())).start().waitFor();
        assertThat(coordinator.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(coordinator.exitValue()).isEqualTo(130);
        JsonNode r = Archpool.json(dir.resolve("r.json"));
        assertThat(r.path("exitCode").asInt()).isEqualTo(130);
        assertThat(r.path("jobs")).hasSize(4);
        assertThat(r.path("jobs").findValuesAsText("outcome")).containsOnly("cancelled");
        assertThat(r.path("jobs").findValuesAsText("message")).allMatch(m -> m.contains("interrupted"));
        assertThat(Files.readString(dir.resolve("err.txt"))).contains("interrupted").doesNotContain("Exception");
        assertAllGone(dir);
    }

    @Test
    void sigtermDoesTheSame(@TempDir Path dir) throws Exception {
        Process coordinator = startLongBuild(dir);
        coordinator.destroy();
        assertThat(coordinator.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(coordinator.exitValue()).isEqualTo(130);
        assertThat(Archpool.json(dir.resolve("r.json")).path("jobs").findValuesAsText("outcome")).containsOnly("cancelled");
        assertAllGone(dir);
    }

    @Test
    void aCoordinatorKilledWithSigkillLeavesNoWorkerNorCompiler(@TempDir Path dir) throws Exception {
        Process coordinator = startLongBuild(dir);
        coordinator.destroyForcibly();
        assertThat(coordinator.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertAllGone(dir);
    }
}
