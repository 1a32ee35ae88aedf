package org.archpool.worker.exec;

import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.archpool.protocol.Phase;
import org.archpool.protocol.Step;

/**
 * A JVM that runs its arguments as one step on a step host and then exits: what a test kills to stand in for a
 * worker killed by SIGKILL, or lets exit to see that nothing of the host is left.
 */
public final class OneHostedStep {

    private OneHostedStep() {
    }

    public static void main(String[] args) {
        PidNamespaceContainment namespace = (PidNamespaceContainment) StepLauncher.system().containment();
        StepLauncher launcher = StepLauncher.hosting(namespace);
        StepResult r = new StepRunner(Clock.systemUTC(), launcher).run(new Step(Phase.COMMAND, List.of(args),
                Path.of("").toAbsolutePath().toString(), Map.of()), OutputStream.nullOutputStream(),
                Deadline.after(Clock.systemUTC(), 0), new CancellationToken());
        System.exit(launcher.hostsSteps() && r.exitCode() != null ? r.exitCode() : 99);
    }
}
