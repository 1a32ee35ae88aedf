package org.archpool.orchestrator.schedule;

import java.util.Locale;

/**
 * How well a session's jobs filled its slots, as the report's {@code schedule} gives it.
 *
 * @param order           {@code fifo} or {@code longest-first}
 * @param slots           jobs run at once
 * @param jobs            the jobs that ran (on a worker, or restored from the cache)
 * @param jobTimeMs       Σ of those jobs' times, from dispatch to outcome
 * @param longestJobMs    the longest of them
 * @param wallMs          from the first job's dispatch to the last job's outcome
 * @param parallelism     {@code jobTimeMs ÷ wallMs}: how many jobs ran at once on average (what Chromium's ninja
 *                        summary calls parallelism); 0 when no job ran
 * @param idealMakespanMs {@code max(longestJobMs, jobTimeMs ÷ slots)}: the shortest {@code wallMs} any order could
 *                        reach with these job times
 */
public record ScheduleSummary(String order, int slots, int jobs, long jobTimeMs, long longestJobMs, long wallMs,
                              double parallelism, long idealMakespanMs) {

    /** The summary of {@code jobs} jobs whose times add up to {@code jobTimeMs}, run in {@code wallMs}. */
    static ScheduleSummary of(JobOrder order, int slots, int jobs, long jobTimeMs, long longestJobMs, long wallMs) {
        double parallelism = wallMs <= 0 ? 0 : Math.round(100.0 * jobTimeMs / wallMs) / 100.0;
        long ideal = Math.max(longestJobMs, (jobTimeMs + slots - 1) / Math.max(1, slots));
        return new ScheduleSummary(order.wireName(), slots, jobs, jobTimeMs, longestJobMs, Math.max(0, wallMs),
                parallelism, ideal);
    }

    /** {@code schedule: longest-first, 2 slots; parallelism 1.93 (38.2 s of jobs in 19.8 s; ideal 19.1 s)}. */
    public String line() {
        return String.format(Locale.ROOT,
                "schedule: %s, %d slot%s; parallelism %.2f (%.1f s of jobs in %.1f s; ideal %.1f s)", order, slots,
                slots == 1 ? "" : "s", parallelism, jobTimeMs / 1000.0, wallMs / 1000.0, idealMakespanMs / 1000.0);
    }
}
