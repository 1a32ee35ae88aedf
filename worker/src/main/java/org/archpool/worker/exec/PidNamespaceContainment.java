package org.archpool.worker.exec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Each step is the first process of a PID namespace of its own, so the kernel ends everything it started:
 * {@code [setsid -w] setpriv --pdeathsig KILL -- unshare [--user --map-current-user] --pid --fork --kill-child
 * --mount-proc --propagation slave -- /bin/sh -c REAPER archpool-step ARGV...}.
 * <ul>
 *   <li>When the namespace's first process exits, the kernel kills every process left in it, before that
 *       exit is reported: a step ends with nothing left, whatever its processes did ({@code setsid}, double
 *       forks, daemons).</li>
 *   <li>{@code setpriv --pdeathsig KILL} (see {@link ParentDeath}) kills {@code unshare} when the worker dies
 *       by any signal, {@code --kill-child} then kills the namespace's first process, and the kernel the
 *       rest. The step keeps a session of its own ({@code setsid}), as before: it has no terminal, and a
 *       Ctrl-C at one reaches the coordinator, which cancels it.</li>
 *   <li>The first process is a POSIX shell, not the step: a namespace's first process adopts every orphan of
 *       the namespace and must reap it, which a shell waiting for its child does ({@code wait} for any child);
 *       and it receives only the signals it handles, SIGKILL aside, while the step's own program, its child,
 *       keeps the ordinary behaviour (SIGTERM ends it). The child is started with {@code exec} in a
 *       subshell, so a program named like a shell builtin ({@code echo}, {@code test}) is still the
 *       program; the shell's own messages ("Segmentation fault") go nowhere, the step's output to its log;
 *       the shell exits with the child's status, 128 + n for signal n, which {@code unshare} passes on as
 *       its own.</li>
 *   <li>{@code --mount-proc}: {@code /proc} inside shows the namespace's own processes, so tools in the step
 *       that read it see the right PIDs; archpool itself reads the host's {@code /proc} (host PIDs).</li>
 *   <li>Where the user is not root, a user namespace maps the user to itself ({@code --map-current-user}):
 *       files the step writes stay the user's, and it does not appear as root.</li>
 *   <li>With a {@link DeviceMask} (devices isolated), the shell masks its paths first, in the step's own mount
 *       namespace, after {@code --mount-proc}: a fresh {@code /proc} shows {@code /proc/driver/nvidia} again.
 *       In a user namespace the kernel lets only the namespace's root mount, so the namespace maps root
 *       ({@code --map-root-user}) and, once masked, the shell replaces itself by {@code unshare --user
 *       --map-user=UID --map-group=GID} and that by the reaper: the step runs as the user again, still the
 *       namespace's first process, and cannot undo the masks.</li>
 * </ul>
 * What escapes: nothing that runs in the namespace. Only a step that is given a way out by a process outside
 * (a service it asks to start something) can leave anything behind.
 */
public record PidNamespaceContainment(Optional<Path> setsid, Path setpriv, Path unshare, Path shell,
                                      boolean userNamespace, Optional<DeviceMask> mask, ProcessIds ids)
        implements Containment {

    /**
     * The shell script of the namespace's first process: its own stderr to /dev/null, the step on fd 3 (the
     * original stderr), its exit status passed on.
     */
    static final String REAPER = "exec 3>&2 2>/dev/null; (exec \"$@\" 2>&3 3>&-); exit $?";

    /** The namespace strategy over the system's programs; empty when one of them is missing. */
    public static Optional<PidNamespaceContainment> of(UtilLinux tools, boolean userNamespace) {
        if (tools.setpriv().isEmpty() || tools.unshare().isEmpty() || tools.shell().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new PidNamespaceContainment(tools.setsid(), tools.setpriv().get(), tools.unshare().get(),
                tools.shell().get(), userNamespace, Optional.empty(), ProcessIds.current()));
    }

    /** The same, with {@code mask} masked in each step's mount namespace; {@code ids} are the user's. */
    public PidNamespaceContainment masking(DeviceMask mask, ProcessIds ids) {
        return new PidNamespaceContainment(setsid, setpriv, unshare, shell, userNamespace,
                Optional.of(mask).filter(m -> !m.isEmpty()), ids);
    }

    @Override
    public String name() {
        return (userNamespace ? "pid namespace (in a user namespace)" : "pid namespace")
                + (mask.isPresent() ? ", devices masked" : "");
    }

    @Override
    public List<String> wrap(List<String> argv) {
        List<String> wrapped = namespace(REAPER, argv.size() + 20);
        wrapped.add("archpool-step");
        wrapped.addAll(argv);
        return wrapped;
    }

    /**
     * The command line of a {@link StepHost} in {@code folder}: the same namespace, whose first process is the host's
     * loop ({@link StepScript#HOST}) in place of the reaper.
     */
    List<String> hostCommand(Path folder, Path mkfifo) {
        List<String> command = namespace(StepScript.HOST, 24);
        command.addAll(List.of("archpool-step-host", folder.toString(), mkfifo.toString()));
        return command;
    }

    /** Everything up to the first process's script, {@code script} run as that process (after the masks). */
    private List<String> namespace(String script, int size) {
        List<String> wrapped = new ArrayList<>(size);
        setsid.ifPresent(s -> {
            wrapped.add(s.toString());
            wrapped.add("-w");
        });
        wrapped.addAll(ParentDeath.setprivArgs(setpriv));
        wrapped.add(unshare.toString());
        if (userNamespace) {
            wrapped.add("--user");
            wrapped.add(mask.isPresent() ? "--map-root-user" : "--map-current-user");
        }
        wrapped.addAll(List.of("--pid", "--fork", "--kill-child", "--mount-proc", "--propagation", "slave", "--"));
        wrapped.addAll(List.of(shell.toString(), "-c", firstScript(script)));
        return wrapped;
    }

    /** What the namespace's first process runs: {@code script}, after the masks when there are any. */
    private String firstScript(String script) {
        if (mask.isEmpty()) {
            return script;
        }
        String masks = mask.get().commands();
        return userNamespace
                ? masks + "exec " + DeviceNamespace.remap(unshare, ids) + " " + shell + " -c "
                        + StepScript.quote(script) + " \"$0\" \"$@\""
                : masks + script;
    }

    /** Below {@code unshare} (the started process) is the namespace's first process, the shell; below it the step. */
    @Override
    public List<ProcessHandle> stepProcesses(ProcessHandle started) {
        return started.children().findFirst()
                .map(reaper -> reaper.descendants().toList())
                .orElse(List.of());
    }

    /**
     * Kills {@code unshare} first, then the rest of the tree: its parent-death signal kills the namespace's
     * first process even if the snapshot missed it, and the kernel then every process in the namespace. One
     * moment escapes that chain: {@code unshare} killed after it forked the namespace's first process but before
     * that child set its own parent-death signal. The step's session ({@code setsid}) closes it: every process
     * still in it is killed too.
     */
    @Override
    public void killAll(ProcessHandle started) {
        ProcessTreeKiller.kill(started);
        if (setsid.isPresent()) {
            ProcessTreeKiller.killSession(started.pid());
        }
    }

    /** Nothing is left: the kernel killed the namespace's processes before its first process's exit was seen. */
    @Override
    public void endLeftovers(ProcessHandle started) {
        // by construction
    }
}
