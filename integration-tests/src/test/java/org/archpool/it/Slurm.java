package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.archpool.testing.RequiredTool;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Assumptions;

/**
 * The Slurm cluster the tests of {@code --launcher slurm} run against: the one {@code scripts/slurm-local.sh}
 * starts ({@code .ci/run} does, with {@code SLURM_CONF} pointing at it), or any other that Slurm's client
 * commands reach. Missing on a developer's machine: the tests are skipped; missing with {@code CI=true}: they
 * fail.
 */
final class Slurm {

    /** The {@code @ResourceLock} of the test classes that use a Slurm cluster: one of them runs at a time. */
    static final String CLUSTERS = "archpool-slurm-clusters";

    private Slurm() {
    }

    /** Slurm's commands are installed and its controller answers with a node that takes jobs. */
    static void require() throws Exception {
        RequiredTool.require("srun", "squeue", "scancel", "sinfo", "sbatch");
        // a '*' after the state means the node does not respond (yet: a test before may have restarted slurmd);
        // down, drained and failed nodes take no jobs
        String[] state = {""};
        try {
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                    .until(() -> takesJobs(state[0] = run("sinfo", "--noheader", "--format=%T")));
        } catch (ConditionTimeoutException e) {
            unavailable("sinfo shows no node that takes jobs (it said '" + state[0].strip() + "'); start a cluster with"
                    + " scripts/slurm-local.sh start and export SLURM_CONF");
        }
    }

    private static boolean takesJobs(String sinfoStates) {
        return sinfoStates.lines().map(String::strip).anyMatch(s -> s.matches("idle|mixed|allocated|completing|planned"));
    }

    /** The folder of the one-node cluster of {@code scripts/slurm-local.sh}, whose daemons a test may stop. */
    static Path localCluster() {
        String conf = System.getenv("SLURM_CONF");
        Path dir = conf == null ? null : Path.of(conf).getParent();
        if (dir == null || !Files.isRegularFile(dir.resolve("slurmd.pid"))) {
            unavailable("this test stops and restarts slurmd, so it needs the cluster of scripts/slurm-local.sh"
                    + " (SLURM_CONF=" + conf + ")");
        }
        return dir;
    }

    private static void unavailable(String why) {
        if ("true".equals(System.getenv("CI"))) {
            fail(why + "; with CI=true, .ci/run must have started it");
        }
        Assumptions.abort(why);
    }

    /** Runs {@code scripts/slurm-local.sh ACTION}. */
    static void localCluster(String action) throws Exception {
        Path script = Archpool.repo().resolve("scripts/slurm-local.sh");
        Process p = new ProcessBuilder("bash", script.toString(), action).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("slurm-local.sh " + action + ": " + out).isZero();
    }

    /** Names and states of the jobs in the queue whose name is an archpool worker's. */
    static List<String> archpoolJobs() throws Exception {
        return Arrays.stream(run("squeue", "--noheader", "--format=%j %T").split("\n")).map(String::strip)
                .filter(l -> l.startsWith("archpool.")).toList();
    }

    /** Waits until Slurm's job {@code jobId} has left the queue. */
    static void awaitGone(String jobId, Duration within) {
        await().atMost(within).pollInterval(Duration.ofMillis(200))
                .until(() -> run("squeue", "--noheader", "--format=%i").lines().noneMatch(l -> l.strip().equals(jobId)));
    }

    /** Nothing of any archpool build stays in the queue (a finished job may take a moment to leave it). */
    static void assertQueueEmpty(Duration within) {
        await().atMost(within).pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> assertThat(archpoolJobs()).as("archpool jobs in squeue").isEmpty());
    }

    static String run(String... command) throws IOException, InterruptedException {
        return run(Map.of(), Duration.ofSeconds(30), command);
    }

    /** Runs a command with {@code env} added to the test's environment; its stdout and stderr. */
    static String run(Map<String, String> env, Duration within, String... command)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish in " + within.toSeconds() + " s");
        }
        return out;
    }
}
