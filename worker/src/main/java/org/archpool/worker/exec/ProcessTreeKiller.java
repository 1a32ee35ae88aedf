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

    /** How many times a session is scanned and killed before giving up on a process that keeps forking. */
    static final int SESSION_ROUNDS = 100;

    @Override
    public void stop(Process process) {
        kill(process.toHandle());
    }

    /** Forcibly kills {@code root} and all its descendants. */
    public static void kill(ProcessHandle root) {
        snapshot(root).forEach(ProcessHandle::destroyForcibly);
    }

    /**
     * One {@code pid N: COMMAND LINE} per process still alive, in the order given, each line at most
     * {@code maxChars}. Read before killing: a dead process's command line is gone.
     */
    public static List<String> describe(List<ProcessHandle> processes, int maxChars) {
        return processes.stream().filter(ProcessHandle::isAlive)
                .map(p -> abbreviate("pid " + p.pid() + ": " + commandLine(p), maxChars))
                .collect(Collectors.toList());
    }

    /** {@code root} and all its descendants, root first. */
    static List<ProcessHandle> snapshot(ProcessHandle root) {
        return Stream.concat(Stream.of(root), root.descendants()).collect(Collectors.toList());
    }

    /**
     * Forcibly kills every process of session {@code sid} (field 6 of {@code /proc/PID/stat}), wherever its
     * parent is, until a scan finds none alive: a process forked while the others were being killed is found
     * by the next scan. Zombies are left to their parents.
     */
    public static void killSession(long sid) {
        for (int round = 0; round < SESSION_ROUNDS; round++) {
            List<ProcessHandle> found = ProcStat.inSession(sid);
            if (found.isEmpty()) {
                return;
            }
            found.forEach(ProcessHandle::destroyForcibly);
        }
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
