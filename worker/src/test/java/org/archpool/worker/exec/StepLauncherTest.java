package org.archpool.worker.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.archpool.testing.MarkedProcesses;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("process")
class StepLauncherTest {

    private static final ProcessIds ROOT = new ProcessIds(0, 0);

    private final UtilLinux tools = UtilLinux.system();

    @Test
    void asRootStepsGetAPidNamespace() {
        assertThat(ProcessIds.current().isRoot()).as("these tests run as root, as CI does").isTrue();
        Containment c = StepLauncher.system().containment();
        assertThat(c).isInstanceOf(PidNamespaceContainment.class);
        assertThat(((PidNamespaceContainment) c).userNamespace()).isFalse();
    }

    @Test
    void theDecisionIsMadeOnceAndKeptInTheLauncher() {
        StepLauncher launcher = StepLauncher.system();
        assertThat(launcher.containment()).isSameAs(launcher.containment());
    }

    @Test
    void whereNamespacesAreDeniedTheSessionFallbackIsChosen() {
        UtilLinux noUnshare = new UtilLinux(tools.setsid(), tools.setpriv(), Optional.empty(), tools.mount(), tools.shell(),
                tools.mkfifo(), tools.env());
        assertThat(StepLauncher.detect(noUnshare, ROOT, Optional.empty())).isInstanceOf(SessionContainment.class);
        UtilLinux deniedUnshare = new UtilLinux(tools.setsid(), tools.setpriv(), Optional.of(Path.of("/bin/false")),
                tools.mount(), tools.shell(), tools.mkfifo(), tools.env());
        assertThat(StepLauncher.detect(deniedUnshare, ROOT, Optional.empty())).isInstanceOf(SessionContainment.class);
    }

    @Test
    void aUserWhoIsNotRootGetsAUserNamespaceThatKeepsTheirFiles(@TempDir Path dir) throws Exception {
        PidNamespaceContainment ns = PidNamespaceContainment.of(tools, true).orElseThrow();
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        String marker = MarkedProcesses.newMarker();
        Path sleep = MarkedProcesses.markedSleep(dir, marker);
        Path out = dir.resolve("out");
        List<String> argv = new ArrayList<>(List.of(tools.setpriv().orElseThrow().toString(), "--reuid", "65534",
                "--regid", "65534", "--clear-groups", "--"));
        argv.addAll(ns.wrap(List.of("sh", "-c", "{ id -u; echo $$; ls /proc | grep -c '^[0-9]'; } > " + out
                + "; " + sleep + " 1101 & exit 0")));
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(said).isZero();
        List<String> lines = Files.readAllLines(out);
        assertThat(lines.get(0)).as("the user inside is the user").isEqualTo("65534");
        assertThat(lines.get(1)).as("pid inside its namespace").isEqualTo("2");
        assertThat(Integer.parseInt(lines.get(2))).as("its own /proc").isLessThan(10);
        assertThat(Files.getAttribute(out, "unix:uid")).isEqualTo(65534);
        await().atMost(Duration.ofSeconds(5)).until(() -> MarkedProcesses.alive(marker).isEmpty());
    }

    @Test
    void aStatLineIsReadAfterItsCommandName() {
        assertThat(ProcStat.parseSession("42 (a) b) c) S 1 42 4242 0 -1")).contains(4242L);
        assertThat(ProcStat.parseSession("42 (zombie) Z 1 42 4242 0")).isEmpty();
        assertThat(ProcStat.parseSession("garbage")).isEmpty();
    }
}
