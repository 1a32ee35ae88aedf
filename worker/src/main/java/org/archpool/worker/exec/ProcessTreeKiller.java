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
        snapshot(root).forEach(ProcessHandle::destroyForcibly);
    }

    /**
     * Like {@link #kill}, and says what was killed: one {@code pid N: COMMAND LINE} per process of the tree,
     * root first, each line at most {@code maxChars}. The command lines are read before killing (a dead
     * process's is gone); the kill then takes a fresh snapshot, so a child started while they were being
     * read is killed too.
     */
    public static List<String> killDescribing(ProcessHandle root, int maxChars) {
        List<String> described = snapshot(root).stream().filter(ProcessHandle::isAlive)
                .map(p -> abbreviate("pid " + p.pid() + ": " + commandLine(p), maxChars))
                .collect(Collectors.toList());
        kill(root);
        return described;
    }

    private static List<ProcessHandle> snapshot(ProcessHandle root) {
        return Stream.concat(Stream.of(root), root.descendants()).collect(Collectors.toList());
    }

    private static String commandLine(ProcessHandle p) {
        ProcessHandle.Info info = p.info();
        return info.commandLine().or(info::command).orElse("(command line unknown)");
    }

    private static String abbreviate(String text, int maxChars) {
        return text.length() <= maxChars ? text : text.substring(0, Math.max(0, maxChars - 3)) + "...";
    }

    /** Forcibly kills every descendant of this JVM (used when a worker exits). */
    public static void killAllDescendantsOfThisProcess() {
        ProcessHandle.current().descendants().collect(Collectors.toList()).forEach(ProcessHandle::destroyForcibly);
    }
}
