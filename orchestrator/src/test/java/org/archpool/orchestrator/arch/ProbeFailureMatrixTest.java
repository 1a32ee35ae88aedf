package org.archpool.orchestrator.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.archpool.orchestrator.tool.ProcessToolRunner;
import org.archpool.orchestrator.tool.ToolRunner;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every way a probe tool can fail, with real executables on a PATH of the test's own: each becomes its own
 * diagnostic, none an exception, none a device.
 */
@Tag("process")
class ProbeFailureMatrixTest {

    @TempDir
    Path bin;

    private static final Map<String, BiFunction<ToolRunner, Duration, ToolDetector>> DETECTORS = Map.of(
            "rocminfo", ToolDetector::rocminfo,
            "amdgpu-arch", ToolDetector::amdgpuArch,
            "nvidia-smi", ToolDetector::nvidiaSmi);

    static Stream<Arguments> matrix() {
        Stream.Builder<Arguments> cases = Stream.builder();
        for (String tool : new String[] {"rocminfo", "amdgpu-arch", "nvidia-smi"}) {
            cases.add(Arguments.of(tool, null, "rwxr-xr-x", "missing", "not on the PATH"));
            cases.add(Arguments.of(tool, "echo hi", "rw-r--r--", "not_executable", "not executable"));
            cases.add(Arguments.of(tool, "echo 'Failed to get device count' >&2; exit 1", "rwxr-xr-x", "failed",
                    "exited with status 1"));
            cases.add(Arguments.of(tool, "exec /bin/sleep 300", "rwxr-xr-x", "timed_out", "did not finish within 1500 ms"));
            cases.add(Arguments.of(tool, "/usr/bin/head -c 300 /dev/urandom | /usr/bin/base64; echo '\u0001\u0002'", "rwxr-xr-x",
                    "unparseable", null));
            cases.add(Arguments.of(tool, "exit 0", "rwxr-xr-x",
                    tool.equals("rocminfo") ? "unparseable" : "no_devices", null));
        }
        return cases.build();
    }

    @ParameterizedTest(name = "{0}: {3}")
    @MethodSource("matrix")
    void eachFailureIsItsOwnDiagnostic(String tool, String script, String mode, String status, String says)
            throws Exception {
        if (script != null) {
            Path f = bin.resolve(tool);
            Files.writeString(f, "#!/bin/sh\n" + script + "\n");
            Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
        }
        ToolRunner runner = new ProcessToolRunner(Map.of("PATH", bin.toString()), Clock.systemUTC());
        long start = System.nanoTime();
        Detection d = DETECTORS.get(tool).apply(runner, Duration.ofMillis(1500)).detect();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        assertThat(d.devices()).isEmpty();
        assertThat(d.report().status()).isEqualTo(status);
        assertThat(d.report().tool()).isEqualTo(tool);
        assertThat(d.report().message()).isNotBlank();
        if (says != null) {
            assertThat(d.report().message()).contains(says);
        }
    }
}
