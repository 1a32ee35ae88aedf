package org.archpool.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

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
 * it. Registered through {@code META-INF/services}; does nothing when the property is not set.
 */
public final class ClassTimeline implements TestExecutionListener {

    private static final Path PROC_STAT = Path.of("/proc/stat");
    /** /proc/stat counts in clock ticks, which are 1/100 s on Linux whatever the kernel's HZ. */
    private static final double TICKS_PER_SECOND = 100.0;

    private final Optional<Path> file = Optional.ofNullable(System.getProperty("archpool.test.timeline"))
            .filter(s -> !s.isBlank()).map(Path::of);
    private final List<String> lines = new ArrayList<>();
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
        if (file.isEmpty()) {
            return;
        }
        double wall = (System.nanoTime() - startedNanos) / 1e9;
        double busy = busySeconds() - busyAtStart;
        lines.add(String.format("# %.1f s, %.1f CPU seconds busy on %d CPUs: %.0f %% of them", wall, busy,
                Runtime.getRuntime().availableProcessors(),
                100 * busy / (wall * Runtime.getRuntime().availableProcessors())));
        try {
            Files.createDirectories(file.get().toAbsolutePath().getParent());
            Files.write(file.get(), lines, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the class timeline " + file.get(), e);
        }
    }

    private synchronized void record(TestIdentifier id, String event) {
        if (file.isEmpty() || !(id.getSource().orElse(null) instanceof ClassSource source)) {
            return;
        }
        lines.add(String.format("%.1f\t%s\t%s\t%.1f", (System.nanoTime() - startedNanos) / 1e9, event,
                source.getJavaClass().getSimpleName(), busySeconds() - busyAtStart));
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
