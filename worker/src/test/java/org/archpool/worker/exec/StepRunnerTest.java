package org.archpool.worker.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.archpool.protocol.Phase;
import org.archpool.protocol.Step;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("process")
class StepRunnerTest {

    private final Clock clock = Clock.systemUTC();
    private final StepRunner runner = new StepRunner(clock);

    private static Step sh(Path cwd, String script) {
        return new Step(Phase.COMMAND, List.of("sh", "-c", script), cwd.toString(), Map.of("GREETING", "hi"));
    }

    @Test
    void capturesOutputAndExitStatusWithoutAShellOfItsOwn(@TempDir Path dir) {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        StepResult r = runner.run(sh(dir, "echo $GREETING; echo oops >&2; read x || echo no-stdin; exit 3"), log,
                Deadline.after(clock, 0), new CancellationToken());
        assertThat(r.ending()).isEqualTo(StepResult.Ending.EXITED);
        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(log.toString()).contains("hi").contains("oops").contains("no-stdin");
    }

    @Test
    void aDaemonThatKeepsTheLogOpenDoesNotHangTheStep(@TempDir Path dir) throws Exception {
        Path pids = dir.resolve("pids");
        StepResult r = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> runner.run(
                sh(dir, "setsid sleep 300 & echo $! > " + pids + "; echo started"),
                new ByteArrayOutputStream(), Deadline.after(clock, 0), new CancellationToken()));
        assertThat(r.ending()).isEqualTo(StepResult.Ending.EXITED);
        assertThat(r.exitCode()).isZero();
        ProcessHandle.of(Long.parseLong(Files.readString(pids).strip())).ifPresent(ProcessHandle::destroyForcibly);
    }

    @Test
    void aMissingProgramDoesNotStart(@TempDir Path dir) {
        StepResult r = runner.run(new Step(Phase.COMMAND, List.of("no-such-compiler-xyz"), dir.toString(), Map.of()),
                new ByteArrayOutputStream(), Deadline.after(clock, 0), new CancellationToken());
        assertThat(r.ending()).isEqualTo(StepResult.Ending.NOT_STARTED);
        assertThat(r.message()).contains("no-such-compiler-xyz").contains("PATH");
    }

    @Test
    void theTimeLimitKillsTheWholeTree(@TempDir Path dir) throws Exception {
        Path pids = dir.resolve("pids");
        long start = System.nanoTime();
        StepResult r = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> runner.run(
                sh(dir, "sleep 300 & echo $! > " + pids + "; sh -c 'sleep 300' & wait"),
                new ByteArrayOutputStream(), Deadline.after(clock, 700), new CancellationToken()));
        assertThat(r.ending()).isEqualTo(StepResult.Ending.TIMED_OUT);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        long grandchild = Long.parseLong(Files.readString(pids).strip());
        await().atMost(Duration.ofSeconds(5)).until(() -> ProcessHandle.of(grandchild).map(p -> !p.isAlive()).orElse(true));
    }

    @Test
    void anOrphanedGrandchildIsKilledWithItsProcessGroup(@TempDir Path dir) throws Exception {
        Path pids = dir.resolve("pids");
        // The subshell exits at once: its sleep is handed to init and is no descendant of the step any more.
        StepResult r = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> runner.run(
                sh(dir, "(sleep 300 & echo $! > " + pids + "); sleep 300"),
                new ByteArrayOutputStream(), Deadline.after(clock, 700), new CancellationToken()));
        assertThat(r.ending()).isEqualTo(StepResult.Ending.TIMED_OUT);
        long orphan = Long.parseLong(Files.readString(pids).strip());
        await().atMost(Duration.ofSeconds(5)).until(() -> ProcessHandle.of(orphan).map(p -> !p.isAlive()).orElse(true));
    }

    @Test
    void cancellingKillsTheTreeAndSaysCancelled(@TempDir Path dir) throws Exception {
        CancellationToken token = new CancellationToken();
        Path pids = dir.resolve("pids");
        CompletableFuture<StepResult> result = CompletableFuture.supplyAsync(() -> runner.run(
                sh(dir, "sleep 300 & echo $! > " + pids + "; wait"), new ByteArrayOutputStream(),
                Deadline.after(clock, 0), token));
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(pids) && Files.size(pids) > 0);
        token.cancel();
        StepResult r = result.get(20, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(r.ending()).isEqualTo(StepResult.Ending.CANCELLED);
        long grandchild = Long.parseLong(Files.readString(pids).strip());
        await().atMost(Duration.ofSeconds(5)).until(() -> ProcessHandle.of(grandchild).map(p -> !p.isAlive()).orElse(true));
    }
}
