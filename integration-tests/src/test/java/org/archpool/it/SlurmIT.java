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
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.archpool.testing.MarkedProcesses;
import org.archpool.testing.RequiredTool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@code --launcher slurm} against a real Slurm (slurmctld, slurmd, munge): every worker is a job step, the
 * protocol goes through {@code srun}, Slurm's faults end like local crashes with Slurm's words in the
 * diagnostic, and nothing of a build stays in {@code squeue}, also after Ctrl-C.
 */
// its time-outs (heartbeats, slurmd's) are tight: never beside the other cluster's tests
@ResourceLock(Slurm.CLUSTERS)
class SlurmIT {

    private static String commandJob(String id, String script) {
        return "{\"id\":\"" + id + "\",\"kind\":\"command\",\"argv\":[\"sh\",\"-c\",\"" + script + "\"]}";
    }

    /** The variables of a worker JVM that show where it ran. */
    private static final String PLACE_VARIABLES =
            "^(SLURM_JOB_ID|SLURM_STEP_ID|CUDA_VISIBLE_DEVICES|ROCR_VISIBLE_DEVICES|HIP_VISIBLE_DEVICES)=";

    /**
     * A job's shell command that writes its worker JVM's place (those variables, sorted, space-separated) to
     * stdout: the job runs in a PID namespace of its own and cannot see its worker, so a {@link FaultAgent}
     * running in the test reads the worker's environment for it.
     */
    private static String workerPlace(Path dir, String id) {
        return FaultAgent.ask(dir, id, "0") + "; tr '\\\\0' '\\\\n' < "
                + dir.toAbsolutePath().resolve("fault-" + id + ".0.environ") + " | grep -E '" + PLACE_VARIABLES + "'"
                + " | sort | tr '\\\\n' ' '";
    }

    /** The place (as {@link #workerPlace} writes it) in a worker environment the agent kept. */
    private static String place(Path environ) throws IOException {
        return Arrays.stream(Files.readString(environ).split("\0")).filter(v -> v.matches(PLACE_VARIABLES + ".*"))
                .sorted().map(v -> v + " ").collect(Collectors.joining());
    }

    private static JsonNode job(JsonNode report, String id) {
        for (JsonNode j : report.path("jobs")) {
            if (j.path("id").asText().equals(id)) {
                return j;
            }
        }
        throw new AssertionError("no job " + id);
    }

    @BeforeEach
    void slurmIsUp() throws Exception {
        Slurm.require();
        Slurm.assertQueueEmpty(Duration.ofSeconds(10));
    }

    @AfterEach
    void nothingStaysInTheQueue() {
        Slurm.assertQueueEmpty(Duration.ofSeconds(10));
    }

    @Test
    void theQuickstartBuildsWithEveryWorkerAsASlurmStep(@TempDir Path dir) throws Exception {
        RequiredTool.require("cmake", "ninja", "nvcc");
        Path project = Archpool.copyTree(Archpool.repo().resolve("examples/quickstart"), dir.resolve("quickstart"));
        // cmake, as the workers find it on the PATH, first asks the agent to note the worker JVM that ran it
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path realCmake = Path.of(Slurm.run("sh", "-c", "command -v cmake").strip());
        Path wrapper = bin.resolve("cmake");
        Files.writeString(wrapper, "#!/bin/sh\nn=$(mktemp -u XXXXXXXX | tr -dc A-Za-z0-9)\nsh -c \""
                + FaultAgent.ask(dir, "cmake-$n", "0") + "\"\nexec " + realCmake + " \"$@\"\n");
        Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwxr-xr-x"));

        Path report = dir.resolve("report.json");
        Archpool.Run run;
        Map<Long, String> places = new HashMap<>();
        try (FaultAgent agent = new FaultAgent(dir)) {
            run = new Archpool().in(project).env("PATH", bin + File.pathSeparator + System.getenv("PATH"))
                    .env("CUDA_VISIBLE_DEVICES", "0").run("build", "archpool.json", "--platform", "cuda", "--arch",
                            "90", "-j2", "--launcher", "slurm", "--report", report.toString());
            for (Map.Entry<String, Long> asked : agent.signalled().entrySet()) {
                places.put(asked.getValue(), place(dir.resolve(asked.getKey() + ".environ")));
            }
        }
        assertThat(run.exitCode()).as(run.toString()).isZero();

        JsonNode r = Archpool.json(report);
        assertThat(r.path("outcomes").path("succeeded").asInt()).isEqualTo(6);
        assertThat(r.path("pool").path("launcher").asText()).isEqualTo("slurm");
        assertThat(r.path("pool").path("workerEvents").findValuesAsText("event")).containsExactly("started", "started");
        // the node's name as Slurm knows it (localhost in the cluster of scripts/slurm-local.sh), not its host name
        String node = Slurm.run("sinfo", "--noheader", "--Node", "--format=%N").lines().findFirst().orElseThrow().strip();
        assertThat(r.path("pool").path("workerEvents").findValuesAsText("host")).as("the node each worker ran on")
                .containsExactly(node, node);
        assertThat(places).as("the worker JVMs that ran cmake").hasSize(2);
        assertThat(places.values()).allSatisfy(place -> assertThat(place)
                .containsPattern("SLURM_JOB_ID=\\d+ ").containsPattern("SLURM_STEP_ID=\\d+")
                .contains("CUDA_VISIBLE_DEVICES= ", "ROCR_VISIBLE_DEVICES= ", "HIP_VISIBLE_DEVICES= "));
        assertThat(places.values().stream().distinct()).as("each worker its own Slurm job").hasSize(2);
        for (JsonNode j : r.path("jobs")) {
            assertThat(j.path("artifacts").toString()).as(j.path("id").asText()).contains("\"sm_90\"");
        }
        Path workers = dir.resolve("quickstart/.archpool/logs/workers");
        assertThat(workers.resolve("w1.srun.log")).exists();
        assertThat(workers.resolve("w1.stderr.log")).exists();
    }

    @Test
    void eachNodeStartsItsWorkerWithTheDevicesMaskedWhereItCan(@TempDir Path dir) throws Exception {
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + commandJob("m",
                "echo NVIDIA_VISIBLE_DEVICES=$NVIDIA_VISIBLE_DEVICES > m.env") + "]}");
        for (String isolation : List.of("on", "auto")) {
            Path report = dir.resolve(isolation + ".json");
            Archpool.Run run = new Archpool().in(dir).run("build", "archpool.json", "--arch", "90", "-j1",
                    "--launcher", "slurm", "--isolate-devices", isolation, "--report", report.toString());
            assertThat(run.exitCode()).as(run.toString()).isZero();
            assertThat(Archpool.json(report).path("pool").path("deviceIsolation").asText())
                    .as("namespace is claimed only where every worker must have it")
                    .isEqualTo(isolation.equals("on") ? "namespace" : "environment");
            assertThat(Files.readString(dir.resolve("m.env")).strip()).isEqualTo("NVIDIA_VISIBLE_DEVICES=void");
            assertThat(Files.readString(dir.resolve(".archpool/logs/workers/w1.stderr.log")))
                    .as("this node allows the namespace").doesNotContain("archpool: note:");
        }
    }

    @Test
    void inAnAllocationEveryWorkerIsAStepOfIt(@TempDir Path dir) throws Exception {
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + commandJob("a", workerPlace(dir, "a") + " > a.place; sleep 1")
                + "," + commandJob("b", workerPlace(dir, "b") + " > b.place; sleep 1") + "]}");
        // the documented way: archpool inside an sbatch job, -j from its --ntasks
        String archpool = Archpool.home().resolve("bin/archpool") + " build " + dir.resolve("archpool.json")
                + " --arch 90 --launcher slurm --report " + dir.resolve("r.json");
        Process sbatch;
        String submitted;
        try (FaultAgent agent = new FaultAgent(dir)) {
            sbatch = Archpool.process(List.of("sbatch", "--wait", "--parsable", "--ntasks=2", "--job-name=archpool-it",
                    "--output=" + dir.resolve("out.txt"), "--wrap", archpool)).directory(dir.toFile())
                    .redirectErrorStream(true).start();
            submitted = new String(sbatch.getInputStream().readAllBytes()).strip();
            assertThat(sbatch.waitFor(3, TimeUnit.MINUTES)).isTrue();
        }
        assertThat(sbatch.exitValue()).as(submitted + "\n" + Files.readString(dir.resolve("out.txt"))).isZero();
        String allocation = submitted.lines().reduce((a, b) -> b).orElseThrow().strip();
        Slurm.awaitGone(allocation, Duration.ofSeconds(30));

        JsonNode r = Archpool.json(dir.resolve("r.json"));
        assertThat(r.path("pool").path("workers").asInt()).as("-j is the allocation's SLURM_NTASKS").isEqualTo(2);
        String a = Files.readString(dir.resolve("a.place"));
        String b = Files.readString(dir.resolve("b.place"));
        assertThat(List.of(a, b)).allSatisfy(place -> assertThat(place).contains("SLURM_JOB_ID=" + allocation + " ")
                .containsPattern("SLURM_STEP_ID=\\d+").contains("CUDA_VISIBLE_DEVICES= "));
        assertThat(a).as("two workers, two steps").isNotEqualTo(b);
    }

    @Test
    void aWorkerThatSlurmGivesAGpuStillSeesNone(@TempDir Path dir) throws Exception {
        // the test cluster's node has one pretend GPU; a step given it gets CUDA_VISIBLE_DEVICES and
        // ROCR_VISIBLE_DEVICES from Slurm, after srun's environment, as on a real GPU node
        String record = FaultAgent.ask(dir, "record", "0") + "; tr '\\\\0' '\\\\n' < "
                + dir.toAbsolutePath().resolve("fault-record.0.environ")
                + " | grep -E '^(SLURM_STEP_GPUS|CUDA_VISIBLE_DEVICES|ROCR_VISIBLE_DEVICES|HIP_VISIBLE_DEVICES)=' > worker.env;"
                + " env | grep -E '_VISIBLE_DEVICES=' > job.env";
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + commandJob("record", record) + "]}");
        Archpool.Run run;
        try (FaultAgent agent = new FaultAgent(dir)) {
            run = new Archpool().in(dir).run("build", "archpool.json", "--arch", "90", "-j1",
                    "--launcher", "slurm", "--srun-arg=--gres=gpu:1");
        }
        assertThat(run.exitCode()).as(run.toString()).isZero();
        List<String> worker = Files.readAllLines(dir.resolve("worker.env"));
        assertThat(worker).as("Slurm gave the worker's step the GPU").contains("SLURM_STEP_GPUS=0");
        assertThat(worker).as("and the worker JVM still sees none").contains("CUDA_VISIBLE_DEVICES=",
                "ROCR_VISIBLE_DEVICES=", "HIP_VISIBLE_DEVICES=");
        assertThat(Files.readAllLines(dir.resolve("job.env"))).containsExactlyInAnyOrder("CUDA_VISIBLE_DEVICES=",
                "ROCR_VISIBLE_DEVICES=", "HIP_VISIBLE_DEVICES=", "NVIDIA_VISIBLE_DEVICES=void");
    }

    @Test
    void aCancelledStepEndsLikeACrashAndTheJobIsRetried(@TempDir Path dir) throws Exception {
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + commandJob("victim",
                "[ -f cancelled ] || { touch cancelled; scancel $SLURM_JOB_ID; sleep 30; }; echo second try") + "]}");
        Path report = dir.resolve("r.json");
        Archpool.Run run = new Archpool().in(dir).run("build", "archpool.json", "--arch", "90", "-j1",
                "--launcher", "slurm", "--report", report.toString());
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode victim = job(Archpool.json(report), "victim");
        assertThat(victim.path("outcome").asText()).isEqualTo("succeeded");
        assertThat(victim.path("attempts").asInt()).isEqualTo(2);
        assertThat(victim.path("attemptFailures").get(0).asText()).contains("w1").contains("Slurm said:")
                .contains("CANCELLED");
        assertThat(Archpool.json(report).path("pool").path("workerEvents").findValuesAsText("event"))
                .containsExactly("started", "died", "started");
    }

    @Test
    void aHungWorkerIsCancelledThroughSlurmAndReplaced(@TempDir Path dir) throws Exception {
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + commandJob("freezer",
                "[ -f froze ] || { touch froze; " + FaultAgent.ask(dir, "freezer", "STOP") + "; sleep 30; }; echo ok")
                + "]}");
        Path report = dir.resolve("r.json");
        Archpool.Run run;
        long frozen;
        try (FaultAgent agent = new FaultAgent(dir)) {
            run = new Archpool().in(dir).run("build", "archpool.json", "--arch", "90", "-j1",
                    "--launcher", "slurm", "--heartbeat-timeout", "2s", "--report", report.toString());
            frozen = agent.signalled().get("fault-freezer.STOP");
        }
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode freezer = job(Archpool.json(report), "freezer");
        assertThat(freezer.path("attempts").asInt()).isEqualTo(2);
        assertThat(freezer.path("attemptFailures").get(0).asText()).contains("no heartbeat");
        await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.of(frozen).map(p -> !p.isAlive()).orElse(true));
    }

    /**
     * A build whose every worker start fails: the job crashes after its retries; the first failure gives
     * Slurm's words, and the job's message what Slurm said of the last.
     */
    private static void assertStartsFailWith(Path dir, String slurmSays, String... extra) throws Exception {
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + commandJob("one", "echo never") + "]}");
        Path report = dir.resolve("r.json");
        List<String> args = new ArrayList<>(List.of("build", "archpool.json", "--arch", "90", "-j1", "--retries", "1",
                "--launcher", "slurm", "--report", report.toString()));
        Archpool archpool = new Archpool().in(dir);
        for (int i = 0; i < extra.length; i++) {
            if (extra[i].equals("--env")) {
                archpool.env(extra[i + 1], extra[i + 2]);
                i += 2;
            } else {
                args.add(extra[i]);
            }
        }
        Archpool.Run run = archpool.run(args.toArray(String[]::new));
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(70); // no worker could start
        JsonNode one = job(Archpool.json(report), "one");
        assertThat(one.path("outcome").asText()).isEqualTo("crashed");
        assertThat(one.path("message").asText()).contains("Slurm said:");
        assertThat(one.path("attemptFailures")).hasSize(2);
        assertThat(one.path("attemptFailures").get(0).asText()).contains("Slurm said:");
        JsonNode events = Archpool.json(report).path("pool").path("workerEvents");
        assertThat(events.findValuesAsText("cause")).isNotEmpty().allMatch("start"::equals);
        // the first start's failure; one that Slurm ties to a node is tried again at once, as the slot's next worker
        assertThat(events.get(0).path("reason").asText()).contains("Slurm said:").contains(slurmSays);
        assertThat(run.stdout()).contains("Slurm said:");
    }

    @Test
    void aPartitionSlurmDoesNotHaveFailsEveryStartWithSlurmsMessage(@TempDir Path dir) throws Exception {
        assertStartsFailWith(dir, "Invalid partition name specified", "--partition", "no-such-partition");
    }

    @Test
    void anAllocationThatIsGoneFailsEveryStartWithSlurmsMessage(@TempDir Path dir) throws Exception {
        assertStartsFailWith(dir, "Invalid job id specified", "--env", "SLURM_JOB_ID", "999999");
    }

    @Test
    void aNodeWhoseSlurmdIsStoppedFailsEveryStartWithSlurmsMessage(@TempDir Path dir) throws Exception {
        Slurm.localCluster();
        Slurm.localCluster("stop-slurmd");
        try {
            // the first start fails when srun cannot reach slurmd, which names the node, so it is tried again at
            // once; the job Slurm allocated for the first then stays "completing", and the next start's job waits in
            // the queue behind it until the start timeout
            assertStartsFailWith(dir, "Communication connection failure", "--worker-start-timeout", "15s");
        } finally {
            Slurm.localCluster("start-slurmd");
        }
    }

    @Test
    void ctrlCLeavesNothingInTheQueueNotEvenAWorkerStillWaitingForCpus(@TempDir Path dir) throws Exception {
        int cpus = Integer.parseInt(Slurm.run("sinfo", "--noheader", "--format=%c").lines().findFirst().orElseThrow()
                .strip().replace("+", ""));
        // the jobs' processes name the test's folder (a link to sleep there): PIDs a job writes are its namespace's
        Path sleep = MarkedProcesses.markedSleep(dir, "sleep");
        StringBuilder jobs = new StringBuilder();
        for (int i = 1; i <= cpus + 1; i++) {
            jobs.append(i > 1 ? "," : "").append(commandJob("long" + i, sleep + " 600 & wait"));
        }
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + jobs + "]}");
        // one worker more than the node has CPUs: its job waits in the queue
        List<String> command = List.of(Archpool.home().resolve("bin/archpool").toString(), "build", "archpool.json",
                "--arch", "90", "-j" + (cpus + 1), "-k", "--launcher", "slurm", "--report", dir.resolve("r.json").toString());
        Process coordinator = Archpool.process(command).directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile()).start();
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> MarkedProcesses.alive(sleep + " 600").stream()
                    .filter(p -> p.info().command().orElse("").endsWith("/sleep")).count() >= cpus);
            await().atMost(Duration.ofSeconds(10)).until(() -> Slurm.archpoolJobs().stream()
                    .anyMatch(j -> j.endsWith("PENDING")));
            assertThat(Slurm.archpoolJobs()).hasSize(cpus + 1);

            new ProcessBuilder("kill", "-INT", Long.toString(coordinator.pid())).start().waitFor();
            Exits.within(coordinator, Duration.ofSeconds(30), dir.resolve("err.txt"));
            assertThat(coordinator.exitValue()).as(Files.readString(dir.resolve("err.txt"))).isEqualTo(130);
            Slurm.assertQueueEmpty(Duration.ofSeconds(10));
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(MarkedProcesses.alive(sleep.toString()))
                    .isEmpty());
            JsonNode r = Archpool.json(dir.resolve("r.json"));
            assertThat(r.path("jobs").findValuesAsText("outcome")).hasSize(cpus + 1).allMatch("cancelled"::equals);
        } finally {
            coordinator.descendants().forEach(ProcessHandle::destroyForcibly);
            coordinator.destroyForcibly();
        }
    }
}
