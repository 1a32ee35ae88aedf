package org.archpool.protocol.fuzz;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Runs numbered fuzz cases under a watchdog: the whole run is cut off when it takes too long (a hang names the
 * case it was in), a single case that takes longer than {@link #SLOW_CASE} is a failure, and every failure names
 * the seed and the case so it can be replayed with {@code -Darchpool.fuzz.seed=S -Darchpool.fuzz.case=N}.
 * {@code -Darchpool.fuzz.cases=N} runs more cases.
 */
public final class FuzzRun {

    /** Cases per run unless {@code -Darchpool.fuzz.cases} says otherwise. */
    public static final int CASES = Integer.getInteger("archpool.fuzz.cases", 3000);
    /** When set, only this case runs. */
    public static final Integer ONLY_CASE = Integer.getInteger("archpool.fuzz.case");
    /** A case this slow is as good as a hang (each one is a few kilobytes of input). */
    public static final Duration SLOW_CASE = Duration.ofSeconds(5);

    /** One case: null when the outcome is allowed, otherwise what went wrong. */
    @FunctionalInterface
    public interface Case {
        String run(int index) throws Exception;
    }

    private FuzzRun() {
    }

    /** The run's seed: {@code -Darchpool.fuzz.seed} or the given default. */
    public static long seed(long defaultSeed) {
        return Long.getLong("archpool.fuzz.seed", defaultSeed);
    }

    /** Runs every case and fails, listing up to 20 broken cases, when any is broken; returns the cases run. */
    public static int run(String what, long seed, Case body) {
        List<String> failures = new ArrayList<>();
        int[] current = {-1};
        int[] ran = {0};
        int[] failed = {0};
        Duration limit = Duration.ofSeconds(30).plusMillis(CASES * 10L);
        assertTimeoutPreemptively(limit, () -> {
            for (int i = 0; i < CASES; i++) {
                if (ONLY_CASE != null && ONLY_CASE != i) {
                    continue;
                }
                current[0] = i;
                long start = System.nanoTime();
                String problem;
                try {
                    problem = body.run(i);
                } catch (Throwable t) {
                    problem = "threw " + stackTop(t);
                }
                long ms = (System.nanoTime() - start) / 1_000_000;
                if (problem == null && ms > SLOW_CASE.toMillis()) {
                    problem = "took " + ms + " ms";
                }
                if (problem != null && failed[0]++ < 20) {
                    failures.add("case " + i + ": " + problem);
                }
                ran[0]++;
            }
        }, () -> what + ": the run hung in case " + current[0] + " (replay with -Darchpool.fuzz.seed=" + seed
                + " -Darchpool.fuzz.case=" + current[0] + ")");
        if (!failures.isEmpty()) {
            fail(what + ": " + failed[0] + " of " + ran[0] + " cases failed, the first " + failures.size() + " below (seed " + seed + "; replay one with -Darchpool.fuzz.seed=" + seed
                    + " -Darchpool.fuzz.case=N):\n" + String.join("\n", failures));
        }
        return ran[0];
    }

    /** The first lines of a stack trace, for a failure message. */
    public static String stackTop(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        String[] lines = w.toString().split("\n");
        return String.join("\n      ", Arrays.copyOf(lines, Math.min(lines.length, 8)));
    }
}
