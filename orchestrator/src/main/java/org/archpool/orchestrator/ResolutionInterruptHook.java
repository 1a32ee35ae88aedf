package org.archpool.orchestrator;

import java.io.PrintStream;
import org.archpool.orchestrator.pool.WorkerPool;

/**
 * Ctrl-C and SIGTERM while the target is resolved and the compiler checked, before any job is sent: say so in
 * one line, close the pool (its workers are starting meanwhile), and end with exit code 130 as an interrupted
 * build does. The probes and the compiler check end with the coordinator by construction: each runs in a PID
 * namespace of its own whose parent-death signal is tied to the coordinator's thread waiting for it
 * ({@link org.archpool.orchestrator.tool.ProcessToolRunner}), so the kernel kills them, with whatever they
 * started, when this process exits.
 */
final class ResolutionInterruptHook implements AutoCloseable {

    private final Thread hook;

    ResolutionInterruptHook(WorkerPool pool, PrintStream err) {
        this.hook = new Thread(() -> {
            err.println("archpool: interrupted (SIGINT or SIGTERM) while resolving the target architecture and"
                    + " checking the compiler: the probes still running were killed; no job was started and no"
                    + " report was written");
            pool.close();
            err.flush();
            Runtime.getRuntime().halt(InterruptHook.EXIT_CODE);
        }, "archpool-interrupt-resolution");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down: the hook is running or about to, and it ends the process
        }
    }
}
