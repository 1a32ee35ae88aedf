package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.archpool.testing.MarkedProcesses;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code --isolate-devices}: each run of archpool is in a mount namespace of the test's own in which every path that
 * isolation masks holds a stand-in that does read data ({@code gpu-stand-ins.sh}: character devices with
 * {@code /dev/zero}'s numbers, files in the driver's and KFD's views), so that a job which reads one shows whether it
 * was masked. The machine's own {@code /dev} is not changed.
 */
class DeviceIsolationIT {

    /** The paths a job tries; each prints how many bytes it read (0 when masked: it cannot be opened, or is gone). */
    private static final List<String> STAND_INS = List.of("/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-uvm",
            "/dev/kfd", "/dev/dri/renderD128", "/dev/nvidia-caps/nvidia-cap1",
            "/sys/class/kfd/kfd/topology/nodes/1/properties", "/sys/devices/virtual/kfd/kfd/topology/nodes/1/properties",
            "/proc/driver/nvidia/gpus/0000:01:00.0/information");

    private final String marker = MarkedProcesses.newMarker();

    @TempDir
    Path dir;

    @AfterEach
    void killLeftovers() {
        MarkedProcesses.killAll(marker);
    }

    private List<String> standIns() throws Exception {
        Path script = Path.of(DeviceIsolationIT.class.getResource("/gpu-stand-ins.sh").toURI());
        return List.of("unshare", "--mount", "--propagation", "private", "--", "sh", script.toString());
    }

    private static List<String> asNobody() {
        return List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--");
    }

    /** A job that reads each stand-in into job/probe.txt, and leaves a marked sleep running behind it. */
    private void manifest() throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path job = Files.createDirectories(dir.resolve("job"));
        Files.setPosixFilePermissions(job, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path sleep = MarkedProcesses.markedSleep(Files.createDirectories(dir.resolve("bin")), marker);
        StringBuilder probe = new StringBuilder();
        for (String p : STAND_INS) {
            probe.append("printf '%s ' $(head -c 4 ").append(p).append(" 2>/dev/null | wc -c); ");
        }
        probe.append("echo; echo NVIDIA_VISIBLE_DEVICES=$NVIDIA_VISIBLE_DEVICES; id -u; ")
                .append(sleep).append(" 1101 &\n");
        Files.writeString(dir.resolve("probe.sh"), probe.toString());
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[{\"id\":\"probe\",\"kind\":\"command\",\"cwd\":\"job\","
                + "\"argv\":[\"sh\",\"-c\",\"sh ../probe.sh > probe.txt 2>&1\"]}]}");
    }

    private Archpool.Run build(List<String> prefix, String mode, String... isolation) throws Exception {
        List<String> args = new ArrayList<>(List.of("build", dir.resolve("archpool.json").toString(), "--mode", mode,
                "--no-toolchain-check", "--arch", "90", "-j1"));
        args.addAll(List.of(isolation));
        return new Archpool().in(dir).under(prefix).run(args.toArray(String[]::new));
    }

    private List<String> probe() throws Exception {
        return Files.readAllLines(dir.resolve("job/probe.txt")).stream().map(String::strip).toList();
    }

    private String deviceIsolation() throws Exception {
        JsonNode report = Archpool.json(dir.resolve(".archpool/report.json"));
        return report.path("pool").path("deviceIsolation").asText();
    }

    private void assertJobProcessesEnded() {
        await().atMost(Duration.ofSeconds(10)).until(() -> MarkedProcesses.alive(marker).isEmpty());
    }

    private static final String ALL_MASKED = "0 0 0 0 0 0 0 0 0";
    /**
     * As root every step mounts a {@code /proc} of its own (its PID namespace's), in which the driver's stand-in,
     * made in the test's {@code /proc}, is not: the last one reads nothing even unmasked.
     */
    private static final String NONE_MASKED = "4 4 4 4 4 4 4 4 0";

    @ParameterizedTest
    @ValueSource(strings = {"process", "thread"})
    void asRootOnMasksEveryDeviceAndDriverView(String mode) throws Exception {
        manifest();
        Archpool.Run run = build(standIns(), mode, "--isolate-devices", "on");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(probe()).containsExactly(ALL_MASKED, "NVIDIA_VISIBLE_DEVICES=void", "0");
        assertThat(deviceIsolation()).isEqualTo("namespace");
        assertJobProcessesEnded();
    }

    @ParameterizedTest
    @ValueSource(strings = {"process", "thread"})
    void anotherUserIsMaskedRunsAsThemselvesAndOwnsWhatTheJobWrites(String mode) throws Exception {
        manifest();
        List<String> prefix = new ArrayList<>(standIns());
        prefix.addAll(asNobody());
        // the tests' cache folder is root's, which another user's build rightly refuses to trust
        Archpool.Run run = build(prefix, mode, "--isolate-devices", "on", "--no-cache");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(probe()).containsExactly(ALL_MASKED, "NVIDIA_VISIBLE_DEVICES=void", "65534");
        assertThat(Files.getAttribute(dir.resolve("job/probe.txt"), "unix:uid")).isEqualTo(65534);
        assertThat(deviceIsolation()).isEqualTo("namespace");
        assertJobProcessesEnded();
    }

    @ParameterizedTest
    @ValueSource(strings = {"process", "thread"})
    void offMasksNothingButTheJobsProcessesStillEndWithIt(String mode) throws Exception {
        manifest();
        Archpool.Run run = build(standIns(), mode, "--isolate-devices", "off");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(probe()).containsExactly(NONE_MASKED, "NVIDIA_VISIBLE_DEVICES=void", "0");
        assertThat(deviceIsolation()).isEqualTo("environment");
        assertThat(run.stderr()).doesNotContain("note:");
        assertJobProcessesEnded();
    }

    @Test
    void byDefaultDevicesAreMaskedWhereTheKernelAllowsIt() throws Exception {
        manifest();
        Archpool.Run run = build(standIns(), "process");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(probe().get(0)).isEqualTo(ALL_MASKED);
        assertThat(deviceIsolation()).isEqualTo("namespace");
        assertThat(run.stderr()).doesNotContain("note:");
    }

    @Test
    void archSaysWhatABuildHereWouldGet() throws Exception {
        Archpool.Run masked = new Archpool().in(dir).under(standIns()).run("arch", "--arch", "90");
        assertThat(masked.exitCode()).as(masked.toString()).isZero();
        assertThat(masked.stdout().strip().lines().reduce((a, b) -> b).orElseThrow())
                .startsWith("workers:  GPUs hidden by namespace (--isolate-devices auto): ").contains("/dev/nvidia*");
        Archpool.Run plain = new Archpool().in(dir).under(noMountNamespaces()).run("arch", "--arch", "90");
        assertThat(plain.stdout().strip().lines().reduce((a, b) -> b).orElseThrow())
                .startsWith("workers:  GPUs hidden by environment (--isolate-devices auto): ")
                .contains("nvidia-smi, NVML and rocm_agent_enumerator ignore them");
    }

    /** Mount namespaces denied without touching the machine: their limit set to 0 in a user namespace of the test's. */
    private static List<String> noMountNamespaces() {
        return List.of("unshare", "--user", "--map-root-user", "--", "sh", "-c",
                "echo 0 > /proc/sys/user/max_mnt_namespaces && exec \"$@\"", "sh");
    }

    @ParameterizedTest
    @ValueSource(strings = {"process", "thread"})
    void onRefusesToStartWhereMountNamespacesAreDenied(String mode) throws Exception {
        manifest();
        Archpool.Run run = build(noMountNamespaces(), mode, "--isolate-devices", "on");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
        assertThat(run.stderr()).startsWith("archpool: --isolate-devices on: ")
                .contains("max_mnt_namespaces").contains("--isolate-devices auto")
                .doesNotContain("Exception").doesNotContain("\tat ");
        assertThat(run.stderr().strip().lines()).hasSize(1);
        assertThat(dir.resolve("job/probe.txt")).doesNotExist();
    }

    @ParameterizedTest
    @ValueSource(strings = {"process", "thread"})
    void autoFallsBackToTheEnvironmentSayingSoOnce(String mode) throws Exception {
        manifest();
        Archpool.Run run = build(noMountNamespaces(), mode);
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.stderr().lines().filter(l -> l.startsWith("archpool: note: GPU devices are hidden by the"
                + " visibility variables alone")).count()).as(run.stderr()).isEqualTo(1);
        assertThat(probe()).contains("NVIDIA_VISIBLE_DEVICES=void");
        assertThat(deviceIsolation()).isEqualTo("environment");
        assertJobProcessesEnded();
    }
}
