package org.archpool.orchestrator.pool;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.archpool.protocol.HiddenDevices;
import org.archpool.protocol.UserLocale;
import org.archpool.worker.WorkerMain;
import org.archpool.worker.exec.ChildEnvironment;
import org.archpool.worker.exec.DeviceNamespace;

/**
 * How to start a worker JVM.
 *
 * @param java         the {@code java} executable
 * @param jvmOptions   options before the class name (heap, GC, CDS…)
 * @param classPath    the class path holding the worker and its dependencies
 * @param environment  the worker's whole environment (the coordinator's, minus nothing; the locale and the
 *                     visibility variables are overridden by {@link #processBuilder})
 * @param stderrDir    folder for each worker's stderr file
 * @param helloTimeout how long a new worker may take to say hello
 * @param heartbeat    how often a busy worker says it is alive
 * @param silenceLimit how long a busy worker may stay silent before it is declared hung, killed and replaced
 * @param isolation    the mount namespace with the GPU devices masked that each worker on this machine starts in
 *                     ({@code --isolate-devices}); empty: the environment alone
 */
public record WorkerSpec(Path java, List<String> jvmOptions, String classPath, Map<String, String> environment,
                         Path stderrDir, Duration helloTimeout, Duration heartbeat, Duration silenceLimit,
                         Optional<DeviceNamespace> isolation) {

    /** The worker's entry point. */
    public static final String MAIN_CLASS = WorkerMain.class.getName();

    /**
     * Defaults sized for many workers on a small machine: a small heap that starts smaller, the serial
     * collector, the client compiler only with one compiler thread and a small code cache, no perf data
     * file: they took an idle worker from about 77 MiB of resident memory with the JVM's defaults to 56 MiB,
     * and its own class path without a logging framework or object mapper to 42 MiB (docs/faults.md,
     * docs/performance.md). The JVM's own warnings
     * go to stderr (by default they go to stdout, which carries protocol lines only), and so does everything else
     * the JVM itself prints, such as the thread dump SIGQUIT asks for ({@code DisplayVMOutputToStderr}); SLF4J, which
     * zt-exec logs through, is told to discard instead of looking for a logging framework (a worker has none).
     */
    public static final List<String> DEFAULT_JVM_OPTIONS = List.of(
            "-Xms8m", "-Xmx128m", "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1",
            "-XX:ReservedCodeCacheSize=16m", "-XX:MaxMetaspaceSize=64m", "-XX:MaxDirectMemorySize=16m",
            "-XX:-UsePerfData", "-Xshare:auto", "-Xlog:disable", "-Xlog:all=warning:stderr",
            "-XX:+DisplayVMOutputToStderr",
            "-Dslf4j.provider=org.slf4j.helpers.NOP_FallbackServiceProvider", "-Dslf4j.internal.verbosity=WARN");

    /**
     * Extra worker JVM options, split at white space, after the defaults (so they win): e.g.
     * {@code -Xmx512m} for jobs whose artifacts are large, or {@code -XX:ArchiveClassesAtExit=…} to make the
     * CDS archive ({@code scripts/cds-archives.sh}).
     */
    public static final String EXTRA_OPTIONS_VARIABLE = "ARCHPOOL_WORKER_JAVA_OPTS";

    /** The CDS archive of the worker's classes, beside the worker jar in a distribution's lib/. */
    public static final String CDS_ARCHIVE = "worker.jsa";

    public WorkerSpec {
        Objects.requireNonNull(java, "java");
        jvmOptions = List.copyOf(jvmOptions);
        Objects.requireNonNull(classPath, "classPath");
        environment = Map.copyOf(environment);
        Objects.requireNonNull(stderrDir, "stderrDir");
        Objects.requireNonNull(helloTimeout, "helloTimeout");
        Objects.requireNonNull(heartbeat, "heartbeat");
        Objects.requireNonNull(silenceLimit, "silenceLimit");
        Objects.requireNonNull(isolation, "isolation");
        if (silenceLimit.compareTo(heartbeat.multipliedBy(2)) < 0) {
            throw new IllegalArgumentException("the silence limit must be at least two heartbeats");
        }
    }

    /** Without device isolation. */
    public WorkerSpec(Path java, List<String> jvmOptions, String classPath, Map<String, String> environment,
                      Path stderrDir, Duration helloTimeout, Duration heartbeat, Duration silenceLimit) {
        this(java, jvmOptions, classPath, environment, stderrDir, helloTimeout, heartbeat, silenceLimit,
                Optional.empty());
    }

    /** The same, each worker on this machine started in {@code isolation}. */
    public WorkerSpec isolatedIn(Optional<DeviceNamespace> isolation) {
        return new WorkerSpec(java, jvmOptions, classPath, environment, stderrDir, helloTimeout, heartbeat,
                silenceLimit, isolation);
    }

    /** Default time for a new worker to say hello (generous: shared file systems on clusters are slow). */
    public static final Duration DEFAULT_HELLO_TIMEOUT = Duration.ofSeconds(30);
    /** Default time a busy worker may stay silent (it sends a heartbeat every second). */
    public static final Duration DEFAULT_SILENCE_LIMIT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(1);

    /**
     * The same JVM as this coordinator. In a distribution the class path is the worker jar alone (its
     * manifest names the few jars it needs), with the CDS archive of its classes when there is one;
     * elsewhere (tests, an IDE) it is this coordinator's class path.
     */
    public static WorkerSpec ofCurrentJvm(Map<String, String> environment, Path stderrDir, Duration helloTimeout,
                                          Duration silenceLimit) {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Duration heartbeat = silenceLimit.compareTo(DEFAULT_HEARTBEAT.multipliedBy(4)) >= 0 ? DEFAULT_HEARTBEAT
                : silenceLimit.dividedBy(4);
        List<String> options = new ArrayList<>(DEFAULT_JVM_OPTIONS);
        String classPath = System.getProperty("java.class.path");
        Path workerJar = workerJar();
        if (workerJar != null) {
            classPath = workerJar.toString();
            Path archive = workerJar.resolveSibling(CDS_ARCHIVE);
            if (Files.isRegularFile(archive)) {
                options.add("-XX:SharedArchiveFile=" + archive);
            }
        }
        options.addAll(extraOptions(environment));
        return new WorkerSpec(java, options, classPath, environment, stderrDir, helloTimeout, heartbeat,
                silenceLimit);
    }

    /** The options in {@link #EXTRA_OPTIONS_VARIABLE}, if any. */
    static List<String> extraOptions(Map<String, String> environment) {
        String extra = environment.getOrDefault(EXTRA_OPTIONS_VARIABLE, "").strip();
        return extra.isEmpty() ? List.of() : List.of(extra.split("\\s+"));
    }

    /** The jar the worker's classes were loaded from, or null when they come from a folder. */
    private static Path workerJar() {
        CodeSource source = WorkerMain.class.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) {
            return null;
        }
        try {
            Path location = Path.of(source.getLocation().toURI());
            return Files.isRegularFile(location) && location.toString().endsWith(".jar") ? location : null;
        } catch (URISyntaxException | IllegalArgumentException e) {
            return null; // not a file: a class path this JVM can pass on as it is
        }
    }

    /**
     * A process builder for {@code command} (the worker's own, or one that starts it elsewhere, like
     * {@code srun}) with the worker's environment under the JVMs' UTF-8 locale (the user's recorded for the
     * jobs, {@link UserLocale}), without the coordinator's secrets ({@link ChildEnvironment#WITHHELD}), every
     * device-visibility variable set to empty, and stderr appended to
     * {@code stderr}.
     */
    public ProcessBuilder processBuilder(List<String> command, Path stderr) {
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()));
        Map<String, String> env = builder.environment();
        env.clear();
        env.putAll(UserLocale.forJvm(environment));
        env.keySet().removeAll(ChildEnvironment.WITHHELD);
        env.putAll(HiddenDevices.environment());
        return builder;
    }

    /**
     * The worker's command line on this machine: in its mount namespace, its steps told to mask the driver's
     * views in their own {@code /proc}, where {@link #isolation} is set; else {@link #command}.
     */
    public List<String> isolatedCommand(String workerId) {
        if (isolation.isEmpty()) {
            return command(workerId);
        }
        List<String> command = new ArrayList<>(command(workerId));
        command.add(WorkerMain.MASK_DEVICES);
        return isolation.get().wrap(command);
    }

    /** The worker's command line. */
    public List<String> command(String workerId) {
        List<String> command = new ArrayList<>();
        command.add(java.toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classPath);
        command.add(MAIN_CLASS);
        command.add("--worker-id");
        command.add(workerId);
        command.add("--heartbeat-ms");
        command.add(Long.toString(heartbeat.toMillis()));
        return command;
    }
}
