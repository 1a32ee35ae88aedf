package org.archpool.orchestrator.report;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.archpool.orchestrator.schedule.JobOutcome;
import org.archpool.orchestrator.schedule.SchedulerListener;
import org.archpool.protocol.Outcome;

/**
 * What a person sees: one line per finished job as {@code [done/total]}, then a summary table with where
 * the report and logs are.
 */
public final class ConsoleReporter implements SchedulerListener {

    private final PrintStream out;
    private final int total;
    private final AtomicInteger done = new AtomicInteger();

    public ConsoleReporter(PrintStream out, int total) {
        this.out = out;
        this.total = total;
    }

    @Override
    public void finished(JobOutcome o) {
        int n = done.incrementAndGet();
        StringBuilder line = new StringBuilder()
                .append('[').append(n).append('/').append(total).append("] ")
                .append(o.id()).append(' ').append(o.outcome().wireName());
        if (o.worker() != null) {
            line.append(" on ").append(o.worker());
        }
        line.append(" (").append(seconds(o.totalMs())).append(')');
        if (o.outcome() != Outcome.SUCCEEDED && o.message() != null) {
            line.append(": ").append(o.message());
        }
        synchronized (out) {
            out.println(line);
            o.warnings().forEach(w -> out.println("    warning: " + w));
            if (o.outcome() != Outcome.SUCCEEDED && o.logTail() != null && !o.logTail().isBlank()) {
                o.logTail().lines().skip(Math.max(0, o.logTail().lines().count() - 15))
                        .forEach(l -> out.println("    | " + l));
                if (o.logPath() != null) {
                    out.println("    full log: " + o.logPath());
                }
            }
        }
    }

    /** The closing table: one row per job in manifest order. */
    public void summary(List<JobOutcome> jobs, String targetLine, String reportPath) {
        int idWidth = Math.max(2, jobs.stream().mapToInt(j -> j.id().length()).max().orElse(2));
        String format = "%-" + idWidth + "s  %-9s  %8s  %8s  %8s  %-7s  %s%n";
        synchronized (out) {
            out.println();
            out.println(targetLine);
            out.printf(format, "id", "outcome", "queue", "config", "build", "worker", "archs found");
            for (JobOutcome j : jobs) {
                String archs = j.artifacts().stream().flatMap(a -> a.archs().stream()).distinct()
                        .reduce((a, b) -> a + " " + b).orElse("");
                out.printf(format, j.id(), j.outcome().wireName(), seconds(j.queueWaitMs()),
                        seconds(j.configureMs()), seconds(j.buildMs() + j.commandMs()),
                        j.worker() == null ? "-" : j.worker(), archs);
            }
            long ok = jobs.stream().filter(j -> j.outcome() == Outcome.SUCCEEDED).count();
            out.printf("%d of %d jobs succeeded. Report: %s%n", ok, jobs.size(), reportPath);
        }
    }

    private static String seconds(long ms) {
        return String.format("%.1fs", ms / 1000.0);
    }
}
