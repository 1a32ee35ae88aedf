package org.archpool.worker;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.archpool.protocol.Hello;
import org.archpool.protocol.Message;
import org.archpool.protocol.codec.MessageCodec;
import org.archpool.protocol.codec.MessageReader;
import org.archpool.protocol.codec.MessageWriter;
import org.archpool.worker.exec.DeviceMask;
import org.archpool.worker.exec.ProcessTreeKiller;
import org.archpool.worker.exec.StepLauncher;
import org.archpool.worker.exec.UtilLinux;

/**
 * Entry point of a worker JVM: {@code java … org.archpool.worker.WorkerMain [--worker-id ID] [--heartbeat-ms N]
 * [--mask-devices]}.
 *
 * <p>The real stdout is taken for protocol lines before anything can print, and {@code System.out} is pointed
 * at stderr, so no stray print can corrupt the protocol. The worker exits on {@code shutdown}, at the end of
 * stdin, and when its parent process is gone; on the way out it kills every process it started.
 */
public final class WorkerMain {

    /** How long a running job gets to answer after the worker is told to stop. */
    static final Duration STOP_GRACE = Duration.ofSeconds(3);

    /** How often a busy worker sends a heartbeat unless told otherwise. */
    public static final long DEFAULT_HEARTBEAT_MS = 1000;

    /** The flag that says the worker's steps mask the GPU devices in their own {@code /proc}. */
    public static final String MASK_DEVICES = "--mask-devices";

    private WorkerMain() {
    }

    public static void main(String[] args) {
        FileOutputStream protocolOut = new FileOutputStream(FileDescriptor.out);
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true));
        String workerId = workerId(args);

        MessageCodec codec = new MessageCodec();
        MessageWriter writer = new MessageWriter(protocolOut, codec);
        MessageReader reader = new MessageReader(System.in, codec, MessageReader.DEFAULT_MAX_LINE_BYTES);
        ExecutorService jobExecutor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "archpool-job");
            t.setDaemon(true);
            return t;
        });
        Termination termination = new Termination();
        WorkerLoop loop = new WorkerLoop(reader, writer, JobRunner.standard(stepLauncher(args)), jobExecutor,
                WorkerLog.stderr(),
                termination);
        ScheduledExecutorService heartbeat = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "archpool-heartbeat");
            t.setDaemon(true);
            return t;
        });
        long every = heartbeatMillis(args);
        heartbeat.scheduleAtFixedRate(loop::heartbeat, every, every, TimeUnit.MILLISECONDS);
        ProcessHandle.current().parent().ifPresent(parent ->
                parent.onExit().thenRun(() -> loop.stop(WorkerLoop.Exit.PARENT_GONE)));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            termination.begin();
            ProcessTreeKiller.killAllDescendantsOfThisProcess();
        }, "archpool-kill-children"));

        Thread readerThread = new Thread(() -> loop.readLoop(hello(workerId)), "archpool-protocol-reader");
        readerThread.setDaemon(true);
        readerThread.start();

        WorkerLoop.Exit reason = loop.exit().join();
        loop.cancelRunningJob(STOP_GRACE);
        ProcessTreeKiller.killAllDescendantsOfThisProcess();
        System.exit(reason.status);
    }

    /**
     * {@code --mask-devices}: the worker runs in a mount namespace with the GPU devices masked
     * ({@code DeviceNamespace}), and each step, which mounts a {@code /proc} of its own, masks the driver's
     * views there again.
     */
    private static StepLauncher stepLauncher(String[] args) {
        boolean mask = Arrays.asList(args).contains(MASK_DEVICES);
        return StepLauncher.system(mask ? DeviceMask.gpu(UtilLinux.system()).map(DeviceMask::procOnly) : Optional.empty(),
                System.getenv("SLURM_STEP_ID") == null);
    }

    private static String workerId(String[] args) {
        String id = option(args, "--worker-id");
        return id != null ? id : "worker-" + ProcessHandle.current().pid();
    }

    /** {@code --heartbeat-ms N}: how often a busy worker says it is alive (default 1000). */
    private static long heartbeatMillis(String[] args) {
        String value = option(args, "--heartbeat-ms");
        try {
            return value == null ? DEFAULT_HEARTBEAT_MS : Math.max(50, Long.parseLong(value));
        } catch (NumberFormatException e) {
            return DEFAULT_HEARTBEAT_MS;
        }
    }

    private static String option(String[] args, String name) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return null;
    }

    private static Hello hello(String workerId) {
        return new Hello(Message.PROTOCOL_VERSION, workerId, ProcessHandle.current().pid(), hostName(),
                System.getProperty("java.version"));
    }

    /**
     * Under Slurm the node's name as Slurm knows it ({@code SLURMD_NODENAME}, which may differ from the host name:
     * {@code node2} against {@code node2.cluster.example}), so that the coordinator can ask Slurm about the node;
     * else the kernel's host name. Not {@code InetAddress.getLocalHost()}: that resolves the name and can stall
     * for seconds where DNS is unreachable, as on compute nodes.
     */
    private static String hostName() {
        String slurmNode = System.getenv("SLURMD_NODENAME");
        if (slurmNode != null && !slurmNode.isBlank()) {
            return slurmNode.strip();
        }
        try {
            return Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
        } catch (IOException e) {
            String env = System.getenv("HOSTNAME");
            return env == null || env.isBlank() ? "unknown" : env;
        }
    }
}
