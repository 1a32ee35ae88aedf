package org.archpool.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;
import org.archpool.testing.MarkedProcesses;
import org.archpool.worker.exec.CancellationToken;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compilers that crash or hang, run as real processes through {@link JobRunner#standard()}: a signal is a
 * {@code failed} result that names it; a time limit is a {@code timed_out} result that names the phase and
 * the limit, carries the log tail, and leaves none of the compiler's processes behind.
 */
@Tag("process")
class JobRunnerFaultTest {

    /** Prints a line, then ends itself with {@code signal}, as a crashing compiler would. */
    private static String crashingCompiler(String name, String signal) {
        return "#!/bin/sh\n"
                + "echo \"" + name + ": compiling $*\"\n"
                + "ulimit -c 0\n"
                + "kill -" + signal + " $$\n"
                + "echo \"" + name + ": still alive after SIG" + signal + "\"\n"
                + "exit 99\n";
    }

    /**
     * Starts two grandchildren that would outlive it (through a link to {@code sleep} beside it, so that
     * every process of the job names the test's folder), writes their PIDs and its own to the file named by
     * its first argument, one {@code PID NAME} a line, and waits for them (ten minutes).
     */
    private static final String HANGING_COMPILER = """
            #!/bin/sh
            pids="$1"
            echo "hanging-compiler: compiling, never finishing"
            "${0%/*}/sleep" 600 &
            first=$!
            "${0%/*}/sleep" 600 &
            second=$!
            printf '%s sleep\\n%s sleep\\n%s hanging-compiler\\n' "$first" "$second" "$$" > "$pids.part"
            mv "$pids.part" "$pids"
            wait
            """;

    @TempDir
    Path dir;

    private final JobRunner runner = JobRunner.standard();

    private Path tool(String name, String text) throws IOException {
        Path file = dir.resolve("tools").resolve(name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        return file;
    }

    private BuildRequest command(String id, long timeoutMs, String... argv) {
        return TestRequests.command(id + "#1", id, dir, timeoutMs, List.of(argv));
    }

    private BuildResult run(BuildRequest request) {
        return assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> runner.run(request, phase -> { }, new CancellationToken()));
    }

    /** The "PID NAME" lines the hanging compiler wrote. */
    private static Map<Long, String> pids(Path file) throws IOException {
        Map<Long, String> pids = new LinkedHashMap<>();
        for (String line : Files.readAllLines(file)) {
            if (!line.isBlank()) {
                String[] parts = line.strip().split(" ", 2);
                pids.put(Long.parseLong(parts[0]), parts[1]);
            }
        }
        return pids;
    }

    /**
     * Waits until no process whose command line names the test's folder runs: the PIDs a job writes are
     * those of its own PID namespace, which mean nothing here.
     */
    private void awaitAllGone() {
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(MarkedProcesses.alive(dir.toString()))
                .as("processes of the job still running").isEmpty());
    }

    private Path hangingCompiler() throws IOException {
        Path compiler = tool("hanging-compiler", HANGING_COMPILER);
        MarkedProcesses.markedSleep(compiler.getParent(), "sleep");
        return compiler;
    }

    @Test
    void aSegfaultingCompilerFailsAndTheResultNamesTheSignal() throws IOException {
        Path compiler = tool("segfaulting-compiler", crashingCompiler("segfaulting-compiler", "SEGV"));

        BuildResult r = run(command("segv", 0, compiler.toString(), "k1.cu"));

        assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(r.signal()).isEqualTo("SIGSEGV");
        assertThat(r.exitCode()).isEqualTo(139);
        assertThat(r.message()).startsWith("command (" + compiler + ") was killed by SIGSEGV (exit status 139");
        assertThat(r.logTail()).contains("segfaulting-compiler: compiling k1.cu").doesNotContain("still alive");
        assertThat(r.logTail()).endsWith("# " + r.message());
        assertThat(r.phases()).singleElement().satisfies(p -> {
            assertThat(p.name()).isEqualTo(Phase.COMMAND);
            assertThat(p.exitCode()).isEqualTo(139);
        });
    }

    @Test
    void anAbortingCompilerFailsWithSigabrt() throws IOException {
        Path compiler = tool("aborting-compiler", crashingCompiler("aborting-compiler", "ABRT"));

        BuildResult r = run(command("abrt", 0, compiler.toString()));

        assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(r.signal()).isEqualTo("SIGABRT");
        assertThat(r.exitCode()).isEqualTo(134);
        assertThat(r.message()).contains("was killed by SIGABRT (exit status 134");
    }

    @Test
    void aCompilerKilledFromOutsideFailsWithSigkillAndTheMessageSaysItWasNotUs() throws IOException {
        Path compiler = tool("killed-compiler", crashingCompiler("killed-compiler", "KILL"));

        BuildResult r = run(command("killed", 0, compiler.toString()));

        assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(r.signal()).isEqualTo("SIGKILL");
        assertThat(r.exitCode()).isEqualTo(137);
        assertThat(r.message()).contains("was killed by SIGKILL").contains("not by archpool")
                .contains("out-of-memory");
    }

    @Test
    void aWrapperThatPassesOnItsChildsSignalIsReportedWithThatSignalAndTheMessageSaysSo() throws IOException {
        Path compiler = tool("segfaulting-compiler", crashingCompiler("segfaulting-compiler", "SEGV"));

        BuildResult r = run(command("wrapped", 0, "sh", "-c", "'" + compiler + "'; exit $?"));

        assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(r.exitCode()).isEqualTo(139);
        assertThat(r.signal()).isEqualTo("SIGSEGV");
        assertThat(r.message()).contains("command (sh) was killed by SIGSEGV")
                .contains("if it is a wrapper script, a process it ran was");
    }

    @Test
    void anOrdinaryFailureNamesNoSignal() {
        BuildResult r = run(command("plain", 0, "sh", "-c", "echo 'error: expected ;'; exit 2"));

        assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.signal()).isNull();
        assertThat(r.message()).isEqualTo("command (sh) exited with status 2");
    }

    @Test
    void aStatusAbove128ThatNoSignalCanCauseIsAnOrdinaryExit() {
        BuildResult r = run(command("chld", 0, "sh", "-c", "exit 145"));

        assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(r.signal()).as("145 = 128 + SIGCHLD, which never ends a process").isNull();
        assertThat(r.message()).isEqualTo("command (sh) exited with status 145");
    }

    @Test
    void aHangingCompilerTimesOutNamingThePhaseAndTheLimitAndLeavesNoProcessBehind() throws IOException {
        Path compiler = hangingCompiler();
        Path pidFile = dir.resolve("hanging.pids");
        long start = System.nanoTime();

        BuildResult r = run(command("hang", 2000, compiler.toString(), pidFile.toString()));

        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took).isBetween(Duration.ofMillis(1900), Duration.ofSeconds(10));
        assertThat(r.outcome()).isEqualTo(Outcome.TIMED_OUT);
        assertThat(r.signal()).as("archpool killed it; no signal to report").isNull();
        assertThat(r.exitCode()).isNull();
        assertThat(r.message()).startsWith("timed out in the command phase: command (" + compiler + ")")
                .contains("time limit of 2s").contains("process tree was killed");
        assertThat(r.logTail()).contains("hanging-compiler: compiling, never finishing")
                .contains("# running at the time limit, now killed:\n#   pid ")
                .contains(compiler + " " + pidFile).contains("sleep 600")
                .endsWith("# " + r.message());
        assertThat(r.phases()).singleElement().satisfies(p -> {
            assertThat(p.name()).isEqualTo(Phase.COMMAND);
            assertThat(p.exitCode()).isNull();
        });
        Map<Long, String> pids = pids(pidFile);
        assertThat(pids.values()).containsExactly("sleep", "sleep", "hanging-compiler");
        awaitAllGone();
    }

    @Test
    void cancellingAHangingCompilerLeavesNoProcessBehind() throws Exception {
        Path compiler = hangingCompiler();
        Path pidFile = dir.resolve("cancelled.pids");
        CancellationToken token = new CancellationToken();
        CompletableFuture<BuildResult> result = CompletableFuture.supplyAsync(
                () -> runner.run(command("cancel", 0, compiler.toString(), pidFile.toString()), phase -> { }, token));
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(pidFile));

        token.cancel();

        BuildResult r = result.get(20, TimeUnit.SECONDS);
        assertThat(r.outcome()).isEqualTo(Outcome.CANCELLED);
        assertThat(r.signal()).isNull();
        assertThat(pids(pidFile)).hasSize(3);
        awaitAllGone();
    }
}
