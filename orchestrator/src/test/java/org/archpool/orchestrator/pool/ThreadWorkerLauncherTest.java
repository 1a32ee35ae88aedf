package org.archpool.orchestrator.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Step;
import org.archpool.protocol.Target;
import org.archpool.worker.exec.PidNamespaceContainment;
import org.archpool.worker.exec.StepLauncher;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * {@code --mode thread}: the launcher ends the step hosts its jobs' steps ran on. A host left running at exit kept
 * a thread of the coordinator in native code (its reaper), and the JVM waits up to 300 ms at exit for such threads:
 * every thread-mode build took 0.3 s longer than its work. It runs alone: the step hosts are told apart from other
 * tests' processes as the children this JVM gained meanwhile.
 */
@Tag("process")
@Isolated
class ThreadWorkerLauncherTest {

    @TempDir
    Path dir;

    @Test
    void closingTheLauncherEndsTheStepHostsItsJobsRanOn() throws Exception {
        StepLauncher steps = StepLauncher.system();
        assertThat(steps.containment()).as("this machine allows PID namespaces, where steps are hosted")
                .isInstanceOf(PidNamespaceContainment.class);
        List<ProcessHandle> before = ProcessHandle.current().children().toList();
        ThreadWorkerLauncher launcher = ThreadWorkerLauncher.owning(steps, DeviceIsolation.ENVIRONMENT);
        Worker worker = launcher.launch("t1");
        List<String> argv = List.of("true");
        BuildRequest request = new BuildRequest("r1", new CommandJob("j", argv, dir.toString(), null, null, null),
                new Target(Platform.CUDA, List.of("90")), List.of(new Step(Phase.COMMAND, argv, dir.toString(),
                Map.of())), 0, dir.resolve("j.log").toString());
        assertThat(worker.execute(request, phase -> { }).get(30, TimeUnit.SECONDS).outcome())
                .isEqualTo(Outcome.SUCCEEDED);
        List<ProcessHandle> hosts = ProcessHandle.current().children().filter(c -> !before.contains(c))
                .filter(c -> c.info().arguments().map(a -> String.join(" ", a)).orElse("")
                        .contains("archpool-step-host")).toList();
        assertThat(hosts).as("the step host the job ran on, still there for the next").isNotEmpty()
                .allMatch(ProcessHandle::isAlive);

        worker.close();
        launcher.close();

        // killed by close, and gone once reaped; left open, a host lives as long as the JVM
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(hosts).as("the step hosts after the launcher closed").noneMatch(ProcessHandle::isAlive));
    }
}
