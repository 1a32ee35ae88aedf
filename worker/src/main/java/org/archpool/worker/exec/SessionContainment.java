package org.archpool.worker.exec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The fallback where PID namespaces are denied: the step starts a session and process group of its own
 * ({@code setsid -w}, whose id is the step's pid) with a parent-death signal ({@code setpriv --pdeathsig KILL}),
 * and ending it kills the process tree and then every process whose session id ({@code /proc/PID/stat} field 6)
 * is the step's, so that a process whose parent exited and left it to init is still found.
 *
 * <p>What escapes: a process that starts a session of its own ({@code setsid}, a daemon) and whose parent
 * has exited; and, when the worker is killed by SIGKILL, every process of the step but its main one (the
 * parent-death signal reaches only that one).
 *
 * <p>With {@code devices} (devices isolated where a PID namespace is denied but a mount namespace is not), the
 * step starts in that mount namespace with the GPU devices masked ({@link DeviceNamespace}, which replaces
 * itself by the step: the session's first process is still the step).
 */
public record SessionContainment(Optional<Path> setsid, Optional<Path> setpriv, Optional<DeviceNamespace> devices)
        implements Containment {

    /** The session strategy with whichever of {@code setsid} and {@code setpriv} the system has. */
    public static SessionContainment of(UtilLinux tools) {
        return new SessionContainment(tools.setsid(), tools.setpriv(), Optional.empty());
    }

    /** The same, each step started in {@code devices}. */
    public SessionContainment masking(DeviceNamespace devices) {
        return new SessionContainment(setsid, setpriv, Optional.of(devices));
    }

    @Override
    public String name() {
        return (setsid.isPresent() ? "session" : "process tree") + (devices.isPresent() ? ", devices masked" : "");
    }

    @Override
    public List<String> wrap(List<String> argv) {
        List<String> wrapped = new ArrayList<>(argv.size() + 6);
        setsid.ifPresent(s -> {
            wrapped.add(s.toString());
            wrapped.add("-w");
        });
        setpriv.ifPresent(p -> wrapped.addAll(ParentDeath.setprivArgs(p)));
        wrapped.addAll(devices.map(d -> d.wrap(argv)).orElse(argv));
        return wrapped;
    }

    @Override
    public List<ProcessHandle> stepProcesses(ProcessHandle started) {
        return ProcessTreeKiller.snapshot(started);
    }

    @Override
    public void killAll(ProcessHandle started) {
        ProcessTreeKiller.kill(started);
        endLeftovers(started);
    }

    @Override
    public void endLeftovers(ProcessHandle started) {
        if (setsid.isPresent()) {
            ProcessTreeKiller.killSession(started.pid());
        }
    }
}
