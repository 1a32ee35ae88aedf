package org.archpool.orchestrator.pool.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.archpool.orchestrator.pool.NodeSummary;
import org.archpool.orchestrator.pool.Worker;
import org.archpool.orchestrator.pool.WorkerFailedException;
import org.archpool.orchestrator.pool.WorkerFailure;
import org.archpool.orchestrator.pool.WorkerHandshake;
import org.archpool.orchestrator.pool.WorkerSpec;
import org.archpool.worker.exec.ProcessTreeKiller;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SlurmWorkerLauncher} without Slurm: a fake {@code srun}, a shell script, stands in for Slurm's. The
 * one that starts workers skips its own options, sends the task's stderr where {@code --error} says, and runs
 * what follows them ({@code env ... java ...}), so a real worker JVM starts and speaks the protocol through it.
 */
@Tag("process")
class SlurmWorkerLauncherTest {

    /** Records its arguments beside itself, then runs the worker as srun would. */
    private static final String STARTS_THE_WORKER = """
            printf '%s\\n' "$@" > "$0.args"
            while [ "$#" -gt 0 ]; do
              case "$1" in
                --error=*) exec 2>>"${1#--error=}" ;;
                env) break ;;
              esac
              shift
            done
            exec "$@"
            """;

    @TempDir
    Path dir;

    private final List<String> cancelled = Collections.synchronizedList(new ArrayList<>());

    private Path fakeSrun(String body) throws Exception {
        Path srun = dir.resolve("srun");
        Files.writeString(srun, "#!/bin/sh\n" + body);
        Files.setPosixFilePermissions(srun, PosixFilePermissions.fromString("rwxr-xr-x"));
        return srun;
    }

    /** The worker JVM as the other pool tests start it: this JVM with its class path. */
    private WorkerSpec spec(Duration helloTimeout) {
        return new WorkerSpec(Path.of(System.getProperty("java.home"), "bin", "java"),
                WorkerSpec.DEFAULT_JVM_OPTIONS, System.getProperty("java.class.path"), System.getenv(),
                dir.resolve("workers"), helloTimeout, Duration.ofSeconds(1), Duration.ofSeconds(10));
    }

    private SlurmWorkerLauncher launcher(Path srun, Duration helloTimeout) {
        SlurmConfig config = new SlurmConfig(srun.toString(), "scancel", "squeue", "sinfo", null, null, List.of(), 2,
                "t", "someone");
        return new SlurmWorkerLauncher(spec(helloTimeout), config, cancelled::add);
    }

    @Test
    void aWorkerStartedThroughSrunSaysHello() throws Exception {
        Path srun = fakeSrun(STARTS_THE_WORKER);
        try (SlurmWorkerLauncher launcher = launcher(srun, Duration.ofSeconds(30))) {
            assertThat(launcher.launcher()).isEqualTo("slurm");
            assertThat(launcher.mode()).isEqualTo("process");
            try (Worker worker = launcher.launch("w1")) {
                assertThat(worker.id()).isEqualTo("w1");
                assertThat(worker.isAlive()).isTrue();
                assertThat(worker.pid()).isPositive();
            }
        }
        Path logs = dir.resolve("workers");
        List<String> args = Files.readAllLines(dir.resolve("srun.args"));
        assertThat(args).startsWith("--ntasks=1", "--nodes=1", "--cpus-per-task=2", "--unbuffered",
                        "--job-name=archpool.t.w1", "--error=" + logs.resolve("w1.stderr.log"), "--open-mode=append",
                        "env", "CUDA_VISIBLE_DEVICES=", "ROCR_VISIBLE_DEVICES=", "HIP_VISIBLE_DEVICES=")
                .contains(WorkerSpec.MAIN_CLASS, "--worker-id", "w1");
        assertThat(logs.resolve("w1.srun.log")).as("srun's own stderr").isRegularFile();
        assertThat(logs.resolve("w1.stderr.log")).as("the worker's stderr").isRegularFile();
    }

    @Test
    void anSrunThatCannotStartTheStepFailsTheLaunchWithWhatSlurmSaid() throws Exception {
        Path srun = fakeSrun("""
                echo 'srun: error: Unable to allocate resources: Invalid partition name specified' >&2
                exit 1
                """);
        try (SlurmWorkerLauncher launcher = launcher(srun, Duration.ofSeconds(30))) {
            assertThatThrownBy(() -> launcher.launch("w3"))
                    .isInstanceOfSatisfying(WorkerFailedException.class,
                            e -> assertThat(e.failure()).isEqualTo(WorkerFailure.START))
                    .hasMessageContaining("exited with status 1")
                    .hasMessageContaining("Slurm said: srun: error: Unable to allocate resources: Invalid partition"
                            + " name specified")
                    .hasMessageContaining("Slurm step archpool.t.w3")
                    .hasMessageContaining(dir.resolve("workers").resolve("w3.stderr.log").toString())
                    .hasMessageContaining(dir.resolve("workers").resolve("w3.srun.log").toString());
        }
        assertThat(cancelled).as("srun had exited: nothing to cancel").isEmpty();
    }

    @Test
    void anSrunThatCannotBeStartedIsAStartFailure() {
        try (SlurmWorkerLauncher launcher = launcher(dir.resolve("no-such-srun"), Duration.ofSeconds(30))) {
            assertThatThrownBy(() -> launcher.launch("w1"))
                    .isInstanceOfSatisfying(WorkerFailedException.class,
                            e -> assertThat(e.failure()).isEqualTo(WorkerFailure.START))
                    .hasMessageContaining("cannot start worker w1 with " + dir.resolve("no-such-srun"))
                    .hasMessageContaining("srun");
        }
    }

    @Test
    void closingTheLauncherCancelsAStepStillWaitingToStart() throws Exception {
        Path srun = fakeSrun("""
                echo $$ > "$0.pid"
                sleep 600
                """);
        SlurmWorkerLauncher launcher = launcher(srun, Duration.ofSeconds(120));
        AtomicReference<Thread> launching = new AtomicReference<>();
        CompletableFuture<Worker> launch = CompletableFuture.supplyAsync(() -> {
            launching.set(Thread.currentThread());
            try {
                return launcher.launch("w2");
            } catch (WorkerFailedException e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
        ProcessHandle fake = awaitPid(dir.resolve("srun.pid"), launch);
        await("the launch waits for the worker's hello").atMost(Duration.ofSeconds(10))
                .until(() -> waitsForHello(launching.get()));
        List<ProcessHandle> tree = Stream.concat(Stream.of(fake), fake.descendants()).toList();
        try {
            long start = System.nanoTime();

            launcher.close();

            assertThatThrownBy(() -> launch.get(15, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(WorkerFailedException.class);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                    .as("the launch failed promptly, long before its hello timeout").isLessThan(10_000);
            for (ProcessHandle p : tree) {
                p.onExit().get(10, TimeUnit.SECONDS);
            }
            assertThat(tree).as("the fake srun and its sleep").hasSize(2).noneMatch(ProcessHandle::isAlive);
            assertThat(cancelled).isNotEmpty().containsOnly("archpool.t.w2");
        } finally {
            tree.forEach(ProcessTreeKiller::kill);
            launcher.close();
        }
    }

    private static ProcessHandle awaitPid(Path pidFile, CompletableFuture<?> launch) throws IOException {
        await("the fake srun writes its pid").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
                .until(() -> launch.isDone() || pid(pidFile).isPresent());
        assertThat(pid(pidFile)).as("the fake srun's pid; the launch: %s", launch).isPresent();
        return ProcessHandle.of(pid(pidFile).orElseThrow()).orElseThrow();
    }

    private static Optional<Long> pid(Path pidFile) throws IOException {
        String pid = Files.isRegularFile(pidFile) ? Files.readString(pidFile).strip() : "";
        return pid.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(pid));
    }

    /**
     * Whether {@code thread} waits in {@link WorkerHandshake#await} for a worker's hello: a launch gets there only
     * after it has registered the srun it started, which closing the launcher then cancels.
     */
    private static boolean waitsForHello(Thread thread) {
        return thread != null && Arrays.stream(thread.getStackTrace()).anyMatch(frame ->
                frame.getClassName().equals(WorkerHandshake.class.getName()) && frame.getMethodName().equals("await"));
    }

    /**
     * Fails its first two starts as Slurm does when it cannot reach node2's slurmd, then starts the worker; records
     * each invocation's arguments in {@code srun.args.N}.
     */
    private static final String FAILS_TWICE_ON_NODE2 = """
            n=$(cat "$0.count" 2>/dev/null || echo 0)
            n=$((n + 1))
            echo "$n" > "$0.count"
            printf '%s\\n' "$@" > "$0.args.$n"
            if [ "$n" -le 2 ]; then
              echo "srun: error: Task launch for StepId=1.$n failed on node node2: Communication connection failure" >&2
              echo 'srun: error: Application launch failed: Communication connection failure' >&2
              exit 1
            fi
            """ + STARTS_THE_WORKER;

    private SlurmWorkerLauncher launcher(Path srun, NodeStates states) {
        SlurmConfig config = new SlurmConfig(srun.toString(), "scancel", "squeue", "sinfo", null, null, List.of(), 2,
                "t", "someone");
        return new SlurmWorkerLauncher(spec(Duration.ofSeconds(30)), config, cancelled::add, Optional.empty(),
                states);
    }

    /** Launches {@code workerId}, which must fail to start; returns the failure. */
    private static WorkerFailedException failedLaunch(SlurmWorkerLauncher launcher, String workerId) {
        AtomicReference<WorkerFailedException> failure = new AtomicReference<>();
        assertThatThrownBy(() -> launcher.launch(workerId))
                .isInstanceOfSatisfying(WorkerFailedException.class, e -> {
                    assertThat(e.failure()).isEqualTo(WorkerFailure.START);
                    failure.set(e);
                })
                .hasMessageContaining("failed on node node2");
        return failure.get();
    }

    private static NodeSummary node2(SlurmWorkerLauncher launcher) {
        return launcher.nodes().stream().filter(n -> n.node().equals("node2")).findFirst().orElseThrow();
    }

    @Test
    void aStartThatFailedOnANodeIsWorthAnotherAndTheSecondInARowKeepsLaterStartsOffTheNode() throws Exception {
        Path srun = fakeSrun(FAILS_TWICE_ON_NODE2);
        try (SlurmWorkerLauncher launcher = launcher(srun, node -> Optional.empty())) {
            WorkerFailedException first = failedLaunch(launcher, "w1");
            assertThat(Files.readString(dir.resolve("srun.count")).strip()).as("the launch itself does not retry")
                    .isEqualTo("1");
            assertThat(launcher.startAgain(first)).as("Slurm's words name node2: a start elsewhere may work")
                    .isTrue();
            assertThat(node2(launcher)).satisfies(n -> {
                assertThat(n.failedStarts()).isEqualTo(1);
                assertThat(n.avoided()).as("one failed start is not enough to avoid it").isNull();
            });

            WorkerFailedException second = failedLaunch(launcher, "w1.2");
            assertThat(Files.readString(dir.resolve("srun.count")).strip()).isEqualTo("2");
            assertThat(launcher.startAgain(second)).isTrue();
            assertThat(node2(launcher)).satisfies(n -> {
                assertThat(n.failedStarts()).isEqualTo(2);
                assertThat(n.workersStarted()).isZero();
                assertThat(n.avoided()).isNotNull().contains("2 worker starts in a row failed there");
            });

            try (Worker worker = launcher.launch("w1.3")) {
                assertThat(worker.id()).isEqualTo("w1.3");
                assertThat(worker.isAlive()).isTrue();
                assertThat(launcher.nodes()).filteredOn(n -> n.node().equals(worker.host()))
                        .extracting(NodeSummary::workersStarted).containsExactly(1);
            }
        }
        assertThat(Files.readString(dir.resolve("srun.count")).strip()).as("srun invocations").isEqualTo("3");
        assertThat(Files.readAllLines(dir.resolve("srun.args.1"))).noneMatch(a -> a.startsWith("--exclude"))
                .contains("--job-name=archpool.t.w1");
        assertThat(Files.readAllLines(dir.resolve("srun.args.2"))).noneMatch(a -> a.startsWith("--exclude"))
                .contains("--job-name=archpool.t.w1.2");
        List<String> third = Files.readAllLines(dir.resolve("srun.args.3"));
        assertThat(third).contains("--exclude=node2", "--job-name=archpool.t.w1.3");
        assertThat(third.indexOf("--exclude=node2")).isLessThan(third.indexOf("env"));
    }

    @Test
    void aStartFailureThatNamesNoNodeOrIsNoStartIsNotWorthAnother() throws Exception {
        Path srun = fakeSrun("""
                echo 'srun: error: Unable to allocate resources: Invalid partition name specified' >&2
                exit 1
                """);
        try (SlurmWorkerLauncher launcher = launcher(srun, node -> Optional.empty())) {
            AtomicReference<WorkerFailedException> failure = new AtomicReference<>();
            assertThatThrownBy(() -> launcher.launch("w1")).isInstanceOfSatisfying(WorkerFailedException.class,
                    failure::set);
            assertThat(launcher.startAgain(failure.get())).as("no node named").isFalse();
            assertThat(launcher.startAgain(new WorkerFailedException(WorkerFailure.EXIT,
                    "srun: error: Node failure on node2"))).as("not a start failure").isFalse();
            assertThat(launcher.nodes()).isEmpty();
        }
    }

    @Test
    void aNodeSlurmCallsLostAfterAWorkerDiedThereGetsNoMoreWorkers() throws Exception {
        Path srun = fakeSrun(STARTS_THE_WORKER);
        List<String> asked = Collections.synchronizedList(new ArrayList<>());
        NodeStates down = node -> {
            asked.add(node);
            return Optional.of(new NodeState("down*", "Not responding"));
        };
        try (SlurmWorkerLauncher launcher = launcher(srun, down)) {
            String host;
            try (Worker worker = launcher.launch("w1")) {
                host = worker.host();
                assertThat(host).isNotBlank();
                assertThat(Files.readAllLines(dir.resolve("srun.args"))).noneMatch(a -> a.startsWith("--exclude"));
                launcher.workerDied(worker, WorkerFailure.HANG, "worker w1 stopped answering");
            }
            assertThat(asked).containsExactly(host);
            try (Worker worker = launcher.launch("w1.2")) {
                assertThat(Files.readAllLines(dir.resolve("srun.args"))).contains("--exclude=" + host);
            }
            assertThat(launcher.nodes()).singleElement().satisfies(n -> {
                assertThat(n.node()).isEqualTo(host);
                assertThat(n.workerDeaths()).isEqualTo(1);
                assertThat(n.lost()).isTrue();
                assertThat(n.slurmState()).isEqualTo("down* (Not responding)");
                assertThat(n.avoided()).isNotNull().contains("Slurm says it is down* (Not responding)")
                        .contains("worker w1 stopped answering");
            });
        }
    }
}
