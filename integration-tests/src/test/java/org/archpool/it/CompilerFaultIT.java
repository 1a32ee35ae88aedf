package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.archpool.testing.MarkedProcesses;
import org.archpool.testing.RequiredTool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Compilers that crash or hang, run by the real distribution: a signal is reported {@code failed} with its
 * name and is not retried; a time limit (manifest or {@code --timeout}) is {@code timed_out}, names the
 * phase, and kills the job's whole process tree, down to the compiler's own children. The fixture
 * compilers are the scripts in {@code fault-tools/}.
 */
// it asserts that a time limit of 3 s ends a job between 2.9 and 7 s: never beside a compile
@Isolated
class CompilerFaultIT {

    private static final String[] TOOLS = {"segfaulting-compiler", "aborting-compiler", "killed-compiler",
        "hanging-compiler"};

    /**
     * Copies the fixture compilers into {@code dir/tools} and makes them executable (git may not keep modes),
     * with the link to {@code sleep} that the hanging compiler runs.
     */
    private static Path tools(Path dir) throws Exception {
        Path tools = Files.createDirectories(dir.resolve("tools"));
        for (String name : TOOLS) {
            Path source = Path.of(CompilerFaultIT.class.getResource("/fault-tools/" + name).toURI());
            Path target = tools.resolve(name);
            Files.copy(source, target);
            Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        MarkedProcesses.markedSleep(tools, "sleep");
        return tools;
    }

    private static String commandJob(String id, String extra, String... argv) {
        StringBuilder b = new StringBuilder("{\"id\":\"" + id + "\",\"kind\":\"command\",\"argv\":[");
        for (int i = 0; i < argv.length; i++) {
            b.append(i == 0 ? "" : ",").append('"').append(argv[i]).append('"');
        }
        return b.append("]").append(extra).append("}").toString();
    }

    private static JsonNode byId(JsonNode report, String id) {
        for (JsonNode j : report.path("jobs")) {
            if (j.path("id").asText().equals(id)) {
                return j;
            }
        }
        throw new AssertionError("no job " + id + " in " + report);
    }

    /** The "PID NAME" lines the hanging compiler wrote, in its order. */
    private static Map<Long, String> recordedProcesses(Path pidFile) throws IOException {
        Map<Long, String> processes = new LinkedHashMap<>();
        for (String line : Files.readAllLines(pidFile)) {
            if (!line.isBlank()) {
                String[] parts = line.strip().split(" ", 2);
                processes.put(Long.parseLong(parts[0]), parts.length > 1 ? parts[1] : "?");
            }
        }
        return processes;
    }

    /**
     * No process whose command line names the test's folder is left (the compiler, its sleeps, CMake): the
     * recorded PIDs are those of the job's PID namespace, which mean nothing here.
     */
    private static void awaitAllGone(Path dir) {
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(MarkedProcesses.alive(dir.toString()))
                .as("processes of the timed-out job still alive").isEmpty());
    }

    @Test
    void aCompilerKilledBySignalIsFailedNamingTheSignalAndIsNotRetried(@TempDir Path dir) throws Exception {
        Path tools = tools(dir);
        Path manifest = Archpool.manifest(dir, "{\"version\":1,\"jobs\":["
                + commandJob("segv", "", tools.resolve("segfaulting-compiler").toString(), "k1.cu") + ","
                + commandJob("abrt", "", tools.resolve("aborting-compiler").toString(), "k2.cu") + ","
                + commandJob("killed", "", tools.resolve("killed-compiler").toString(), "k3.cu") + ","
                + commandJob("fine", "", "sh", "-c", "echo compiled > fine.txt") + "]}");
        Path report = dir.resolve("report.json");

        Archpool.Run run = new Archpool().in(dir).run("build", manifest.toString(), "--arch", "90",
                "--no-toolchain-check", "-j1", "-k", "--retries", "2", "--report", report.toString());

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
        JsonNode r = Archpool.json(report);
        JsonNode segv = byId(r, "segv");
        assertThat(segv.path("outcome").asText()).as(segv.toString()).isEqualTo("failed");
        assertThat(segv.path("signal").asText()).isEqualTo("SIGSEGV");
        assertThat(segv.path("exitCode").asInt()).isEqualTo(139);
        assertThat(segv.path("attempts").asInt()).as("a compiler's crash is not the worker's: no retry").isEqualTo(1);
        assertThat(segv.path("attemptFailures")).isEmpty();
        assertThat(segv.path("message").asText())
                .startsWith("command (" + tools.resolve("segfaulting-compiler") + ") was killed by SIGSEGV");
        assertThat(segv.path("logTail").asText()).contains("segfaulting-compiler: compiling k1.cu")
                .doesNotContain("still alive");
        for (String[] expected : new String[][] {{"abrt", "SIGABRT", "134"}, {"killed", "SIGKILL", "137"}}) {
            JsonNode job = byId(r, expected[0]);
            assertThat(job.path("outcome").asText()).as(job.toString()).isEqualTo("failed");
            assertThat(job.path("signal").asText()).isEqualTo(expected[1]);
            assertThat(job.path("exitCode").asText()).isEqualTo(expected[2]);
            assertThat(job.path("attempts").asInt()).isEqualTo(1);
            assertThat(job.path("message").asText()).contains("was killed by " + expected[1]);
        }
        assertThat(byId(r, "fine").path("outcome").asText()).isEqualTo("succeeded");
        assertThat(Files.readString(dir.resolve("fine.txt"))).contains("compiled");
        assertThat(r.path("outcomes").path("failed").asInt()).isEqualTo(3);
        assertThat(r.path("pool").path("workerEvents").toString()).as("no worker died").doesNotContain("\"died\"");
        assertThat(run.stdout()).contains("segv failed").contains("SIGSEGV").contains("1 of 4 jobs succeeded");
    }

    @Test
    void aHangingCompilerTimesOutAtTheManifestsLimitAndItsChildrenAreKilled(@TempDir Path dir) throws Exception {
        Path tools = tools(dir);
        Path pidFile = dir.resolve("hang.pids");
        Path manifest = Archpool.manifest(dir, "{\"version\":1,\"jobs\":["
                + commandJob("hang", ",\"timeout\":\"2s\"", tools.resolve("hanging-compiler").toString(),
                        pidFile.toString()) + ","
                + commandJob("fine", "", "sh", "-c", "echo compiled > fine.txt") + "]}");
        Path report = dir.resolve("report.json");

        Archpool.Run run = new Archpool().in(dir).run("build", manifest.toString(), "--arch", "90",
                "--no-toolchain-check", "-j1", "-k", "--report", report.toString());

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
        JsonNode hang = byId(Archpool.json(report), "hang");
        assertThat(hang.path("outcome").asText()).as(hang.toString()).isEqualTo("timed_out");
        assertThat(hang.path("commandMs").asLong()).isBetween(1900L, 6000L);
        assertThat(hang.path("attempts").asInt()).isEqualTo(1);
        assertThat(hang.has("signal")).as("archpool's own kill is no signal to report").isFalse();
        assertThat(hang.path("message").asText()).startsWith("timed out in the command phase")
                .contains("time limit of 2s").contains("process tree was killed");
        assertThat(hang.path("logTail").asText()).contains("hanging-compiler: compiling, never finishing")
                .contains("hanging-compiler " + pidFile).contains("sleep 600");
        assertThat(hang.path("phases").get(hang.path("phases").size() - 1).path("name").asText()).isEqualTo("command");
        assertThat(byId(Archpool.json(report), "fine").path("outcome").asText()).isEqualTo("succeeded");

        Map<Long, String> processes = recordedProcesses(pidFile);
        assertThat(processes.values()).as("the worker JVM ran the compiler directly")
                .containsExactly("sleep", "sleep", "hanging-compiler");
        awaitAllGone(dir);
    }

    @Test
    void aCmakeBuildThatHangsTimesOutInTheBuildPhaseAndCmakeNinjaAndTheCompilerAreKilled(@TempDir Path dir)
            throws Exception {
        RequiredTool.require("cmake", "ninja");
        Path tools = tools(dir);
        Path pidFile = dir.resolve("hang.pids");
        Files.createDirectories(dir.resolve("hang"));
        Files.writeString(dir.resolve("hang/CMakeLists.txt"), "cmake_minimum_required(VERSION 3.16)\n"
                + "project(hang NONE)\n"
                + "add_custom_target(hang ALL COMMAND \"" + tools.resolve("hanging-compiler") + "\" \"" + pidFile
                + "\" kernels.cu)\n");
        Files.createDirectories(dir.resolve("fine"));
        Files.writeString(dir.resolve("fine/CMakeLists.txt"), "cmake_minimum_required(VERSION 3.16)\n"
                + "project(fine NONE)\n"
                + "add_custom_target(fine ALL COMMAND \"${CMAKE_COMMAND}\" -E touch built.txt)\n");
        Path manifest = Archpool.manifest(dir, "{\"version\":1,\"jobs\":["
                + "{\"id\":\"hang\",\"kind\":\"cmake\",\"sourceDir\":\"hang\"},"
                + "{\"id\":\"fine\",\"kind\":\"cmake\",\"sourceDir\":\"fine\"}]}");
        Path report = dir.resolve("report.json");

        Archpool.Run run = new Archpool().in(dir).run("build", manifest.toString(), "--arch", "90",
                "--no-toolchain-check", "-j1", "-k", "--timeout", "3s", "--report", report.toString());

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
        JsonNode r = Archpool.json(report);
        JsonNode hang = byId(r, "hang");
        assertThat(hang.path("outcome").asText()).as(hang.toString()).isEqualTo("timed_out");
        assertThat(hang.path("message").asText()).startsWith("timed out in the build phase: build (cmake)")
                .contains("time limit of 3s");
        assertThat(hang.path("phases").get(0).path("name").asText()).isEqualTo("configure");
        assertThat(hang.path("phases").get(0).path("exitCode").asInt()).isZero();
        assertThat(hang.path("phases").get(1).path("name").asText()).isEqualTo("build");
        assertThat(hang.path("configureMs").asLong() + hang.path("buildMs").asLong()).isBetween(2900L, 7000L);
        assertThat(hang.path("logTail").asText())
                .as("Ninja holds a command's output until it ends: the log names what the time limit killed")
                .contains("# running at the time limit, now killed:")
                .contains("cmake --build").contains("ninja")
                .contains("hanging-compiler " + pidFile + " kernels.cu")
                .contains("sleep 600");
        assertThat(hang.has("signal")).isFalse();
        assertThat(byId(r, "fine").path("outcome").asText()).isEqualTo("succeeded");
        assertThat(dir.resolve("build/fine/built.txt")).exists();

        Map<Long, String> processes = recordedProcesses(pidFile);
        assertThat(processes.values()).as("the compiler's children, itself, and what started it")
                .containsExactly("sleep", "sleep", "hanging-compiler", "sh", "ninja", "cmake");
        awaitAllGone(dir);
    }
}
