package org.archpool.worker.exec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Device isolation for a worker started on another machine (a Slurm node), decided there when it starts: a
 * POSIX shell tries the {@link DeviceNamespace} that {@link DeviceNamespace#forWorkers} would choose (as
 * another user: first leaving {@code /proc} to the steps, where their PID namespace starts inside; then
 * masking it too), each by running {@code sh -c 'exit 0'} through it, and replaces itself by the worker in
 * the first that works. Where none does, the worker starts without (the environment alone) after one line on
 * its stderr, or, when isolation is {@code required}, it does not start: one paragraph on its stderr and
 * status {@value DeviceMask#FAILED}.
 *
 * @param tools    the util-linux programs, at the paths they have here (a cluster's nodes have the same)
 * @param ids      the user the worker runs as, the same on every node
 * @param mask     what is masked
 * @param required whether a worker without the namespace must not start ({@code --isolate-devices on})
 */
public record RemoteIsolation(UtilLinux tools, ProcessIds ids, DeviceMask mask, boolean required) {

    /** The command line that starts {@code argv} on the other machine as described above. */
    public List<String> wrap(List<String> argv) {
        Path unshare = tools.unshare().orElse(Path.of("unshare"));
        Path shell = tools.shell().orElse(Path.of("/bin/sh"));
        List<String> exit0 = List.of(shell.toString(), "-c", "exit 0");
        StringBuilder script = new StringBuilder();
        if (!ids.isRoot()) {
            DeviceNamespace lean = new DeviceNamespace(unshare, shell, mask.withoutProc(), Optional.of(ids));
            PidNamespaceContainment.of(tools, true).ifPresent(step -> attempt(script, lean,
                    step.masking(mask.procOnly(), ids).wrap(exit0)));
        }
        DeviceNamespace full = new DeviceNamespace(unshare, shell, mask,
                ids.isRoot() ? Optional.empty() : Optional.of(ids));
        attempt(script, full, exit0);
        String where = "on $(hostname 2>/dev/null || echo this node)";
        if (required) {
            script.append("echo \"archpool: --isolate-devices on: the worker cannot start in a mount namespace with"
                    + " the GPU devices masked ").append(where).append(" (").append(unshare)
                    .append(ids.isRoot() ? " --mount" : " --user --mount").append(" failed). The node's kernel must allow"
                    + " mount namespaces and, for a user who is not root, user namespaces ('sysctl"
                    + " user.max_user_namespaces' and 'user.max_mnt_namespaces' above 0,"
                    + " 'kernel.unprivileged_userns_clone=1' where it exists), and util-linux unshare and mount must be"
                    + " installed; or use --isolate-devices auto.\" >&2; exit ").append(DeviceMask.FAILED);
        } else {
            script.append("echo \"archpool: note: GPU devices are hidden by the visibility variables alone ")
                    .append(where).append(" (").append(unshare).append(" could not mask them)\" >&2; exec \"$@\"");
        }
        List<String> wrapped = new ArrayList<>(List.of(shell.toString(), "-c", script.toString(), "archpool-isolated"));
        wrapped.addAll(argv);
        return wrapped;
    }

    /** Appends: if {@code trial} runs through {@code ns}, replace this shell by the worker in it. */
    private static void attempt(StringBuilder script, DeviceNamespace ns, List<String> trial) {
        script.append("if ").append(quoted(ns.wrap(trial))).append(" >/dev/null 2>&1 </dev/null; then exec ")
                .append(quoted(ns.wrap(List.of()))).append(" \"$@\"; fi; ");
    }

    private static String quoted(List<String> argv) {
        return argv.stream().map(a -> "'" + a.replace("'", "'\\''") + "'").collect(Collectors.joining(" "));
    }
}
