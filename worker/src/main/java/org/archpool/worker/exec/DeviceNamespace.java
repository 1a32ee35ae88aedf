package org.archpool.worker.exec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Starts a process (a worker JVM) in a mount namespace of its own in which the GPU devices are masked
 * ({@link DeviceMask}); the rest of the file system is the same mounts, seen from a copy, and mounts made inside do
 * not propagate out.
 * <ul>
 *   <li>As root: {@code unshare --mount --propagation slave -- /bin/sh -c 'MASK exec "$@"' archpool-isolated
 *       ARGV...}.</li>
 *   <li>As another user, whom the kernel lets mount only in a user namespace of its own: {@code unshare --user
 *       --map-root-user --mount --propagation slave -- /bin/sh -c 'MASK exec unshare --user --map-user=UID
 *       --map-group=GID -- "$@"' archpool-isolated ARGV...}. The masks are made as the namespace's root, then
 *       the program runs in a second user namespace as the user again (UID inside and out, files it creates
 *       are the user's), without any capability over the first: it cannot undo the masks, and a namespace it
 *       makes itself gets them locked (the kernel's rule for mounts inherited from a more privileged
 *       namespace).</li>
 * </ul>
 *
 * @param unshare util-linux {@code unshare}
 * @param shell   the POSIX shell that masks, then replaces itself by the program
 * @param mask    what is masked
 * @param mappedTo empty as root; else the user and group the program runs as
 * @param fstab    where {@code mask}'s {@link DeviceMask#fstab()} is written, so that one {@code mount -a} masks
 *                 every path ({@link #listedIn}); empty: one {@code mount} per path, expanded by the shell
 */
public record DeviceNamespace(Path unshare, Path shell, DeviceMask mask, Optional<ProcessIds> mappedTo,
                              Optional<Path> fstab) {

    public DeviceNamespace(Path unshare, Path shell, DeviceMask mask, Optional<ProcessIds> mappedTo) {
        this(unshare, shell, mask, mappedTo, Optional.empty());
    }

    /**
     * The same, masking with one {@code mount -a -T fstab}: writes the paths present now into {@code fstab}
     * (replacing it), which must stay while processes start in the namespace. Where none is present (a machine
     * without GPUs) the file is empty and the namespace is this one: the shell's tests then cost nothing, a
     * {@code mount} would.
     */
    public DeviceNamespace listedIn(Path fstab) throws IOException {
        String table = mask.fstab();
        Path temp = fstab.resolveSibling(fstab.getFileName() + ".tmp");
        Files.deleteIfExists(temp); // a leftover, or a link: never written through
        Files.writeString(temp, table, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        Files.move(temp, fstab, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return table.isEmpty() ? this : new DeviceNamespace(unshare, shell, mask, mappedTo, Optional.of(fstab));
    }

    /** How long the one trial start may take before the namespace counts as denied. */
    static final long TRIAL_SECONDS = 10;

    /** What {@link #detect} found: the namespace, or why there is none (one sentence). */
    public record Detection(Optional<DeviceNamespace> namespace, String whyNot) {
    }

    /** The command line that runs {@code argv} with the devices masked; its exit status is the program's. */
    public List<String> wrap(List<String> argv) {
        List<String> wrapped = new ArrayList<>(argv.size() + 12);
        wrapped.add(unshare.toString());
        if (mappedTo.isPresent()) {
            wrapped.add("--user");
            wrapped.add("--map-root-user");
        }
        wrapped.addAll(List.of("--mount", "--propagation", "slave", "--", shell.toString(), "-c",
                fstab.map(mask::commandsListedIn).orElseGet(mask::commands) + "exec " + mappedTo.map(ids -> remap(unshare, ids) + " ").orElse("") + "\"$@\"",
                "archpool-isolated"));
        wrapped.addAll(argv);
        return wrapped;
    }

    /** The command (shell text) that runs what follows as {@code ids} again, in a user namespace of its own. */
    static String remap(Path unshare, ProcessIds ids) {
        return unshare + " --user --map-user=" + ids.uid() + " --map-group=" + ids.gid() + " --";
    }

    /**
     * The namespace a worker process starts in, if one starts here. As root it masks every path. As another user
     * it leaves {@code /proc} to the steps, which mask it in their own: the kernel does not let a user namespace
     * mount a {@code /proc} of its own (as each step's PID namespace does) where a mount covers part of the one
     * it sees; only where a step's namespace does not start inside the worker's anyway is {@code /proc} masked
     * in the worker's namespace too (its steps then fall back to a session, {@link SessionContainment}).
     */
    public static Detection forWorkers(UtilLinux tools, ProcessIds ids, DeviceMask mask) {
        if (ids.isRoot() || tools.shell().isEmpty()) {
            return detect(tools, ids, mask, exit0(tools));
        }
        Optional<PidNamespaceContainment> step = PidNamespaceContainment.of(tools, true);
        if (step.isPresent()) {
            Detection lean = detect(tools, ids, mask.withoutProc(), step.get().masking(mask.procOnly(), ids)
                    .wrap(exit0(tools)));
            if (lean.namespace().isPresent()) {
                return lean;
            }
        }
        return detect(tools, ids, mask, exit0(tools));
    }

    /** The namespace for this process's user ({@code ids}), if one starts here and {@code sh -c 'exit 0'} in it. */
    public static Detection detect(UtilLinux tools, ProcessIds ids, DeviceMask mask) {
        return detect(tools, ids, mask, exit0(tools));
    }

    private static List<String> exit0(UtilLinux tools) {
        return List.of(tools.shell().map(Path::toString).orElse("/bin/sh"), "-c", "exit 0");
    }

    /**
     * The namespace for this process's user ({@code ids}), if one starts here: decided by running {@code trial}
     * through it, masks and all (a few milliseconds), to status 0.
     */
    static Detection detect(UtilLinux tools, ProcessIds ids, DeviceMask mask, List<String> trial) {
        if (tools.unshare().isEmpty() || tools.shell().isEmpty()) {
            return new Detection(Optional.empty(), "util-linux unshare or /bin/sh is not installed");
        }
        DeviceNamespace ns = new DeviceNamespace(tools.unshare().get(), tools.shell().get(), mask,
                ids.isRoot() ? Optional.empty() : Optional.of(ids));
        List<String> argv = ns.wrap(trial);
        String tried = "'" + tools.unshare().get() + (ids.isRoot() ? " --mount" : " --user --mount") + "'";
        try {
            Process p = new ProcessBuilder(argv)
                    .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!p.waitFor(TRIAL_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Detection(Optional.empty(), tried + " did not end within " + TRIAL_SECONDS + " s");
            }
            String said = firstLine(p.getErrorStream());
            return p.exitValue() == 0 ? new Detection(Optional.of(ns), "")
                    : new Detection(Optional.empty(), tried + " failed"
                    + (said.isEmpty() ? " (status " + p.exitValue() + ")" : ": " + said));
        } catch (IOException e) {
            return new Detection(Optional.empty(), "cannot run " + tools.unshare().get() + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Detection(Optional.empty(), "interrupted while trying a mount namespace");
        }
    }

    private static String firstLine(InputStream stderr) throws IOException {
        byte[] bytes = stderr.readNBytes(400);
        String text = new String(bytes, StandardCharsets.UTF_8).strip();
        int nl = text.indexOf('\n');
        return nl < 0 ? text : text.substring(0, nl);
    }
}
