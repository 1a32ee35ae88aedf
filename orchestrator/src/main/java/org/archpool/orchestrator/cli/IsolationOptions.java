package org.archpool.orchestrator.cli;

import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Consumer;
import org.archpool.orchestrator.pool.DeviceIsolation;
import org.archpool.orchestrator.pool.IsolateDevices;
import org.archpool.worker.exec.DeviceMask;
import org.archpool.worker.exec.DeviceNamespace;
import org.archpool.worker.exec.ProcessIds;
import org.archpool.worker.exec.RemoteIsolation;
import org.archpool.worker.exec.StepLauncher;
import org.archpool.worker.exec.UtilLinux;
import picocli.CommandLine.Option;

/**
 * {@code --isolate-devices}: whether workers run in a mount namespace with the GPU devices masked, decided once
 * per build by starting {@code sh -c 'exit 0'} the way workers (in thread mode, steps) would start.
 */
public final class IsolationOptions {

    @Option(names = "--isolate-devices", paramLabel = "auto|on|off", defaultValue = "auto",
            description = "on: every worker (with --mode thread every step) runs in a mount namespace of its own in"
                    + " which the GPU device nodes and driver views (/dev/nvidia*, /dev/kfd, /dev/dri,"
                    + " /proc/driver/nvidia, KFD's sysfs) are masked, or the build does not start; auto (default): so"
                    + " where the kernel allows it, else the visibility variables alone, said once; off: the"
                    + " variables alone.")
    IsolateDevices isolateDevices = IsolateDevices.AUTO;

    /**
     * The namespace each worker process starts in ({@link DeviceNamespace#forWorkers}), or empty (the environment
     * alone).
     *
     * @param note told the one line that says isolation fell back to the environment
     */
    Optional<DeviceNamespace> workerNamespace(Consumer<String> note) throws UsageException {
        if (isolateDevices == IsolateDevices.OFF) {
            return Optional.empty();
        }
        UtilLinux tools = UtilLinux.system();
        ProcessIds ids = ProcessIds.current();
        Optional<DeviceMask> mask = DeviceMask.gpu(tools);
        if (mask.isEmpty()) {
            return fallBack("util-linux mount is not installed", note);
        }
        DeviceNamespace.Detection found = DeviceNamespace.forWorkers(tools, ids, mask.get());
        return found.namespace().isPresent() ? found.namespace() : fallBack(found.whyNot(), note);
    }

    /**
     * The step launcher of {@code --mode thread}, whose steps each mask every path in their own namespace where
     * that starts; and whether they do.
     */
    ThreadSteps threadSteps(Consumer<String> note) throws UsageException {
        if (isolateDevices == IsolateDevices.OFF) {
            return new ThreadSteps(StepLauncher.system(), DeviceIsolation.ENVIRONMENT);
        }
        StepLauncher launcher = StepLauncher.system(DeviceMask.gpu(UtilLinux.system()));
        if (launcher.masksDevices()) {
            return new ThreadSteps(launcher, DeviceIsolation.NAMESPACE);
        }
        fallBack("neither a PID namespace nor a mount namespace with the devices masked starts for a step (steps"
                + " are contained by " + launcher.containment().name() + ")", note);
        return new ThreadSteps(launcher, DeviceIsolation.ENVIRONMENT);
    }

    /**
     * The isolation each Slurm node applies to its worker (decided there, {@link RemoteIsolation}); empty under
     * {@code off}.
     */
    Optional<RemoteIsolation> remote() {
        if (isolateDevices == IsolateDevices.OFF) {
            return Optional.empty();
        }
        UtilLinux tools = UtilLinux.system();
        DeviceMask mask = DeviceMask.gpu(tools).orElse(new DeviceMask(DeviceMask.GPU, Path.of("mount")));
        return Optional.of(new RemoteIsolation(tools, ProcessIds.current(), mask,
                isolateDevices == IsolateDevices.ON));
    }

    /** A thread pool's step launcher and what it hides. */
    record ThreadSteps(StepLauncher launcher, DeviceIsolation isolation) {
    }

    /** Under {@code on}, the refusal; under {@code auto}, the one line; nothing to use either way. */
    private <T> Optional<T> fallBack(String whyNot, Consumer<String> note) throws UsageException {
        if (isolateDevices == IsolateDevices.ON) {
            throw new UsageException("--isolate-devices on: workers cannot be started in a mount namespace with the"
                    + " GPU devices masked here: " + whyNot + ". As root the kernel must allow mount namespaces"
                    + " (a container may need --privileged or CAP_SYS_ADMIN); as another user also user namespaces:"
                    + " 'sysctl user.max_user_namespaces' and 'user.max_mnt_namespaces' must be above 0 (and, where"
                    + " they exist, 'sysctl kernel.unprivileged_userns_clone=1' and"
                    + " 'kernel.apparmor_restrict_unprivileged_userns=0'), and util-linux unshare and mount must be"
                    + " installed. Or use --isolate-devices auto to fall back to the visibility variables alone.");
        }
        note.accept("archpool: note: GPU devices are hidden by the visibility variables alone, not masked (" + whyNot
                + "); --isolate-devices on makes this an error");
        return Optional.empty();
    }
}
