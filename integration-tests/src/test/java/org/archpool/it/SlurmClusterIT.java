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
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.StreamSupport;
import org.archpool.testing.MarkedProcesses;
import org.archpool.testing.RequiredTool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@code --launcher slurm} on a real Slurm cluster of several nodes ({@link SlurmCluster}: three nodes of two
 * CPUs, each in network and UTS namespaces of its own): workers spread over the nodes from a login shell and
 * inside an {@code sbatch -N3} allocation, a node lost in the middle of a build costs no job, every node lost ends
 * the jobs {@code crashed} with Slurm's words, Ctrl-C leaves no step on any node, and the cache is shared by
 * builds whose workers run on different nodes.
 */
// its time-outs (heartbeats, slurmd's) are tight: never beside the other cluster's tests
@ResourceLock(Slurm.CLUSTERS)
class SlurmClusterIT {

    @TempDir
    Path dir;

    private SlurmCluster cluster;

    /** A command job that notes the node it ran on in {@code hosts/ID}, then sleeps. */
    private static String hostJob(String id, String sleep) {
        return "{\"id\":\"" + id + "\",\"kind\":\"command\",\"argv\":[\"sh\",\"-c\",\"mkdir -p hosts && cat"
                + " /proc/sys/kernel/hostname > hosts/" + id + " && echo $SLURM_JOB_ID.$SLURM_STEP_ID >> hosts/" + id
                + " && sleep " + sleep + "\"]}";
    }

    private Path manifest(int jobs, String sleep) throws Exception {
        List<String> entries = new ArrayList<>();
        for (int i = 1; i <= jobs; i++) {
            entries.add(hostJob(String.format("j%02d", i), sleep));
        }
        return Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + String.join(",", entries) + "]}");
    }

    /** The node a job wrote it ran on. */
    private String hostOf(String job) throws Exception {
        return Files.readAllLines(dir.resolve("hosts").resolve(job)).get(0).strip();
    }

    private static Set<String> startedHosts(JsonNode report) {
        Set<String> hosts = new TreeSet<>();
        for (JsonNode e : report.path("pool").path("workerEvents")) {
            if (e.path("event").asText().equals("started")) {
                hosts.add(e.path("host").asText());
            }
        }
        return hosts;
    }

    private static JsonNode node(JsonNode report, String name) {
        return StreamSupport.stream(report.path("pool").path("nodes").spliterator(), false)
                .filter(n -> n.path("node").asText().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no node " + name + " in " + report.path("pool")));
    }

    @BeforeEach
    void clusterIsUp() throws Exception {
        cluster = SlurmCluster.require();
        assertThat(cluster.nodes()).hasSize(3);
        assertThat(cluster.cpusPerNode()).isEqualTo(2);
        cluster.assertNothingLeft(Duration.ofSeconds(30));
    }

    @AfterEach
    void nothingIsLeftAndEveryNodeIsBack() throws Exception {
        try {
            cluster.assertNothingLeft(Duration.ofSeconds(60));
        } finally {
            cluster.restoreAll();
        }
    }

    @Test
    void jobsSpreadOverEveryNodeFromALoginShell() throws Exception {
        manifest(24, "0.3");
        Path report = dir.resolve("r.json");
        Archpool.Run run = cluster.archpool(dir).run("build", "archpool.json", "--arch", "90", "-j6", "--launcher",
                "slurm", "--no-cache", "--report", report.toString());
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode r = ReportSchema.assertValid(report);
        assertThat(r.path("outcomes").path("succeeded").asInt()).isEqualTo(24);
        assertThat(startedHosts(r)).as("the nodes workers said hello from").containsExactly("node1", "node2", "node3");
        Set<String> ran = new TreeSet<>();
        for (int i = 1; i <= 24; i++) {
            ran.add(hostOf(String.format("j%02d", i)));
        }
        assertThat(ran).as("the nodes jobs ran on").containsExactly("node1", "node2", "node3");
        assertThat(r.path("pool").path("nodes").findValuesAsText("node")).containsExactlyInAnyOrder("node1", "node2",
                "node3");
        assertThat(r.path("pool").path("nodes").findValuesAsText("lost")).allMatch("false"::equals);
        cluster.assertNothingLeft(Duration.ofSeconds(15));
    }

    @Test
    void insideAnSbatchAllocationOfThreeNodesEachWorkerIsAStepOnItsNode() throws Exception {
        manifest(12, "0.3");
        String archpool = Archpool.home().resolve("bin/archpool") + " build " + dir.resolve("archpool.json")
                + " --arch 90 --launcher slurm --no-cache --report " + dir.resolve("r.json");
        String submitted = cluster.run("sbatch", "--wait", "--parsable", "--nodes=3",
                "--ntasks-per-node=2", "--job-name=archpool-it", "--chdir=" + dir,
                "--output=" + dir.resolve("out.txt"), "--wrap", archpool);
        String allocation = submitted.lines().reduce((a, b) -> b).orElseThrow().strip();
        assertThat(allocation).as(submitted + "\n" + read(dir.resolve("out.txt"))).matches("\\d+");
        JsonNode r = Archpool.json(dir.resolve("r.json"));
        assertThat(r.path("exitCode").asInt()).as(read(dir.resolve("out.txt"))).isZero();
        assertThat(r.path("pool").path("workers").asInt()).as("-j is the allocation's SLURM_NTASKS").isEqualTo(6);
        assertThat(startedHosts(r)).containsExactly("node1", "node2", "node3");
        Set<String> steps = new TreeSet<>();
        for (int i = 1; i <= 12; i++) {
            List<String> lines = Files.readAllLines(dir.resolve("hosts").resolve(String.format("j%02d", i)));
            assertThat(lines.get(1)).as("every worker a step of the allocation").startsWith(allocation + ".");
            steps.add(lines.get(1));
        }
        assertThat(steps.size()).as("the steps that ran jobs").isBetween(2, 6);
    }

    @Test
    void aLostNodesJobsAreRetriedOnTheOtherNodesAndTheReportNamesIt() throws Exception {
        manifest(6, "2");
        Path report = dir.resolve("r.json");
        // the user keeps workers off node1: both start on node2 (or one on node3); the lost node's retries then
        // go where neither the user's --exclude nor the lost node is
        List<String> command = List.of(Archpool.home().resolve("bin/archpool").toString(), "build", "archpool.json",
                "--arch", "90", "-j2", "--launcher", "slurm", "--no-cache", "--srun-arg=--exclude=node1", "--report",
                report.toString());
        Process coordinator = start(command);
        String lost;
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> cluster.archpoolJobs().stream()
                    .filter(j -> j.endsWith(" RUNNING")).count() == 2 && Files.isDirectory(dir.resolve("hosts")));
            lost = cluster.archpoolJobs().get(0).split(" ")[1];
            assertThat(lost).isIn("node2", "node3");
            cluster.killNode(lost);
            Exits.within(coordinator, Duration.ofMinutes(3), dir.resolve("err.txt"));
        } finally {
            coordinator.descendants().forEach(ProcessHandle::destroyForcibly);
            coordinator.destroyForcibly();
        }
        assertThat(coordinator.exitValue()).as(read(dir.resolve("err.txt"))).isZero();
        JsonNode r = ReportSchema.assertValid(report);
        assertThat(r.path("outcomes").path("succeeded").asInt()).isEqualTo(6);
        List<JsonNode> retried = StreamSupport.stream(r.path("jobs").spliterator(), false)
                .filter(j -> j.path("attempts").asInt() == 2).toList();
        assertThat(retried).as("the jobs that ran on the lost node").isNotEmpty();
        String other = lost.equals("node2") ? "node3" : "node2";
        for (JsonNode job : retried) {
            assertThat(hostOf(job.path("id").asText())).as("where its retry ran").isEqualTo(other);
        }
        assertThat(startedHosts(r)).as("no worker on the node the user excluded").doesNotContain("node1");
        JsonNode node = node(r, lost);
        assertThat(node.path("lost").asBoolean()).as(node.toString()).isTrue();
        assertThat(node.path("slurmState").asText()).as(node.toString()).contains("*");
        assertThat(node.path("avoided").asText()).as(node.toString()).contains("Slurm says it is");
        assertThat(node.path("workerDeaths").asInt()).isPositive();
        assertThat(read(dir.resolve("err.txt"))).contains("node " + lost + " is lost")
                .contains("nodes lost during the build: " + lost + " (Slurm says ");
        // the lost node's jobs end once Slurm has set it down (checked after each test)
    }

    @Test
    void aNodeWhereWorkersFailToStartTwiceInARowIsAvoidedForTheRestOfTheBuild() throws Exception {
        manifest(4, "0.2");
        // node3 lacks archpool's lib folder (it looks empty there, as on a node whose shared file system is
        // missing), and a job of another user holds node2's CPUs for now; the user keeps workers off node1
        Path empty = Files.createDirectories(dir.resolve("empty"));
        Path lib = Archpool.home().resolve("lib");
        String slurmd3 = Files.readString(cluster.conf().resolveSibling("slurmd.node3.pid")).strip();
        Slurm.run("nsenter", "--target", slurmd3, "--mount", "mount", "--bind", empty.toString(), lib.toString());
        String blocker = cluster.run("sbatch", "--parsable", "--nodelist=node2", "--ntasks=2", "--job-name=blocker",
                "--output=/dev/null", "--wrap", "sleep 300").strip();
        Process coordinator = null;
        try {
            assertThat(blocker).matches("\\d+");
            coordinator = start(List.of(Archpool.home().resolve("bin/archpool").toString(), "build", "archpool.json",
                    "--arch", "90", "-j2", "--launcher", "slurm", "--no-cache", "--srun-arg=--exclude=node1",
                    "--report", dir.resolve("r.json").toString()));
            await().atMost(Duration.ofSeconds(90)).until(() -> read(dir.resolve("err.txt"))
                    .contains("no more workers of this build start on node node3"));
            cluster.run("scancel", blocker);
            Exits.within(coordinator, Duration.ofMinutes(3), dir.resolve("err.txt"));
            assertThat(coordinator.exitValue()).as(read(dir.resolve("err.txt"))).isZero();
        } finally {
            cluster.run("scancel", blocker);
            Slurm.run("nsenter", "--target", slurmd3, "--mount", "umount", lib.toString());
            if (coordinator != null) {
                coordinator.descendants().forEach(ProcessHandle::destroyForcibly);
                coordinator.destroyForcibly();
            }
        }
        JsonNode r = ReportSchema.assertValid(dir.resolve("r.json"));
        assertThat(r.path("outcomes").path("succeeded").asInt()).isEqualTo(4);
        assertThat(startedHosts(r)).containsExactly("node2");
        JsonNode node3 = node(r, "node3");
        assertThat(node3.path("failedStarts").asInt()).as(node3.toString()).isGreaterThanOrEqualTo(2);
        assertThat(node3.path("workersStarted").asInt()).isZero();
        assertThat(node3.path("lost").asBoolean()).as("Slurm still has it").isFalse();
        assertThat(node3.path("avoided").asText()).as(node3.toString())
                .contains("2 worker starts in a row failed there").contains("node3: task 0: Exited");
        assertThat(r.path("pool").path("workerEvents").findValuesAsText("reason"))
                .anyMatch(reason -> reason.contains("Slurm said:") && reason.contains("node3"));
        assertThat(read(dir.resolve("err.txt"))).contains("no more workers were started on node3");
    }

    @Test
    void withEveryNodeLostTheJobsCrashWithSlurmsWordsAndNothingIsLeft() throws Exception {
        manifest(2, "60");
        Path report = dir.resolve("r.json");
        List<String> command = List.of(Archpool.home().resolve("bin/archpool").toString(), "build", "archpool.json",
                "--arch", "90", "-j2", "-k", "--launcher", "slurm", "--no-cache", "--retries", "1",
                "--heartbeat-timeout", "5s", "--worker-start-timeout", "10s", "--report", report.toString());
        Process coordinator = start(command);
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> cluster.archpoolJobs().stream()
                    .filter(j -> j.endsWith(" RUNNING")).count() == 2 && Files.isDirectory(dir.resolve("hosts")));
            for (String node : cluster.nodes()) {
                cluster.killNode(node);
            }
            Exits.within(coordinator, Duration.ofMinutes(3), dir.resolve("err.txt"));
        } finally {
            coordinator.descendants().forEach(ProcessHandle::destroyForcibly);
            coordinator.destroyForcibly();
        }
        assertThat(coordinator.exitValue()).as(read(dir.resolve("err.txt"))).isNotZero();
        JsonNode r = ReportSchema.assertValid(report);
        assertThat(r.path("jobs").findValuesAsText("outcome")).containsExactly("crashed", "crashed");
        for (JsonNode job : r.path("jobs")) {
            assertThat(job.path("message").asText()).as(job.toString()).contains("Slurm said:");
        }
        assertThat(r.path("pool").path("nodes").findValuesAsText("lost")).contains("true");
        cluster.assertNothingLeft(Duration.ofSeconds(60));
    }

    @Test
    void ctrlCDuringABuildAcrossNodesCancelsEveryJobAndLeavesNoStep() throws Exception {
        // the jobs' processes name the test's folder (a link to sleep there), so that the test can find them
        Path sleep = MarkedProcesses.markedSleep(dir, "sleep");
        int workers = 3 * cluster.cpusPerNode() + 1; // one more than the cluster has CPUs: its job waits
        StringBuilder jobs = new StringBuilder();
        for (int i = 1; i <= workers; i++) {
            jobs.append(i > 1 ? "," : "").append("{\"id\":\"long").append(i)
                    .append("\",\"kind\":\"command\",\"argv\":[\"sh\",\"-c\",\"").append(sleep).append(" 600 & wait\"]}");
        }
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + jobs + "]}");
        Process coordinator = start(List.of(Archpool.home().resolve("bin/archpool").toString(), "build",
                "archpool.json", "--arch", "90", "-j" + workers, "-k", "--launcher", "slurm", "--no-cache", "--report",
                dir.resolve("r.json").toString()));
        try {
            await().atMost(Duration.ofSeconds(90)).until(() -> MarkedProcesses.alive(sleep + " 600").stream()
                    .filter(p -> p.info().command().orElse("").endsWith("/sleep")).count() >= workers - 1);
            Set<String> running = new TreeSet<>();
            cluster.archpoolJobs().stream().filter(j -> j.endsWith(" RUNNING")).forEach(j -> running.add(j.split(" ")[1]));
            assertThat(running).as("nodes running the build's workers").containsExactly("node1", "node2", "node3");
            assertThat(cluster.archpoolJobs()).anyMatch(j -> j.endsWith("PENDING"));

            new ProcessBuilder("kill", "-INT", Long.toString(coordinator.pid())).start().waitFor();
            Exits.within(coordinator, Duration.ofSeconds(30), dir.resolve("err.txt"));
            assertThat(coordinator.exitValue()).as(read(dir.resolve("err.txt"))).isEqualTo(130);
            cluster.assertNothingLeft(Duration.ofSeconds(15));
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(MarkedProcesses.alive(sleep.toString())).isEmpty());
            JsonNode r = Archpool.json(dir.resolve("r.json"));
            assertThat(r.path("jobs").findValuesAsText("outcome")).hasSize(workers).allMatch("cancelled"::equals);
        } finally {
            coordinator.descendants().forEach(ProcessHandle::destroyForcibly);
            coordinator.destroyForcibly();
        }
    }

    @Test
    void aJobBuiltOnOneNodeIsACacheHitForABuildWhoseWorkerRunsOnAnother() throws Exception {
        RequiredTool.require("nvcc");
        Files.writeString(dir.resolve("k.cu"), "__global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }\n");
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[{\"id\":\"k\",\"kind\":\"command\",\"argv\":[\"nvcc\","
                + "\"-c\",\"{offload-arch-flags}\",\"k.cu\",\"-o\",\"k.o\"],\"inputs\":[\"k.cu\"],"
                + "\"artifacts\":[\"k.o\"]}]}");
        Path cache = dir.resolve("shared-cache");
        JsonNode first = cachedBuild(cache, "node1", "first.json");
        assertThat(first.path("jobs").get(0).path("cache").asText()).isEqualTo("stored");
        assertThat(startedHosts(first)).containsExactly("node1");
        byte[] built = Files.readAllBytes(dir.resolve("k.o"));
        Files.delete(dir.resolve("k.o"));

        // the second build also has a job to run, so that it starts a worker (a build of hits alone starts none)
        Archpool.manifest(dir, Files.readString(dir.resolve("archpool.json")).replace("]}]}", "]},"
                + hostJob("elsewhere", "0") + "]}"));
        JsonNode second = cachedBuild(cache, "node3", "second.json");
        assertThat(startedHosts(second)).as("the second build's worker").containsExactly("node3");
        assertThat(hostOf("elsewhere")).isEqualTo("node3");
        JsonNode k = second.path("jobs").get(0);
        assertThat(k.path("cache").asText()).as(k.toString()).isEqualTo("hit");
        assertThat(k.path("artifacts").toString()).contains("sm_90");
        assertThat(Files.readAllBytes(dir.resolve("k.o"))).isEqualTo(built);
    }

    private JsonNode cachedBuild(Path cache, String node, String report) throws Exception {
        Archpool.Run run = cluster.archpool(dir).run("build", "archpool.json", "--platform", "cuda", "--arch", "90",
                "-j1", "--launcher", "slurm", "--srun-arg=--nodelist=" + node, "--cache", cache.toString(),
                "--report", dir.resolve(report).toString());
        assertThat(run.exitCode()).as(run.toString()).isZero();
        return Archpool.json(dir.resolve(report));
    }

    /** Starts archpool in the test's folder against the cluster, its output in {@code out.txt} and {@code err.txt}. */
    private Process start(List<String> command) throws Exception {
        ProcessBuilder pb = Archpool.process(command).directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile());
        pb.environment().put("SLURM_CONF", cluster.conf().toString());
        return pb.start();
    }

    private static String read(Path file) throws Exception {
        return Files.isRegularFile(file) ? Files.readString(file) : "(no " + file.getFileName() + ")";
    }
}
