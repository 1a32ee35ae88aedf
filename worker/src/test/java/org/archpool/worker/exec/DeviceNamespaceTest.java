package org.archpool.worker.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The masks, on stand-ins made in a test folder (character devices with {@code /dev/zero}'s numbers, which do read
 * data, and a folder with a file), so nothing on the machine changes: a masked device cannot be opened, a masked
 * folder is empty, neither can be undone from inside, and what is not masked reads as before.
 */
@Tag("process")
class DeviceNamespaceTest {

    private static final ProcessIds ROOT = new ProcessIds(0, 0);
    private static final ProcessIds NOBODY = new ProcessIds(65534, 65534);

    private final UtilLinux tools = UtilLinux.system();

    @TempDir
    Path dir;
    private Path device;
    private Path folder;
    private Path kept;
    private DeviceMask mask;

    @BeforeEach
    void standIns() throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        device = dir.resolve("nvidia0");
        kept = dir.resolve("zero-kept");
        for (Path node : List.of(device, dir.resolve("nvidiactl"), kept)) {
            run(List.of("mknod", "-m", "666", node.toString(), "c", "1", "5"));
        }
        folder = Files.createDirectories(dir.resolve("kfd/topology/nodes/1"));
        Files.writeString(folder.resolve("properties"), "gfx_target_version 90402\n");
        Files.setPosixFilePermissions(folder.resolve("properties"), PosixFilePermissions.fromString("rw-r--r--"));
        mask = new DeviceMask(List.of(dir + "/nvidia*", dir + "/kfd", dir + "/absent"), tools.mount().orElseThrow());
    }

    /** What {@code probe} says about the stand-ins: bytes read from each device, lines in the folder. */
    private String probe() {
        return "for d in " + device + " " + dir.resolve("nvidiactl") + " " + kept + "; do"
                + " printf '%s ' $(head -c 4 $d 2>/dev/null | wc -c); done;"
                + " printf '%s ' $(find " + dir.resolve("kfd") + " -type f | wc -l); id -u";
    }

    @Test
    void withoutTheNamespaceTheStandInsRead() throws Exception {
        assertThat(run(List.of("sh", "-c", probe()))).isEqualTo("4 4 4 1 0");
    }

    @Test
    void asRootMaskedDevicesCannotBeOpenedAndMaskedFoldersAreEmpty() throws Exception {
        DeviceNamespace ns = DeviceNamespace.detect(tools, ROOT, mask).namespace().orElseThrow();
        assertThat(ns.mappedTo()).isEmpty();
        assertThat(run(ns.wrap(List.of("sh", "-c", probe())))).isEqualTo("0 0 4 0 0");
        assertThat(run(List.of("sh", "-c", probe()))).as("nothing changed outside").isEqualTo("4 4 4 1 0");
    }

    @Test
    void listedInAnFstabEveryPathIsMaskedByOneMount() throws Exception {
        Path fstab = dir.resolve("masks.fstab");
        DeviceNamespace ns = DeviceNamespace.detect(tools, ROOT, mask).namespace().orElseThrow().listedIn(fstab);
        assertThat(Files.readAllLines(fstab)).containsExactly(
                device + " " + device + " none bind,ro,nodev 0 0",
                dir.resolve("nvidiactl") + " " + dir.resolve("nvidiactl") + " none bind,ro,nodev 0 0",
                "archpool-masked " + dir.resolve("kfd") + " tmpfs ro,nodev,nosuid,noexec,size=4k,mode=555 0 0");
        assertThat(ns.wrap(List.of("true")).get(5 + 2)).as("one mount").startsWith(tools.mount().orElseThrow() + " -a -T ");
        assertThat(run(ns.wrap(List.of("sh", "-c", probe())))).isEqualTo("0 0 4 0 0");
        DeviceNamespace asNobody = new DeviceNamespace(tools.unshare().orElseThrow(), tools.shell().orElseThrow(), mask,
                Optional.of(NOBODY)).listedIn(fstab);
        assertThat(run(asNobody(asNobody.wrap(List.of("sh", "-c", probe()))))).isEqualTo("0 0 4 0 65534");
    }

    @Test
    void anotherUserRunsAsThemselvesCannotOpenOrUnmaskAndKeepsTheirFiles() throws Exception {
        DeviceNamespace ns = new DeviceNamespace(tools.unshare().orElseThrow(), tools.shell().orElseThrow(), mask,
                Optional.of(NOBODY));
        Path out = dir.resolve("out");
        String script = probe() + "; umount " + device + " 2>/dev/null && echo unmasked;"
                + " unshare --user --map-root-user --mount sh -c 'umount " + device + " 2>/dev/null && echo unmasked';"
                + " head -c 4 " + device + " 2>/dev/null | wc -c; echo > " + out;
        assertThat(run(asNobody(ns.wrap(List.of("sh", "-c", script))))).isEqualTo("0 0 4 0 65534\n0");
        assertThat(Files.getAttribute(out, "unix:uid")).isEqualTo(65534);
    }

    @Test
    void aStepThatMountsItsOwnProcHasItMaskedAgain() throws Exception {
        DeviceMask proc = new DeviceMask(List.of("/proc/sys/kernel"), tools.mount().orElseThrow());
        List<String> count = List.of("sh", "-c", "ls /proc/sys/kernel | wc -l");
        PidNamespaceContainment asRoot = PidNamespaceContainment.of(tools, false).orElseThrow();
        assertThat(Integer.parseInt(run(asRoot.wrap(count)))).as("unmasked").isGreaterThan(10);
        assertThat(run(asRoot.masking(proc, ROOT).wrap(count))).isEqualTo("0");
        PidNamespaceContainment asUser = PidNamespaceContainment.of(tools, true).orElseThrow().masking(proc, NOBODY);
        assertThat(run(asNobody(asUser.wrap(List.of("sh", "-c", "ls /proc/sys/kernel | wc -l; id -u; echo $PPID")))))
                .as("masked, as the user, still the namespace's reaper's child").isEqualTo("0\n65534\n1");
    }

    @Test
    void aMaskThatCannotBeMadeFailsTheStartNamingThePath() throws Exception {
        DeviceMask unmountable = new DeviceMask(List.of(dir + "/nvidia*"), Path.of("/bin/false"));
        DeviceNamespace.Detection d = DeviceNamespace.detect(tools, ROOT, unmountable);
        assertThat(d.namespace()).isEmpty();
        assertThat(d.whyNot()).contains("--mount' failed").contains("status " + DeviceMask.FAILED);
    }

    @Test
    void onAnotherMachineTheNamespaceIsDecidedWhereTheWorkerStarts() throws Exception {
        assertThat(run(new RemoteIsolation(tools, ROOT, mask, true).wrap(List.of("sh", "-c", probe()))))
                .isEqualTo("0 0 4 0 0");
        assertThat(run(asNobody(new RemoteIsolation(tools, NOBODY, mask, true).wrap(List.of("sh", "-c", probe())))))
                .isEqualTo("0 0 4 0 65534");
    }

    @Test
    void onAnotherMachineWithoutNamespacesAutoSaysSoAndOnRefuses() throws Exception {
        UtilLinux denied = new UtilLinux(tools.setsid(), tools.setpriv(), Optional.of(Path.of("/bin/false")),
                tools.mount(), tools.shell(), tools.mkfifo(), tools.env());
        assertThat(run(new RemoteIsolation(denied, ROOT, mask, false).wrap(List.of("sh", "-c", probe()))))
                .startsWith("archpool: note: GPU devices are hidden by the visibility variables alone on ")
                .endsWith("\n4 4 4 1 0");
        Process p = new ProcessBuilder(new RemoteIsolation(denied, ROOT, mask, true).wrap(List.of("sh", "-c", probe())))
                .redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(p.waitFor()).isEqualTo(DeviceMask.FAILED);
        assertThat(said).startsWith("archpool: --isolate-devices on: the worker cannot start in a mount namespace")
                .contains("max_user_namespaces").doesNotContain("\n");
    }

    @Test
    void aPathAnFstabCannotHoldIsNotLeftUnmasked() throws Exception {
        run(List.of("mknod", "-m", "666", dir.resolve("nvidia 1").toString(), "c", "1", "5"));
        DeviceNamespace.Detection d = DeviceNamespace.detect(tools, ROOT, mask);
        assertThat(d.namespace()).isEmpty();
        assertThat(d.whyNot()).contains("archpool: cannot mask " + dir.resolve("nvidia 1"));
    }

    @Test
    void patternsAreOnlyPlainAbsolutePaths() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new DeviceMask(List.of("/dev/x; rm -rf /"),
                Path.of("/bin/mount"))).isInstanceOf(IllegalArgumentException.class);
    }

    private List<String> asNobody(List<String> argv) {
        List<String> all = new ArrayList<>(List.of(tools.setpriv().orElseThrow().toString(), "--reuid=65534",
                "--regid=65534", "--clear-groups", "--"));
        all.addAll(argv);
        return all;
    }

    private static String run(List<String> argv) throws Exception {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(p.waitFor()).as(String.join(" ", argv) + "\n" + said).isZero();
        return said;
    }
}
