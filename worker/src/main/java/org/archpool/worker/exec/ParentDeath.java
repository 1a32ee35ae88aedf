package org.archpool.worker.exec;

import java.nio.file.Path;
import java.util.List;

/**
 * The parent-death signal a step is started with: {@code setpriv --pdeathsig KILL}, so that a worker killed by
 * SIGKILL takes its steps with it. Linux sends it when the <em>thread</em> that started the child ends, not
 * the process: {@link StepRunner#run} starts a spawned step on the calling thread and returns only once the step has
 * ended, so that thread outlives every step it started; {@link StepHosts} starts every host from one thread that
 * lives as long as its launcher.
 */
final class ParentDeath {

    private ParentDeath() {
    }

    /** {@code setpriv --pdeathsig KILL --}: sets the signal, then execs what follows (no fork, so it is kept). */
    static List<String> setprivArgs(Path setpriv) {
        return List.of(setpriv.toString(), "--pdeathsig", "KILL", "--");
    }
}
