package org.archpool.worker.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.archpool.protocol.Phase;
import org.archpool.protocol.Step;
import org.archpool.testing.MarkedProcesses;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every case runs three ways: on a step host in a PID namespace (what the system gives here, as root or in a user
 * namespace), spawned in a PID namespace of its own (the way where hosts cannot start), and with the session
 * fallback forced.
 */
@Tag("process")
class StepRunnerTest {

    private final Clock clock = Clock.systemUTC();
    private final String marker = MarkedProcesses.newMarker();

    /** How a step is started. */
    enum Way {
        HOSTED, NAMESPACE_PER_STEP, SESSION;

        boolean namespace() {
            return this != SESSION;
        }

        StepLauncher launcher() {
            Containment system = StepLauncher.system().containment();
            assertThat(system).as("this machine allows PID namespaces").isInstanceOf(PidNamespaceContainment.class);
            return switch (this) {
                case HOSTED -> StepLauncher.hosting((PidNamespaceContainment) system);
                case NAMESPACE_PER_STEP -> StepLauncher.using(system);
                case SESSION -> StepLauncher.using(SessionContainment.of(UtilLinux.system()));
            };
        }
    }

    static Stream<Way> strategies() {
        return Stream.of(Way.values());
    }

    private final List<StepLauncher> launchers = new ArrayList<>();
    private final List<StepLauncher> hosting = new ArrayList<>();

    @AfterEach
    void killLeftovers() {
        for (StepLauncher h : hosting) {
            long[] counts = h.startedAndHosted();
            assertThat(counts[1]).as("steps that ran on a host, of " + counts[0] + " (" + h.hostsUnavailable() + ")")
                    .isEqualTo(counts[0]);
        }
        launchers.forEach(StepLauncher::close);
        MarkedProcesses.killAll(marker);
    }

    private StepRunner runner(Way way) {
        StepLauncher launcher = way.launcher();
        launchers.add(launcher);
        if (way == Way.HOSTED) {
            hosting.add(launcher);
        }
        return new StepRunner(Clock.systemUTC(), launcher);
    }

    private static Step sh(Path cwd, String script) {
        return new Step(Phase.COMMAND, List.of("sh", "-c", script), cwd.toString(), Map.of("GREETING", "hi"));
    }

    private Path sleeper(Path dir) throws Exception {
        return MarkedProcesses.markedSleep(dir, marker);
    }

    private void awaitNoneLeft() {
        await().atMost(Duration.ofSeconds(5)).until(() -> MarkedProcesses.alive(marker).isEmpty());
    }

    @ParameterizedTest
    @MethodSource("strategies")
    void capturesOutputAndExitStatusWithoutAShellOfItsOwn(Way c, @TempDir Path dir) {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        StepResult r = runner(c).run(sh(dir, "echo $GREETING; echo oops >&2; read x || echo no-stdin; exit 3"), log,
                Deadline.after(clock, 0), new CancellationToken());
        assertThat(r.ending()).isEqualTo(StepResult.Ending.EXITED);
        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(log.toString()).contains("hi").contains("oops").contains("no-stdin");
    }

    @ParameterizedTest
    @MethodSource("strategies")
    void aSignalIsReportedAsTodayWithNoWordFromTheWrapper(Way c, @TempDir Path dir) {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        StepResult r = runner(c).run(sh(dir, "kill -SEGV $$"), log, Deadline.after(clock, 0), new CancellationToken());
        assertThat(r.exitCode()).isEqualTo(139);
        assertThat(r.signal()).contains("SIGSEGV");
        assertThat(log.toString()).isEmpty();
    }

    @ParameterizedTest
    @MethodSource("strategies")
    void aProgramNamedLikeAShellBuiltinIsTheProgram(Way c, @TempDir Path dir) {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        StepResult r = runner(c).run(new Step(Phase.COMMAND, List.of("echo", "-e", "a\\tb"), dir.toString(), Map.of()),
                log, Deadline.after(clock, 0), new CancellationToken());
        assertThat(r.exitCode()).isZero();
        assertThat(log.toString()).isEqualTo("a\tb\n");
    }

    @ParameterizedTest
    @MethodSource("strategies")
    void whatAStepLeftRunningDiesWithIt(Way c, @TempDir Path dir) throws Exception {
        Path sleep = sleeper(dir);
        long start = System.nanoTime();
        StepResult r = runner(c).run(sh(dir, sleep + " 1101 & exit 0"), new ByteArrayOutputStream(),
                Deadline.after(clock, 0), new CancellationToken());
        assertThat(r.exitCode()).isZero();
        assertThat(MarkedProcesses.alive(marker)).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(StepRunner.OUTPUT_DRAIN_SECONDS));
    }

    @ParameterizedTest
    @MethodSource("strategies")
    void anOrphanThatLeftThroughInitDiesWithTheStep(Way c, @TempDir Path dir) throws Exception {
        Path sleep = sleeper(dir);
        StepResult r = runner(c).run(sh(dir, "(" + sleep + " 1101 &); exit 0"), new ByteArrayOutputStream(),
                Deadline.after(clock, 0), new CancellationToken());
        assertThat(r.exitCode()).isZero();
        assertThat(MarkedProcesses.alive(marker)).isEmpty();
    }

    @ParameterizedTest
    @MethodSource("strategies")
    void aDaemonOfItsOwnSessionDiesOnlyInANamespace(Way c, @TempDir Path dir) throws Exception {
        Path sleep = sleeper(dir);
        StepResult r = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> runner(c).run(
                sh(dir, "setsid sh -c '" + sleep + " 300 & touch ready; wait' & "
                        + "until [ -f ready ]; do sleep 0.01; done; echo started"),
                new ByteArrayOutputStream(), Deadline.after(clock, 0), new CancellationToken()));
        assertThat(r.ending()).isEqualTo(StepResult.Ending.EXITED);
        assertThat(r.exitCode()).isZero();
        if (c.namespace()) {
            assertThat(MarkedProcesses.alive(marker)).isEmpty();
        } else {
            assertThat(MarkedProcesses.alive(marker)).as("what escapes the session fallback").isNotEmpty();
        }
    }

    @ParameterizedTest
    @MethodSource("strategies")
    void aMissingProgramDoesNotStart(Way c, @TempDir Path dir) {
        StepResult r = runner(c).run(new Step(Phase.COMMAND, List.of("no-such-compiler-xyz"), dir.toString(), Map.of()),
                new ByteArrayOutputStream(), Deadline.after(clock, 0), new CancellationToken());
        assertThat(r.ending()).isEqualTo(StepResult.Ending.NOT_STARTED);
        assertThat(r.message()).contains("no-such-compiler-xyz").contains("PATH");
    }

    @ParameterizedTest
    @MethodSource("strategies")
    void theTimeLimitKillsTheWholeTreeAndNamesOnlyTheStepsProcesses(Way c, @TempDir Path dir) throws Exception {
        Path sleep = sleeper(dir);
        long start = System.nanoTime();
        StepResult r = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> runner(c).run(
                sh(dir, sleep + " 300 & sh -c '" + sleep + " 300' & wait"),
                new ByteArrayOutputStream(), Deadline.after(clock, 700), new CancellationToken()));
        assertThat(r.ending()).isEqualTo(StepResult.Ending.TIMED_OUT);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        assertThat(r.killed()).first().asString().contains("sh -c");
        assertThat(r.killed()).anyMatch(l -> l.contains(marker + " 300"));
        assertThat(r.killed()).noneMatch(l -> l.contains("unshare") || l.contains("archpool-step"));
        awaitNoneLeft();
    }

    @ParameterizedTest
    @MethodSource("strategies")
    void anOrphanedGrandchildIsKilledAtTheTimeLimit(Way c, @TempDir Path dir) throws Exception {
        Path sleep = sleeper(dir);
        // The subshell exits at once: its sleep is handed to init and is no descendant of the step any more.
        StepResult r = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> runner(c).run(
                sh(dir, "(" + sleep + " 300 &); " + sleep + " 300"),
                new ByteArrayOutputStream(), Deadline.after(clock, 700), new CancellationToken()));
        assertThat(r.ending()).isEqualTo(StepResult.Ending.TIMED_OUT);
        awaitNoneLeft();
    }

    @ParameterizedTest
    @MethodSource("strategies")
    void cancellingKillsTheTreeAndSaysCancelled(Way c, @TempDir Path dir) throws Exception {
        Path sleep = sleeper(dir);
        CancellationToken token = new CancellationToken();
        CompletableFuture<StepResult> result = CompletableFuture.supplyAsync(() -> runner(c).run(
                sh(dir, sleep + " 300 & wait"), new ByteArrayOutputStream(), Deadline.after(clock, 0), token));
        await().atMost(Duration.ofSeconds(10)).until(() -> !MarkedProcesses.alive(marker).isEmpty());
        token.cancel();
        StepResult r = result.get(20, TimeUnit.SECONDS);
        assertThat(r.ending()).isEqualTo(StepResult.Ending.CANCELLED);
        awaitNoneLeft();
    }

    @ParameterizedTest
    @MethodSource("strategies")
    void theStepsParentDyingBySigkillTakesTheStepWithIt(Way c, @TempDir Path dir) throws Exception {
        Path sleep = sleeper(dir);
        // a shell stands in for the worker: it starts the contained step, which leaves a grandchild, and is
        // killed; the script is a file, so that only the two sleeps carry the marker
        Path script = Files.writeString(dir.resolve("step.sh"), sleep + " 300 & " + sleep + " 301; wait\n");
        List<String> parentArgv = new ArrayList<>();
        if (c == Way.HOSTED) {
            // a JVM runs the step on a host: its death must end the host, the namespace and the step
            parentArgv.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                    System.getProperty("java.class.path"), OneHostedStep.class.getName(), "sh", script.toString()));
        } else {
            parentArgv.addAll(List.of("sh", "-c", "\"$@\" & wait", "parent"));
            parentArgv.addAll(c.launcher().containment().wrap(List.of("sh", script.toString())));
        }
        Process parent = new ProcessBuilder(parentArgv).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectErrorStream(true).start();
        await().atMost(Duration.ofSeconds(10)).until(() -> MarkedProcesses.alive(marker).size() == 2);
        parent.destroyForcibly();
        if (c.namespace()) {
            awaitNoneLeft();
        } else {
            // only the step's main process had the parent-death signal: both sleeps are what escapes here
            await().atMost(Duration.ofSeconds(5)).until(() -> parent.toHandle().descendants().noneMatch(
                    p -> p.info().commandLine().orElse("").contains(script.toString())));
            assertThat(MarkedProcesses.alive(marker)).hasSize(2);
        }
    }
}
