package org.archpool.worker.exec;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.archpool.protocol.Step;

/**
 * Starts every step contained, so that no process outlives it: in a PID namespace of its own where the
 * system allows ({@link PidNamespaceContainment}), else in a session of its own that is killed by session id
 * ({@link SessionContainment}). Which one is decided once, by starting {@code exit 0} through the namespace
 * strategy (a few milliseconds), on a thread of its own as soon as the launcher is made (so that neither the
 * worker's start nor a job's time limit waits for it), and kept in this object: one launcher per worker (or
 * per coordinator in thread mode), shared by its threads. Under the namespace strategy, steps run on
 * {@link StepHost}s, which keep its promise at a fraction of its cost; elsewhere, and where hosts cannot start, each
 * step is spawned contained ({@link SpawnedStep}).
 */
public final class StepLauncher implements AutoCloseable {

    /** How long the one trial start may take before namespaces count as denied. */
    static final long TRIAL_SECONDS = 10;

    private final CompletableFuture<Containment> chosen;
    private final boolean hosting;
    private final UtilLinux tools;
    private final AtomicLong started = new AtomicLong();
    private final AtomicLong hosted = new AtomicLong();
    private StepHosts hosts;
    private boolean closed;

    private StepLauncher(CompletableFuture<Containment> chosen, boolean hosting, UtilLinux tools) {
        this.chosen = chosen;
        this.hosting = hosting;
        this.tools = tools;
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
        return system(mask, true);
    }

    /**
     * The same; with {@code hosting} false every step is spawned on its own, never hosted. A worker that is a Slurm
     * step does so: Slurm ends a cancelled step by signalling each of its processes, and a host, the first process of
     * its namespace, does not receive what it does not handle.
     */
    public static StepLauncher system(Optional<DeviceMask> mask, boolean hosting) {
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
        return new StepLauncher(chosen, hosting, tools);
    }

    /** Always {@code containment}, each step spawned on its own, never hosted (tests; a forced fallback). */
    public static StepLauncher using(Containment containment) {
        return new StepLauncher(CompletableFuture.completedFuture(containment), false, UtilLinux.system());
    }

    /** Always {@code namespace}, each step on a {@link StepHost} in it where hosts start (tests). */
    static StepLauncher hosting(PidNamespaceContainment namespace) {
        return new StepLauncher(CompletableFuture.completedFuture(namespace), true, UtilLinux.system());
    }

    /**
     * Starts {@code step}, its output into {@code log}: on a {@link StepHost} where the strategy is a PID namespace
     * and hosts start, else spawned on the calling thread, contained ({@link SpawnedStep}: the calling thread must then
     * live as long as the step).
     *
     * @throws IOException when the step's processes cannot be started (a missing folder, a program that cannot run)
     */
    StartedStep start(Step step, OutputStream log) throws IOException {
        Containment containment = containment();
        started.incrementAndGet();
        Optional<StepHosts> hosts = hosts(containment);
        if (hosts.isPresent() && Files.isDirectory(Path.of(step.cwd()))) {
            for (int attempt = 0; attempt < 2; attempt++) { // a host that died idle is replaced once
                Optional<StepHost> host = hosts.get().acquire();
                if (host.isEmpty()) {
                    break;
                }
                try {
                    HostedStep hostedStep = host.get().run(step.argv(), step.cwd(), ChildEnvironment.whole(step.env()),
                            System.getenv("PATH"), log);
                    hosted.incrementAndGet();
                    return hostedStep;
                } catch (StepHost.Gone gone) {
                    continue;
                } catch (IOException e) {
                    hosts.get().failed(host.get(), e);
                    break;
                }
            }
        }
        return SpawnedStep.start(containment, step, log);
    }

    /** How many steps this launcher started, and how many of them on a host: {@code {started, hosted}}. */
    public long[] startedAndHosted() {
        return new long[] {started.get(), hosted.get()};
    }

    /** Whether steps run on hosts, as far as is known: until a host fails to start, where the strategy allows. */
    public boolean hostsSteps() {
        Optional<StepHosts> hosts = hosts(containment());
        return hosts.isPresent() && hosts.get().unavailable().isEmpty();
    }

    /** Why steps are spawned on their own although the strategy is a PID namespace, once a host failed. */
    public Optional<String> hostsUnavailable() {
        return hosts(containment()).flatMap(StepHosts::unavailable);
    }

    private synchronized Optional<StepHosts> hosts(Containment containment) {
        if (hosts == null && !closed && hosting && containment instanceof PidNamespaceContainment ns
                && tools.mkfifo().isPresent() && tools.env().isPresent()) {
            hosts = new StepHosts(ns, tools.mkfifo().get(), tools.env().get());
        }
        return Optional.ofNullable(hosts);
    }

    /** Ends every step host, and the steps still running on them. */
    @Override
    public void close() {
        StepHosts h;
        synchronized (this) {
            closed = true;
            h = hosts;
        }
        if (h != null) {
            h.close();
        }
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
