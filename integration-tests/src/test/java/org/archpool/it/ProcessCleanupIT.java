package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.archpool.testing.MarkedProcesses;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * No process outlives its job, however the job, its worker or the build ends, and Ctrl-C reaches the
 * coordinator's probes and compiler check. Every process a test starts carries a marker of its own in its
 * command line (a link to {@code sleep} named after it), so that the test finds them through {@code /proc}
 * whatever PID namespace they run in, and never touches another's.
 */
class ProcessCleanupIT {

    @TempDir
    Path dir;

    private final String marker = MarkedProcesses.newMarker();
    private Path sleep;

    @AfterEach
    void killLeftovers() {
        MarkedProcesses.killAll(marker);
    }

    private Path sleep() throws Exception {
        if (sleep == null) {
            sleep = MarkedProcesses.markedSleep(Files.createDirectories(dir.resolve("bin")), marker);
        }
        return sleep;
    }

    private static String commandJob(String id, String script) {
        return "{\"id\":\"" + id + "\",\"kind\":\"command\",\"argv\":[\"sh\",\"-c\",\"" + script + "\"]}";
    }

    private Process start(List<String> prefix, String... args) throws Exception {
        List<String> command = new ArrayList<>(prefix);
        command.add(Archpool.home().resolve("bin/archpool").toString());
        command.addAll(List.of(args));
        return Archpool.process(command).directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile())
                .start();
    }

    private void awaitMarked(int count) {
        await().atMost(Duration.ofSeconds(60)).until(() -> MarkedProcesses.alive(marker).size() >= count);
    }

    private void awaitNoneLeft() {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(MarkedProcesses.alive(marker))
                .as("processes of the build still running").isEmpty());
    }

    private static Optional<ProcessHandle> workerOf(ProcessHandle p) {
        Optional<ProcessHandle> at = p.parent();
        while (at.isPresent() && !at.get().info().commandLine().orElse("").contains("org.archpool.worker.WorkerMain")) {
            at = at.get().parent();
        }
        return at;
    }

    @Test
    void aWorkerKilledBySigkillTakesItsJobsProcessesAndTheRetrySucceeds() throws Exception {
        Path sleep = sleep();
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + commandJob("victim",
                "if [ -f tried ]; then echo second try; else touch tried; (" + sleep + " 1101 &); " + sleep
                        + " 1102 & " + sleep + " 1103; fi") + "]}");
        Process coordinator = start(List.of(), "build", "archpool.json", "--arch", "90", "-j1",
                "--report", dir.resolve("r.json").toString());
        awaitMarked(3);
        ProcessHandle worker = workerOf(MarkedProcesses.alive(marker).get(0)).orElseThrow();
        worker.destroyForcibly();
        assertThat(coordinator.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(coordinator.exitValue()).as(Files.readString(dir.resolve("err.txt"))).isZero();
        JsonNode victim = Archpool.json(dir.resolve("r.json")).path("jobs").get(0);
        assertThat(victim.path("outcome").asText()).isEqualTo("succeeded");
        assertThat(victim.path("attempts").asInt()).isEqualTo(2);
        assertThat(victim.path("attemptFailures").get(0).asText()).contains("status 137");
        awaitNoneLeft();
    }

    @ParameterizedTest
    @ValueSource(strings = {"process", "thread"})
    void whatAJobLeftRunningEndsWithTheJob(String mode) throws Exception {
        Path sleep = sleep();
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + commandJob("leaver", sleep + " 1101 & exit 0") + ","
                + commandJob("orphaner", "(" + sleep + " 1102 &); exit 0") + "]}");
        Archpool.Run run = new Archpool().in(dir).run("build", "archpool.json", "--arch", "90", "-j2",
                "--mode", mode, "--report", dir.resolve("r.json").toString());
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(MarkedProcesses.alive(marker)).as("left running after the build").isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"process", "thread"})
    void killingTheBuildsProcessGroupLeavesNothing(String mode) throws Exception {
        Path sleep = sleep();
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + commandJob("a", sleep + " 1101 & " + sleep + " 1102; wait")
                + "," + commandJob("b", "(" + sleep + " 1103 &); " + sleep + " 1104") + "]}");
        // setsid: the build leads a process group of its own, which a user's kill -9 -PGID ends
        Process coordinator = start(List.of("setsid", "-w"), "build", "archpool.json", "--arch", "90", "-j2",
                "--mode", mode);
        awaitMarked(4);
        Process kill = new ProcessBuilder("kill", "-KILL", "--", "-" + coordinator.pid()).inheritIO().start();
        assertThat(kill.waitFor()).isZero();
        assertThat(coordinator.waitFor(10, TimeUnit.SECONDS)).isTrue();
        awaitNoneLeft();
    }

    /** A tool that ignores SIGINT and SIGTERM, starts a child, and never ends; both carry the marker. */
    private Path hangingTool(String name) throws Exception {
        Path tool = dir.resolve("bin").resolve(name);
        Files.writeString(tool, "#!/bin/sh\ntrap '' INT TERM\n" + sleep() + " 1101 &\nexec " + sleep() + " 1102\n");
        Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));
        return tool;
    }

    private void interruptAndExpect130(Process coordinator, String signal) throws Exception {
        awaitMarked(2);
        new ProcessBuilder("kill", "-" + signal, Long.toString(coordinator.pid())).start().waitFor();
        assertThat(coordinator.waitFor(10, TimeUnit.SECONDS)).isTrue();
        String err = Files.readString(dir.resolve("err.txt"));
        assertThat(coordinator.exitValue()).as(err).isEqualTo(130);
        assertThat(err).contains("archpool: interrupted").contains("resolving the target")
                .doesNotContain("Exception");
        awaitNoneLeft();
    }

    @ParameterizedTest
    @ValueSource(strings = {"INT", "TERM"})
    void ctrlCDuringAHangingDetectionProbeKillsItAndExits130(String signal) throws Exception {
        Path bin = hangingTool("rocminfo").getParent();
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + commandJob("j", "echo hi") + "]}");
        List<String> env = List.of("env", "PATH=" + bin + ":" + System.getenv("PATH"), "CUDAARCHS=", "HIPARCHS=");
        Process coordinator = start(env, "build", "archpool.json", "-j1", "--probe-timeout", "5m");
        interruptAndExpect130(coordinator, signal);
    }

    @ParameterizedTest
    @ValueSource(strings = {"INT", "TERM"})
    void ctrlCDuringAHangingCompilerCheckKillsItAndExits130(String signal) throws Exception {
        Path nvcc = hangingTool("nvcc");
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + commandJob("j", "echo hi") + "]}");
        List<String> env = List.of("env", "CUDACXX=" + nvcc);
        Process coordinator = start(env, "build", "archpool.json", "-j1", "--arch", "90", "--probe-timeout", "5m");
        interruptAndExpect130(coordinator, signal);
    }
}
