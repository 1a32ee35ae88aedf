package org.archpool.worker;

import java.util.function.Consumer;
import org.archpool.protocol.Phase;

/**
 * What a job's thread tells about its work while it runs a request: each phase as it starts, that it is still
 * at work between phases (each artifact it reads), and when it is waiting for a step's process (which its own
 * time limit bounds). The worker's heartbeats are sent from what it hears here, so that a heartbeat means the
 * job's thread is working on the job, not only that the worker is up.
 */
public interface JobActivity {

    /** A phase starts. */
    void phase(Phase phase);

    /** The job's thread is still at work within its phase. */
    default void beat() {
    }

    /** Whether the job's thread is now waiting for a step's processes to end. */
    default void waitingForStep(boolean waiting) {
    }

    /** Activity that only reports phases. */
    static JobActivity reporting(Consumer<Phase> progress) {
        return progress::accept;
    }
}
