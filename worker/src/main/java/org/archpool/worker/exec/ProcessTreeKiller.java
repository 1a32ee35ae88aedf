package org.archpool.worker.exec;

import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.zeroturnaround.exec.stop.ProcessStopper;

/**
 * Kills a process and every descendant it started. CMake starts Ninja, Ninja starts nvcc, nvcc starts cicc
 * and ptxas: killing only the direct child leaves the rest running. The tree is snapshotted before
 * anything is killed, because killed parents hand their children to init.
 */
public final class ProcessTreeKiller implements ProcessStopper {

    @Override
    public void stop(Process process) {
        kill(process.toHandle());
    }

    /** Forcibly kills {@code root} and all its descendants. */
    public static void kill(ProcessHandle root) {
        List<ProcessHandle> tree = Stream.concat(Stream.of(root), root.descendants())
                .collect(Collectors.toList());
        tree.forEach(ProcessHandle::destroyForcibly);
    }

    /** Forcibly kills every descendant of this JVM (used when a worker exits). */
    public static void killAllDescendantsOfThisProcess() {
        ProcessHandle.current().descendants().collect(Collectors.toList()).forEach(ProcessHandle::destroyForcibly);
    }
}
