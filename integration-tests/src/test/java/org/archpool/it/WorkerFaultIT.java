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
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.archpool.testing.MarkedProcesses;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Workers that die, hang or get recycled, and a coordinator that is interrupted or killed: every job keeps
 * exactly one outcome and no process is left behind. The jobs ask for the fault, which a {@link FaultAgent}
 * plays on their worker from outside (a job cannot see its worker from its PID namespace); a marker file
 * makes the fault happen on the first attempt only.
 */
// it asserts how long a hung worker takes to be found and a Ctrl-C to end the build: never beside a compile
@Isolated
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
                + commandJob("victim", "[ -f died ] || { touch died; " + FaultAgent.ask(dir, "victim", "KILL")
                        + "; sleep 5; }; echo second try")
                + "," + commandJob("bystander", "echo fine") + "]}");
        Path report = dir.resolve("r.json");
        Archpool.Run run;
        try (FaultAgent agent = new FaultAgent(dir)) {
            run = new Archpool().in(dir).run("build", "archpool.json", "--arch", "90", "-j1",
                    "--report", report.toString());
        }
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
                + commandJob("freezer", "[ -f froze ] || { touch froze; " + FaultAgent.ask(dir, "freezer", "STOP")
                        + "; sleep 30; }; echo ok")
                + "]}");
        Path report = dir.resolve("r.json");
        long start = System.nanoTime();
        Archpool.Run run;
        long frozen;
        try (FaultAgent agent = new FaultAgent(dir)) {
            run = new Archpool().in(dir).run("build", "archpool.json", "--arch", "90", "-j1",
                    "--heartbeat-timeout", "2s", "--report", report.toString());
            frozen = agent.signalled().get("fault-freezer.STOP");
        }
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(25));
        JsonNode freezer = job(Archpool.json(report), "freezer");
        assertThat(freezer.path("attempts").asInt()).isEqualTo(2);
        assertThat(freezer.path("attemptFailures").get(0).asText()).contains("hung").contains("no heartbeat");
        await().atMost(Duration.ofSeconds(5)).until(() -> ProcessHandle.of(frozen).map(p -> !p.isAlive()).orElse(true));
    }

    @Test
    void workersAreRecycledAfterTheirQuota(@TempDir Path dir) throws Exception {
        StringBuilder jobs = new StringBuilder();
        for (int i = 1; i <= 5; i++) {
            jobs.append(i > 1 ? "," : "").append(commandJob("j" + i, FaultAgent.ask(dir, "j" + i, "0")));
        }
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + jobs + "]}");
        Path report = dir.resolve("r.json");
        Archpool.Run run;
        Map<String, Long> workers;
        try (FaultAgent agent = new FaultAgent(dir)) {
            run = new Archpool().in(dir).run("build", "archpool.json", "--arch", "90", "-j1",
                    "--max-jobs-per-worker", "2", "--report", report.toString());
            workers = agent.signalled();
        }
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode r = Archpool.json(report);
        assertThat(r.path("jobs").findValuesAsText("worker")).containsExactly("w1", "w1", "w1.2", "w1.2", "w1.3");
        assertThat(workers).hasSize(5);
        assertThat(workers.values().stream().distinct().count()).isEqualTo(3);
        assertThat(r.path("pool").path("workerEvents").findValuesAsText("event"))
                .containsExactly("started", "recycled", "started", "recycled", "started");
    }

    /**
     * A build of two jobs that sleep under their workers and two more queued behind them. Every process of the
     * jobs names the test's folder (a link to {@code sleep} there), so that {@link #assertAllGone} finds them.
     */
    private static Process startLongBuild(Path dir) throws Exception {
        Path sleep = MarkedProcesses.markedSleep(dir, "sleep");
        StringBuilder jobs = new StringBuilder();
        for (int i = 1; i <= 4; i++) {
            jobs.append(i > 1 ? "," : "").append(commandJob("long" + i,
                    sleep + " 600 & sh -c '" + sleep + " 600' & wait"));
        }
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + jobs + "]}");
        List<String> command = new ArrayList<>(List.of(Archpool.home().resolve("bin/archpool").toString(), "build",
                "archpool.json", "--arch", "90", "-j2", "-k", "--report", dir.resolve("r.json").toString()));
        Process p = Archpool.process(command).directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile()).start();
        await().atMost(Duration.ofSeconds(30)).until(() -> sleeps(dir).size() >= 4);
        return p;
    }

    /** The jobs' sleeps that run. */
    private static List<ProcessHandle> sleeps(Path dir) {
        return MarkedProcesses.alive(dir.resolve("sleep") + " 600").stream()
                .filter(p -> p.info().command().orElse("").endsWith("/sleep"))
                .toList();
    }

    /** No process of the jobs, and none of their workers (found above the jobs' sleeps), is left. */
    private static void assertAllGone(Path dir, List<ProcessHandle> workers) {
        assertThat(workers).hasSize(2);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(MarkedProcesses.alive(dir.toString())).isEmpty();
            assertThat(workers).noneMatch(ProcessHandle::isAlive);
        });
    }

    private static List<ProcessHandle> workers(Path dir) {
        return sleeps(dir).stream().map(FaultAgent::workerAbove).flatMap(Optional::stream).distinct()
                .toList();
    }

    @Test
    void ctrlCCancelsEverythingWritesTheReportAndExits130(@TempDir Path dir) throws Exception {
        Process coordinator = startLongBuild(dir);
        List<ProcessHandle> workers = workers(dir);
        long start = System.nanoTime();
        new ProcessBuilder("kill", "-INT", Long.toString(coordinator.pid())).start().waitFor();
        Exits.within(coordinator, Duration.ofSeconds(10), dir.resolve("err.txt"));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(coordinator.exitValue()).isEqualTo(130);
        JsonNode r = Archpool.json(dir.resolve("r.json"));
        assertThat(r.path("exitCode").asInt()).isEqualTo(130);
        assertThat(r.path("jobs")).hasSize(4);
        assertThat(r.path("jobs").findValuesAsText("outcome")).containsOnly("cancelled");
        assertThat(r.path("jobs").findValuesAsText("message")).allMatch(m -> m.contains("interrupted"));
        assertThat(Files.readString(dir.resolve("err.txt"))).contains("interrupted").doesNotContain("Exception");
        assertAllGone(dir, workers);
    }

    @Test
    void sigtermDoesTheSame(@TempDir Path dir) throws Exception {
        Process coordinator = startLongBuild(dir);
        List<ProcessHandle> workers = workers(dir);
        coordinator.destroy();
        Exits.within(coordinator, Duration.ofSeconds(10), dir.resolve("err.txt"));
        assertThat(coordinator.exitValue()).isEqualTo(130);
        assertThat(Archpool.json(dir.resolve("r.json")).path("jobs").findValuesAsText("outcome")).containsOnly("cancelled");
        assertAllGone(dir, workers);
    }

    @Test
    void aCoordinatorKilledWithSigkillLeavesNoWorkerNorCompiler(@TempDir Path dir) throws Exception {
        Process coordinator = startLongBuild(dir);
        List<ProcessHandle> workers = workers(dir);
        coordinator.destroyForcibly();
        assertThat(coordinator.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertAllGone(dir, workers);
    }
}
