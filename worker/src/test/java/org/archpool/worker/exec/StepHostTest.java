package org.archpool.worker.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.archpool.protocol.Phase;
import org.archpool.protocol.Step;
import org.archpool.testing.MarkedProcesses;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What only a step host does: hosts reused and added, a lost host, a kill before the fork, the exact environment. */
@Tag("process")
class StepHostTest {

    private final Clock clock = Clock.systemUTC();
    private final String marker = MarkedProcesses.newMarker();
    private final StepLauncher launcher = StepLauncher.hosting(namespace());

    private static PidNamespaceContainment namespace() {
        Containment c = StepLauncher.system().containment();
        assertThat(c).as("this machine allows PID namespaces").isInstanceOf(PidNamespaceContainment.class);
        return (PidNamespaceContainment) c;
    }

    @AfterEach
    void end() {
        launcher.close();
        MarkedProcesses.killAll(marker);
    }

    private StepResult run(Step step, ByteArrayOutputStream log) {
        return new StepRunner(clock, launcher).run(step, log, Deadline.after(clock, 0), new CancellationToken());
    }

    private static Step sh(Path cwd, String script, Map<String, String> env) {
        return new Step(Phase.COMMAND, List.of("sh", "-c", script), cwd.toString(), env);
    }

    @Test
    void aHostRunsOneStepAfterAnotherAndStepsAtOnceGetHostsOfTheirOwn(@TempDir Path dir) throws Exception {
        for (int i = 0; i < 3; i++) {
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            assertThat(run(sh(dir, "echo step " + i + "; echo $$ > pid" + i, Map.of()), log).exitCode()).isZero();
            assertThat(log.toString()).isEqualTo("step " + i + "\n");
        }
        // one after another: one host; the step's shell is a new process each time
        assertThat(Set.of(Files.readString(dir.resolve("pid0")), Files.readString(dir.resolve("pid1")))).hasSize(2);
        Path go = dir.resolve("go");
        List<CompletableFuture<StepResult>> atOnce = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String script = "touch here" + i + "; until [ -f go ]; do sleep 0.01; done; echo together";
            atOnce.add(CompletableFuture.supplyAsync(() -> run(sh(dir, script, Map.of()), new ByteArrayOutputStream())));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(dir.resolve("here0"))
                && Files.exists(dir.resolve("here1")) && Files.exists(dir.resolve("here2")));
        Files.writeString(go, "");
        for (CompletableFuture<StepResult> r : atOnce) {
            assertThat(r.get(20, TimeUnit.SECONDS).exitCode()).isZero();
        }
        assertThat(launcher.startedAndHosted()).containsExactly(6, 6);
    }

    @Test
    void aHostKilledUnderItsStepLosesTrackOfItAndTheNextStepGetsANewHost(@TempDir Path dir) throws Exception {
        Path sleep = MarkedProcesses.markedSleep(dir, marker);
        CompletableFuture<StepResult> r = CompletableFuture.supplyAsync(
                () -> run(sh(dir, sleep + " 300", Map.of()), new ByteArrayOutputStream()));
        await().atMost(Duration.ofSeconds(10)).until(() -> !MarkedProcesses.alive(marker).isEmpty());
        ProcessHandle step = MarkedProcesses.alive(marker).get(0);
        ProcessHandle host = step.parent().orElseThrow();
        host.destroyForcibly();
        StepResult lost = r.get(20, TimeUnit.SECONDS);
        assertThat(lost.ending()).isEqualTo(StepResult.Ending.NOT_STARTED);
        assertThat(lost.message()).contains("lost track of sh").contains("step host");
        await().atMost(Duration.ofSeconds(5)).until(() -> MarkedProcesses.alive(marker).isEmpty());
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        assertThat(run(sh(dir, "echo after", Map.of()), log).exitCode()).isZero();
        assertThat(log.toString()).isEqualTo("after\n");
        assertThat(launcher.startedAndHosted()).containsExactly(2, 2);
    }

    @Test
    void aHostThatDiedWhileIdleIsNotGivenTheNextStep(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream first = new ByteArrayOutputStream();
        assertThat(run(sh(dir, "echo $PPID > /dev/null; ps -o pid= -p 1 >/dev/null 2>&1; exit 0", Map.of()), first)
                .exitCode()).isZero();
        List<ProcessHandle> hosts = ProcessHandle.current().descendants()
                .filter(p -> p.info().commandLine().orElse("").contains("archpool-step-host")
                        && p.info().command().orElse("").endsWith("sh"))
                .toList();
        assertThat(hosts).isNotEmpty();
        hosts.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle h : hosts) {
            h.onExit().get(10, TimeUnit.SECONDS);
        }
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        StepResult r = run(sh(dir, "echo fine", Map.of()), log);
        assertThat(r.ending()).as(r.message()).isEqualTo(StepResult.Ending.EXITED);
        assertThat(log.toString()).isEqualTo("fine\n");
        assertThat(launcher.startedAndHosted()).as("both hosted, the second on a new host").containsExactly(2, 2);
    }

    @Test
    void aKillAskedForBeforeTheHostForkedTheStepIsCarriedOutWhenItHas(@TempDir Path dir) throws Exception {
        Path sleep = MarkedProcesses.markedSleep(dir, marker);
        for (int i = 0; i < 5; i++) {
            StartedStep started = launcher.start(sh(dir, sleep + " 300", Map.of()), new ByteArrayOutputStream());
            started.killAll(); // at once: the host has most likely not forked yet
            assertThat(started.awaitExit(Duration.ofSeconds(10))).isTrue();
            assertThat(started.finish(false)).isEqualTo(128 + 9);
            assertThat(MarkedProcesses.alive(marker)).isEmpty();
        }
        assertThat(launcher.startedAndHosted()).containsExactly(5, 5);
    }

    @Test
    void theStepGetsExactlyTheEnvironmentASpawnedStepGets(@TempDir Path dir) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("GREETING", "it's $HOME `x` \"q\"\nsecond line");
        env.put("EMPTY", "");
        env.put("PWD", "/stale");
        Step step = new Step(Phase.COMMAND, List.of("env", "-0"), dir.toString(), env);
        ByteArrayOutputStream hostedLog = new ByteArrayOutputStream();
        assertThat(run(step, hostedLog).exitCode()).isZero();
        ByteArrayOutputStream spawnedLog = new ByteArrayOutputStream();
        try (StepLauncher spawned = StepLauncher.using(namespace())) {
            assertThat(new StepRunner(clock, spawned).run(step, spawnedLog, Deadline.after(clock, 0),
                    new CancellationToken()).exitCode()).isZero();
        }
        Set<String> hosted = new TreeSet<>(Arrays.asList(hostedLog.toString().split("\0")));
        assertThat(hosted).contains("GREETING=" + env.get("GREETING"), "EMPTY=", "PWD=" + dir);
        assertThat(hosted).isEqualTo(new TreeSet<>(Arrays.asList(spawnedLog.toString().split("\0"))));
        assertThat(launcher.startedAndHosted()).containsExactly(1, 1);
    }

    @Test
    void aNameNoShellCanHoldStillReachesTheStep(@TempDir Path dir) {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Step step = new Step(Phase.COMMAND, List.of("env"), dir.toString(), Map.of("A.B", "dotted", "C", "plain"));
        assertThat(run(step, log).exitCode()).isZero();
        assertThat(log.toString()).contains("A.B=dotted\n").contains("C=plain\n").contains("PWD=" + dir + "\n");
    }

    @Test
    void aStepRunsInItsFolderAndAFolderThatVanishedDoesNotStart(@TempDir Path dir) throws Exception {
        Path sub = Files.createDirectory(dir.resolve("sub"));
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        assertThat(run(new Step(Phase.COMMAND, List.of("pwd"), sub.toString(), Map.of()), log).exitCode()).isZero();
        assertThat(log.toString()).isEqualTo(sub.toRealPath() + "\n");
        StepResult gone = run(new Step(Phase.COMMAND, List.of("pwd"), dir.resolve("gone").toString(), Map.of()),
                new ByteArrayOutputStream());
        assertThat(gone.ending()).isEqualTo(StepResult.Ending.NOT_STARTED);
    }

    @Test
    void theHostRefusesToRunUnlessItIsTheFirstProcessOfItsNamespace(@TempDir Path dir) throws Exception {
        // in a throwaway namespace of its own, as its second process: were the check missing, its kill would
        // reach only that namespace
        UtilLinux tools = UtilLinux.system();
        Process p = new ProcessBuilder(tools.unshare().orElseThrow().toString(), "--pid", "--fork", "--kill-child",
                "--", "/bin/sh", "-c", "/bin/sh -c \"$1\" archpool-step-host \"$2\" \"$3\" </dev/null; echo $?", "outer",
                StepScript.HOST, dir.toString(), tools.mkfifo().orElseThrow().toString())
                .redirectErrorStream(true).start();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(new String(p.getInputStream().readAllBytes()).strip()).isEqualTo(String.valueOf(StepScript.NOT_FIRST));
        assertThat(dir.resolve("out")).doesNotExist();
    }

    @Test
    void closingTheLauncherEndsItsHostsAndRemovesTheirFolders(@TempDir Path dir) {
        List<Path> others = hostFolders();
        List<ProcessHandle> children = ProcessHandle.current().children().toList();
        assertThat(run(sh(dir, "exit 0", Map.of()), new ByteArrayOutputStream()).exitCode()).isZero();
        List<Path> ours = new ArrayList<>(hostFolders());
        ours.removeAll(others);
        assertThat(ours).hasSize(1);
        String folder = ours.get(0).toString();
        List<ProcessHandle> hosts = ProcessHandle.current().children().filter(c -> !children.contains(c))
                .filter(c -> c.info().arguments().map(a -> List.of(a).contains(folder)).orElse(false)).toList();
        assertThat(hosts).as("the host's unshare, a child of this JVM named by its folder").hasSize(1);
        launcher.close();
        assertThat(ours.get(0)).doesNotExist();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(hosts.get(0).isAlive()).as("the host's unshare is killed").isFalse());
    }

    private static List<Path> hostFolders() {
        try (var s = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return s.filter(p -> p.getFileName().toString().startsWith("archpool-step-host-")).toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
