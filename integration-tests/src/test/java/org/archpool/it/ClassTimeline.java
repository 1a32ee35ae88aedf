package org.archpool.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Writes when each integration class started and ended, and how busy the machine's CPUs were in between, to the
 * file the system property {@code archpool.test.timeline} names (one tab-separated line per event: seconds since
 * the run began, {@code start} or {@code end}, the class, the CPU seconds the whole machine had spent busy so far
 * from {@code /proc/stat}). It shows where a run of classes side by side leaves cores idle: docs/testing.md reads
 * it. Also keeps what each class took, in the run that ran it last, in the file {@code archpool.test.durations}
 * names, which {@link LongestFirst} orders the next run by. Registered through {@code META-INF/services}; does
 * nothing when the properties are not set.
 */
public final class ClassTimeline implements TestExecutionListener {

    private static final Path PROC_STAT = Path.of("/proc/stat");
    /** /proc/stat counts in clock ticks, which are 1/100 s on Linux whatever the kernel's HZ. */
    private static final double TICKS_PER_SECOND = 100.0;

    private final Optional<Path> file = Optional.ofNullable(System.getProperty("archpool.test.timeline"))
            .filter(s -> !s.isBlank()).map(Path::of);
    private final Optional<Path> durations = LongestFirst.durationsFile();
    private final List<String> lines = new ArrayList<>();
    private final Map<String, Double> started = new HashMap<>();
    private final Map<String, Double> took = new HashMap<>();
    private long startedNanos;
    private double busyAtStart;

    @Override
    public synchronized void testPlanExecutionStarted(TestPlan plan) {
        startedNanos = System.nanoTime();
        busyAtStart = busySeconds();
    }

    @Override
    public void executionStarted(TestIdentifier id) {
        record(id, "start");
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
        record(id, "end");
    }

    @Override
    public synchronized void testPlanExecutionFinished(TestPlan plan) {
        if (durations.isPresent() && !took.isEmpty()) {
            Map<String, Double> all = new TreeMap<>(LongestFirst.read(durations.get()));
            all.putAll(took);
            write(durations.get(), all.entrySet().stream()
                    .map(e -> String.format("%s\t%.1f", e.getKey(), e.getValue())).toList());
        }
        if (file.isEmpty()) {
            return;
        }
        double wall = (System.nanoTime() - startedNanos) / 1e9;
        double busy = busySeconds() - busyAtStart;
        lines.add(String.format("# %.1f s, %.1f CPU seconds busy on %d CPUs: %.0f %% of them", wall, busy,
                Runtime.getRuntime().availableProcessors(),
                100 * busy / (wall * Runtime.getRuntime().availableProcessors())));
        write(file.get(), lines);
    }

    private static void write(Path path, List<String> content) {
        try {
            Files.createDirectories(path.toAbsolutePath().getParent());
            Files.write(path, content, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + path, e);
        }
    }

    private synchronized void record(TestIdentifier id, String event) {
        if (!(id.getSource().orElse(null) instanceof ClassSource source)) {
            return;
        }
        String name = source.getJavaClass().getSimpleName();
        double at = (System.nanoTime() - startedNanos) / 1e9;
        if (event.equals("start")) {
            started.put(name, at);
        } else if (started.containsKey(name)) {
            took.put(name, at - started.get(name));
        }
        if (file.isPresent()) {
            lines.add(String.format("%.1f\t%s\t%s\t%.1f", at, event, name, busySeconds() - busyAtStart));
        }
    }

    /** CPU seconds the machine has spent busy since it booted: every state of the {@code cpu} line but idle and iowait. */
    private static double busySeconds() {
        try {
            String cpu = Files.readAllLines(PROC_STAT, StandardCharsets.US_ASCII).get(0);
            long[] ticks = Arrays.stream(cpu.trim().split("\\s+")).skip(1).mapToLong(Long::parseLong).toArray();
            long busy = 0;
            for (int i = 0; i < ticks.length; i++) {
                if (i != 3 && i != 4 && i < 8) { // idle, iowait; guest time is already in user
                    busy += ticks[i];
                }
            }
            return busy / TICKS_PER_SECOND;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + PROC_STAT, e);
        }
    }
}
