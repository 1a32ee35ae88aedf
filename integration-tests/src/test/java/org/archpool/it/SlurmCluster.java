package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.archpool.testing.RequiredTool;
import org.junit.jupiter.api.Assumptions;

/**
 * The Slurm cluster of several nodes the tests of {@link SlurmClusterIT} run against: the one
 * {@code scripts/slurm-local.sh start --nodes N} makes in the folder {@code ARCHPOOL_TEST_SLURM_CLUSTER} names
 * ({@code scripts/test.sh} starts one of 3 nodes). Its nodes are namespaces of this machine, so a test can lose
 * one ({@code kill-node}) and bring it back ({@code start-node}). Missing on a developer's machine: the tests are
 * skipped; missing with {@code CI=true}: they fail.
 */
final class SlurmCluster {

    private final Path dir;

    private SlurmCluster(Path dir) {
        this.dir = dir;
    }

    /** The cluster, once every node takes jobs. */
    static SlurmCluster require() throws Exception {
        RequiredTool.require("srun", "squeue", "scancel", "sinfo", "sbatch", "ip", "nsenter");
        String folder = System.getenv("ARCHPOOL_TEST_SLURM_CLUSTER");
        if (folder == null || !Files.isRegularFile(Path.of(folder, "slurm.conf"))) {
            String why = "no cluster of several nodes: start one with ARCHPOOL_SLURM_DIR=DIR scripts/slurm-local.sh"
                    + " start --nodes 3 and export ARCHPOOL_TEST_SLURM_CLUSTER=DIR (it is '" + folder + "')";
            if ("true".equals(System.getenv("CI"))) {
                fail(why + "; with CI=true, .ci/run must have started it");
            }
            Assumptions.abort(why);
        }
        SlurmCluster cluster = new SlurmCluster(Path.of(folder));
        for (String node : cluster.nodes()) {
            cluster.awaitTakesJobs(node);
        }
        return cluster;
    }

    /** The {@code slurm.conf} clients of this cluster use. */
    Path conf() {
        return dir.resolve("slurm.conf");
    }

    /** The nodes, in order: node1, node2… */
    List<String> nodes() throws Exception {
        return run("sinfo", "--noheader", "--Node", "--format=%N").lines().map(String::strip)
                .filter(l -> !l.isEmpty()).distinct().sorted().toList();
    }

    /** The CPUs of one node (they all have the same). */
    int cpusPerNode() throws Exception {
        return Integer.parseInt(run("sinfo", "--noheader", "--Node", "--format=%c").lines().findFirst().orElseThrow()
                .strip());
    }

    /** Runs archpool with this cluster's Slurm. */
    Archpool archpool(Path dir) {
        return new Archpool().in(dir).env("SLURM_CONF", conf().toString());
    }

    /** Node names and states of the queue's archpool jobs: {@code archpool.TAG.w1 node2 RUNNING}. */
    List<String> archpoolJobs() throws Exception {
        return run("squeue", "--noheader", "--format=%j %N %T").lines().map(String::strip)
                .filter(l -> l.startsWith("archpool.")).toList();
    }

    /** The archpool steps of every job, with their nodes: {@code 12.3 archpool.TAG.w1 node2}. */
    List<String> archpoolSteps() throws Exception {
        return run("squeue", "--steps", "--noheader", "--format=%i %j %N").lines().map(String::strip)
                .filter(l -> l.contains(" archpool.")).toList();
    }

    /** Nothing of any archpool build stays in the queue, as job or step, within {@code within}. */
    void assertNothingLeft(Duration within) {
        await().atMost(within).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            assertThat(archpoolJobs()).as("archpool jobs in squeue").isEmpty();
            assertThat(archpoolSteps()).as("archpool steps in squeue").isEmpty();
        });
    }

    /** Node {@code node} is lost: its link goes down and everything in its namespace is killed. */
    void killNode(String node) throws Exception {
        script("kill-node", node);
    }

    /** Node {@code node} is back and takes jobs. */
    void startNode(String node) throws Exception {
        script("start-node", node);
        awaitTakesJobs(node);
    }

    /** Brings back every node that is not taking jobs (after a test that lost some). */
    void restoreAll() throws Exception {
        for (String node : nodes()) {
            if (!takesJobs(state(node))) {
                startNode(node);
            }
        }
    }

    String state(String node) throws Exception {
        return run("sinfo", "--noheader", "--Node", "--nodes=" + node, "--format=%T").lines().findFirst().orElse("")
                .strip();
    }

    private void awaitTakesJobs(String node) {
        await("node " + node + " takes jobs").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> takesJobs(state(node)));
    }

    /** A '*' after the state means the node does not respond; down, drained and failed nodes take no jobs. */
    private static boolean takesJobs(String state) {
        return state.matches("idle|mixed|allocated|completing|planned");
    }

    private void script(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash",
                Archpool.repo().resolve("scripts/slurm-local.sh").toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("ARCHPOOL_SLURM_DIR", dir.toString());
        pb.environment().put("SLURM_CONF", conf().toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(90, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("slurm-local.sh " + String.join(" ", args) + ": " + out).isZero();
    }

    /** Runs one of Slurm's commands against this cluster; its stdout and stderr. */
    String run(String... command) throws IOException, InterruptedException {
        // sbatch --wait lasts as long as its job
        return Slurm.run(Map.of("SLURM_CONF", conf().toString()), Duration.ofMinutes(3), command);
    }
}
