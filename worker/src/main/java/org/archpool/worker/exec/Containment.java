package org.archpool.worker.exec;

import java.util.List;

/**
 * How the processes of one step are held together so that all of them end with it: the command line that
 * starts the step contained, and how to end what it started. {@link StepLauncher} picks one per launcher.
 * A strategy only wraps the command line and kills; reading output, deadlines and exit statuses are the
 * {@link StepRunner}'s and do not depend on it.
 */
public sealed interface Containment permits PidNamespaceContainment, SessionContainment {

    /** A short name for logs and messages: {@code pid namespace}, {@code session}. */
    String name();

    /** The command line that runs {@code argv} contained; the step's own exit status is the wrapper's. */
    List<String> wrap(List<String> argv);

    /**
     * The step's own processes, the wrapper's left out, its main process first: what a time limit names.
     *
     * @param started the process that {@link #wrap} started
     */
    List<ProcessHandle> stepProcesses(ProcessHandle started);

    /** Forcibly kills every process of the step, the wrapper's included. */
    void killAll(ProcessHandle started);

    /**
     * The step's main process has exited: ends every process it left behind, so none outlives the step.
     * Returns once they are killed.
     */
    void endLeftovers(ProcessHandle started);
}
