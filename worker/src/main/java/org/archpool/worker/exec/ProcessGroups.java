package org.archpool.worker.exec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs each step in a process group of its own ({@code setsid -w}), so that the whole group can be killed at
 * once: a parent-child snapshot misses a process forked in the instant before the kill, or one whose parent
 * already died and left it to init, but none of them leaves the group. Without {@code setsid} (it comes with
 * util-linux on every Linux distribution) steps run as they are and only the tree is killed.
 */
public final class ProcessGroups {

    private static final List<Path> SETSID = List.of(Path.of("/usr/bin/setsid"), Path.of("/bin/setsid"));
    private static final List<Path> KILL = List.of(Path.of("/bin/kill"), Path.of("/usr/bin/kill"));

    private final Optional<Path> setsid;
    private final Optional<Path> kill;

    private ProcessGroups(Optional<Path> setsid, Optional<Path> kill) {
        this.setsid = setsid;
        this.kill = kill;
    }

    /** Uses the system's {@code setsid} and {@code kill} when both are there. */
    public static ProcessGroups system() {
        Optional<Path> s = SETSID.stream().filter(Files::isExecutable).findFirst();
        Optional<Path> k = KILL.stream().filter(Files::isExecutable).findFirst();
        return s.isPresent() && k.isPresent() ? new ProcessGroups(s, k) : new ProcessGroups(Optional.empty(), Optional.empty());
    }

    /** {@code argv} prefixed so that it starts a new session and process group whose id is its own pid. */
    public List<String> inOwnGroup(List<String> argv) {
        if (setsid.isEmpty()) {
            return argv;
        }
        List<String> wrapped = new ArrayList<>(argv.size() + 2);
        wrapped.add(setsid.get().toString());
        wrapped.add("-w");
        wrapped.addAll(argv);
        return wrapped;
    }

    /** Forcibly kills the group led by {@code leader} (if there is one), then the tree below it. */
    public void kill(ProcessHandle leader) {
        if (kill.isPresent()) {
            try {
                Process p = new ProcessBuilder(kill.get().toString(), "-KILL", "--", "-" + leader.pid())
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start();
                if (!p.waitFor(2, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (IOException e) {
                // no group kill possible: the tree kill below still runs
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        ProcessTreeKiller.kill(leader);
    }
}
