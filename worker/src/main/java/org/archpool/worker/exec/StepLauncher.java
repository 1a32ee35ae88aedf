package org.archpool.worker.exec;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Starts every step contained, so that no process outlives it: in a PID namespace of its own where the
 * system allows ({@link PidNamespaceContainment}), else in a session of its own that is killed by session id
 * ({@link SessionContainment}). Which one is decided once, by starting {@code exit 0} through the namespace
 * strategy (a few milliseconds), on a thread of its own as soon as the launcher is made (so that neither the
 * worker's start nor a job's time limit waits for it), and kept in this object: one launcher per worker (or
 * per coordinator in thread mode), shared by its threads.
 */
public final class StepLauncher {

    /** How long the one trial start may take before namespaces count as denied. */
    static final long TRIAL_SECONDS = 10;

    private final CompletableFuture<Containment> chosen;

    private StepLauncher(CompletableFuture<Containment> chosen) {
        this.chosen = chosen;
    }

    /** Starts deciding, from the system's util-linux programs, as described above. */
    public static StepLauncher system() {
        return system(Optional.empty());
    }

    /**
     * The same, masking {@code mask} in each step's mount namespace where a masked namespace starts (devices
     * isolated), else as without it.
     */
    public static StepLauncher system(Optional<DeviceMask> mask) {
        UtilLinux tools = UtilLinux.system();
        ProcessIds ids = ProcessIds.current();
        CompletableFuture<Containment> chosen = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                chosen.complete(detect(tools, ids, mask));
            } catch (RuntimeException | Error e) {
                chosen.completeExceptionally(e); // a defect: every step then says so
            }
        }, "archpool-step-containment");
        t.setDaemon(true);
        t.start();
        return new StepLauncher(chosen);
    }

    /** Always {@code containment} (tests; a forced fallback). */
    public static StepLauncher using(Containment containment) {
        return new StepLauncher(CompletableFuture.completedFuture(containment));
    }

    /** The strategy in force; waits for the decision the first time if it is still being made. Thread-safe. */
    public Containment containment() {
        return chosen.join();
    }

    /** The command line that starts {@code argv} contained. */
    public List<String> command(List<String> argv) {
        return containment().wrap(argv);
    }

    /** Whether steps are started with the GPU devices masked ({@link PidNamespaceContainment#mask()}). */
    public boolean masksDevices() {
        Containment c = containment();
        return c instanceof PidNamespaceContainment ns ? ns.mask().isPresent()
                : ((SessionContainment) c).devices().isPresent();
    }

    /**
     * As root, a PID namespace alone, else one inside a user namespace (also tried as root: a container may
     * deny the one and allow the other); the session strategy when neither starts. With a mask, each
     * namespace is tried masked first, and the session strategy in a mount namespace with the mask.
     */
    static Containment detect(UtilLinux tools, ProcessIds ids, Optional<DeviceMask> mask) {
        List<Boolean> tries = ids.isRoot() ? List.of(false, true) : List.of(true);
        for (boolean user : tries) {
            Optional<PidNamespaceContainment> ns = PidNamespaceContainment.of(tools, user);
            if (ns.isEmpty()) {
                continue;
            }
            if (mask.isPresent() && !mask.get().isEmpty()) {
                PidNamespaceContainment masked = ns.get().masking(mask.get(), ids);
                if (starts(masked, tools)) {
                    return masked;
                }
            }
            if (starts(ns.get(), tools)) {
                return ns.get();
            }
        }
        SessionContainment session = SessionContainment.of(tools);
        if (mask.isPresent() && !mask.get().isEmpty()) {
            Optional<DeviceNamespace> devices = DeviceNamespace.detect(tools, ids, mask.get()).namespace();
            if (devices.isPresent()) {
                return session.masking(devices.get());
            }
        }
        return session;
    }

    /** Whether {@code sh -c 'exit 0'} runs to status 0 through {@code containment}. */
    static boolean starts(Containment containment, UtilLinux tools) {
        if (tools.shell().isEmpty()) {
            return false;
        }
        List<String> argv = new ArrayList<>(containment.wrap(List.of(tools.shell().get().toString(), "-c", "exit 0")));
        try {
            Process p = new ProcessBuilder(argv)
                    .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!p.waitFor(TRIAL_SECONDS, TimeUnit.SECONDS)) {
                containment.killAll(p.toHandle());
                return false;
            }
            return p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
