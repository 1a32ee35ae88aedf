package org.archpool.orchestrator.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.archpool.testing.MarkedProcesses;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real executables on a PATH of the test's own: each way a probe tool can misbehave is told apart. */
@Tag("process")
class ToolRunnerTest {

    @TempDir
    Path bin;

    private ProcessToolRunner runner() {
        return new ProcessToolRunner(Map.of("PATH", bin.toString()), Clock.systemUTC());
    }

    private void tool(String name, String script, String mode) throws Exception {
        Path f = bin.resolve(name);
        Files.writeString(f, "#!/bin/sh\n" + script + "\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
    }

    @Test
    void runsATool() throws Exception {
        tool("probe", "echo out; echo err >&2; exit 3", "rwxr-xr-x");
        ToolOutput out = runner().run(List.of("probe", "--x"), Duration.ofSeconds(10));
        assertThat(out.status()).isEqualTo(ToolOutput.Status.EXITED);
        assertThat(out.exitCode()).isEqualTo(3);
        assertThat(out.stdout()).isEqualTo("out\n");
        assertThat(out.stderr()).isEqualTo("err\n");
    }

    @Test
    void tellsMissingFromNotExecutableFromHung() throws Exception {
        assertThat(runner().run(List.of("rocminfo"), Duration.ofSeconds(10)).status())
                .isEqualTo(ToolOutput.Status.MISSING);
        tool("rocminfo", "exit 0", "rw-r--r--");
        assertThat(runner().run(List.of("rocminfo"), Duration.ofSeconds(10)).status())
                .isEqualTo(ToolOutput.Status.NOT_EXECUTABLE);
        tool("nvidia-smi", "exec /bin/sleep 300", "rwxr-xr-x");
        long start = System.nanoTime();
        ToolOutput hung = runner().run(List.of("nvidia-smi"), Duration.ofMillis(500));
        assertThat(hung.status()).isEqualTo(ToolOutput.Status.TIMED_OUT);
        assertThat(hung.problem()).contains("500 ms");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void aToolIsContainedLikeAStepSoNothingItStartedOutlivesIt() throws Exception {
        String marker = MarkedProcesses.newMarker();
        Path sleep = MarkedProcesses.markedSleep(bin, marker);
        try {
            tool("rocminfo", sleep + " 1101 & (" + sleep + " 1102 &); echo found", "rwxr-xr-x");
            ToolOutput out = runner().run(List.of("rocminfo"), Duration.ofSeconds(30));
            assertThat(out.stdout()).isEqualTo("found\n");
            assertThat(MarkedProcesses.alive(marker)).as("what the probe left running").isEmpty();
            tool("nvidia-smi", "trap '' INT TERM; " + sleep + " 1103 & exec " + sleep + " 1104", "rwxr-xr-x");
            assertThat(runner().run(List.of("nvidia-smi"), Duration.ofMillis(500)).status())
                    .isEqualTo(ToolOutput.Status.TIMED_OUT);
            await().atMost(Duration.ofSeconds(5)).until(() -> MarkedProcesses.alive(marker).isEmpty());
        } finally {
            MarkedProcesses.killAll(marker);
        }
    }

    @Test
    void probesSeeTheCoordinatorsEnvironmentWithoutVisibilityVariables() throws Exception {
        tool("probe", "echo \"$MINE [${ROCR_VISIBLE_DEVICES-unset}] [${CUDA_VISIBLE_DEVICES-unset}]\"", "rwxr-xr-x");
        ProcessToolRunner runner = new ProcessToolRunner(Map.of("PATH", bin.toString(), "MINE", "kept",
                "ROCR_VISIBLE_DEVICES", "1", "CUDA_VISIBLE_DEVICES", ""), Clock.systemUTC());
        assertThat(runner.run(List.of("probe"), Duration.ofSeconds(10)).stdout()).isEqualTo("kept [unset] [unset]\n");
    }

    @Test
    void onceMeansOnce() throws Exception {
        Path count = bin.resolve("count");
        tool("probe", "echo x >> " + count, "rwxr-xr-x");
        OnceToolRunner once = new OnceToolRunner(runner());
        for (int i = 0; i < 3; i++) {
            once.run(List.of("probe"), Duration.ofSeconds(10));
        }
        assertThat(Files.readAllLines(count)).hasSize(1);
    }
}
