package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.archpool.testing.RequiredTool;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code clients/python/examples/build_kernels.py}, run as the client's README says against the built distribution
 * (through {@code archpool serve}), in a copy of the client: it builds every kernel for sm_90, prints one line per
 * kernel, and exits 0; with a kernel that does not compile it exits 1 and says why; without archpool or an
 * architecture it stops with archpool's own status.
 */
class PythonExampleIT {

    record Run(int exitCode, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout\n" + stdout + "\n--- stderr\n" + stderr;
        }
    }

    @BeforeAll
    static void tools() {
        RequiredTool.require("python3", "cmake", "ninja", "nvcc");
    }

    private static String launcher() {
        return Archpool.home().resolve("bin/archpool").toString();
    }

    /** A copy of the Python client's package and examples without build output; the example folder. */
    private static Path example(Path dir) throws Exception {
        Path client = Archpool.repo().resolve("clients/python");
        Archpool.copyTree(client.resolve("archpool"), dir.resolve("python/archpool"));
        return Archpool.copyTree(client.resolve("examples"), dir.resolve("python/examples"));
    }

    /**
     * The report of the example's {@code serve}, valid against the schema. Not {@code ReportSchema.assertConsistent}:
     * that is a build's rule (exit code 1 when a job failed), and a serve that was shut down exits 0.
     */
    private static JsonNode servedReport(Path example) throws Exception {
        JsonNode report = Archpool.json(example.resolve("build/report.json"));
        assertThat(ReportSchema.problems(report)).as("the report against docs/report.schema.json:\n%s",
                report.toPrettyString()).isEmpty();
        return report;
    }

    private static Run python(Path example, Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(python3(), example.resolve("build_kernels.py").toString()));
        command.addAll(List.of(args));
        Path out = example.resolve("stdout.txt");
        Path err = example.resolve("stderr.txt");
        ProcessBuilder pb = Archpool.process(command).directory(example.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().remove("ARCHPOOL_HOME");
        pb.environment().remove("PYTHONPATH");
        pb.environment().remove("CUDAARCHS");
        pb.environment().remove("HIPARCHS");
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError("build_kernels.py did not finish in 5 minutes");
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    private static String python3() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, "python3");
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        throw new AssertionError("python3 is not on the PATH");
    }

    @Test
    void buildsEveryKernelForTheArchAndPrintsOneLineEach(@TempDir Path dir) throws Exception {
        Path example = example(dir);

        Run run = python(example, Map.of("ARCHPOOL_HOME", Archpool.home().toString()), "--arch", "90", "-j2");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.stdout()).as(run.toString())
                .contains("kernels built by archpool ")
                .contains(" for cuda 90 (flag, --arch 90)")
                .containsPattern("(?m)^  axpy_f32 +succeeded .* libpointwise_axpy_float\\.so \\[compute_90 sm_90\\]$")
                .containsPattern("(?m)^  axpy_f64 +succeeded .* libpointwise_axpy_double\\.so \\[compute_90 sm_90\\]$")
                .containsPattern("(?m)^  scale_f32 +succeeded .* libpointwise_scale_float\\.so \\[compute_90 sm_90\\]$")
                .containsPattern("(?m)^  softmax +succeeded .* softmax\\.fatbin \\[compute_90 sm_90\\]$")
                .contains("4 of 4 kernels built (report: " + example.resolve("build/report.json") + ")");
        JsonNode report = servedReport(example);
        // serve names each job by its id and a number unique in that serve (axpy_f32.1)
        assertThat(report.path("jobs").findValuesAsText("id")).map(id -> id.replaceAll("\\.\\d+$", ""))
                .containsExactlyInAnyOrder("axpy_f32", "axpy_f64", "scale_f32", "softmax");
        assertThat(example.resolve("build/axpy_f64/libpointwise_axpy_double.so")).isRegularFile();
        assertThat(example.resolve("build/softmax/softmax.fatbin")).isRegularFile();
    }

    @Test
    void aKernelThatDoesNotCompileMakesItExitOneAndSaysWhy(@TempDir Path dir) throws Exception {
        Path example = example(dir);

        Run run = python(example, Map.of("CUDAARCHS", "90"), "--archpool", launcher(), "--only", "softmax,broken",
                "--demo-failure", "-j2");

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
        assertThat(run.stdout()).as(run.toString())
                .contains(" for cuda 90 (env:CUDAARCHS, CUDAARCHS=90)")
                .containsPattern("(?m)^  softmax +succeeded ")
                .containsPattern("(?m)^  broken +failed .* command \\(nvcc\\) exited with status \\d+$")
                .contains("| broken.cu(1): error: identifier \"undeclared_value\" is undefined")
                .containsPattern("log: " + Pattern.quote(example.resolve("build/.archpool/logs") + "/broken.")
                        + "\\d+\\.log")
                .contains("1 of 2 kernels built");
        JsonNode outcomes = servedReport(example).path("outcomes");
        assertThat(outcomes.path("succeeded").asInt()).as(outcomes.toString()).isEqualTo(1);
        assertThat(outcomes.path("failed").asInt()).as(outcomes.toString()).isEqualTo(1);
    }

    @Test
    void withoutArchpoolOrAnArchitectureItStopsWithTheRightStatus(@TempDir Path dir) throws Exception {
        Path example = example(dir);

        Run missing = python(example, Map.of(), "--archpool", dir.resolve("no-archpool-here").toString());
        assertThat(missing.exitCode()).as(missing.toString()).isEqualTo(2);
        assertThat(missing.stderr()).contains("no-archpool-here").contains("is not an executable file")
                .contains("--archpool").doesNotContain("Traceback");

        // Detection tools that find nothing, whatever this machine has: archpool refuses to guess (exit 3).
        Path bin = Files.createDirectories(dir.resolve("bin"));
        for (String tool : new String[] {"nvidia-smi", "rocminfo", "amdgpu-arch"}) {
            Files.writeString(bin.resolve(tool), "#!/bin/sh\necho 'no devices' >&2\nexit 9\n");
            Files.setPosixFilePermissions(bin.resolve(tool), PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Map<String, String> env = new HashMap<>();
        env.put("PATH", bin + File.pathSeparator + System.getenv("PATH"));
        Run unresolved = python(example, env, "--archpool", launcher(), "--only", "softmax");
        assertThat(unresolved.exitCode()).as(unresolved.toString()).isEqualTo(3);
        assertThat(unresolved.stderr()).contains("no GPU architecture could be resolved")
                .contains("archpool serve exited with status 3").doesNotContain("Traceback");
        assertThat(example.resolve("build/report.json")).doesNotExist();
    }
}
