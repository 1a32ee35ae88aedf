package org.archpool.orchestrator.report;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.function.Consumer;
import org.archpool.orchestrator.cache.CacheResult;
import org.archpool.orchestrator.cache.CacheSummary;
import org.archpool.orchestrator.cache.MissReason;
import org.archpool.orchestrator.pool.WorkerEvent;
import org.archpool.orchestrator.report.ConsoleStyle.Verbosity;
import org.archpool.orchestrator.schedule.JobOutcome;
import org.archpool.orchestrator.schedule.SchedulerListener;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;
import org.archpool.protocol.UntrustedText;

/**
 * What a person sees. On a terminal, a ninja-style status line ({@code [done/total] running: a (build), b
 * (configure)}) updated in place, with each job that did not succeed printed above it; elsewhere (pipes, CI logs),
 * one line per finished job. Always a summary table at the end (id, outcome, times, worker, architectures found)
 * and where the report is. {@link ConsoleStyle} sets colour and verbosity. Called from slot threads, workers'
 * reader threads and the pool: it only formats and queues, and its {@link ConsoleOutput} writes on a thread of its
 * own, so that a console nobody reads never stalls a job or a heartbeat. Everything a job or a worker said (a
 * message, a warning, the tail of a log, architecture names found in files) is shown through
 * {@link UntrustedText#forTerminal}, so that it cannot drive the terminal.
 */
public final class ConsoleReporter implements SchedulerListener, Consumer<WorkerEvent> {

    private static final int DEFAULT_WIDTH = 100;
    private static final int TAIL_LINES = 15;

    private final ConsoleOutput out;
    private int total;
    private final ConsoleStyle style;
    private final int width;
    private final Map<String, String> running = new LinkedHashMap<>();
    private int done;

    /** @param total how many jobs there are; 0 when not known ({@code serve}): then only the finished are counted */
    public ConsoleReporter(ConsoleOutput out, int total, ConsoleStyle style, int width) {
        this.out = out;
        this.total = total;
        this.style = style;
        this.width = width > 20 ? width : DEFAULT_WIDTH;
    }

    /** How many jobs there are, once known: a run with several targets counts each (job, target) pair. */
    public synchronized void expect(int jobs) {
        this.total = jobs;
    }

    @Override
    public void started(String jobId, String worker, int attempt) {
        synchronized (this) {
            running.put(jobId, "starting");
            if (style.verbosity() == Verbosity.VERBOSE) {
                out.progress(counter() + " start " + jobId + " on " + worker
                        + (attempt > 1 ? " (attempt " + attempt + ")" : ""));
            }
            status();
        }
    }

    @Override
    public void phase(String jobId, Phase phase) {
        synchronized (this) {
            String previous = running.put(jobId, phase.wireName());
            if (style.verbosity() == Verbosity.VERBOSE && !phase.wireName().equals(previous)) {
                out.progress("    " + jobId + ": " + phase.wireName());
            }
            status();
        }
    }

    @Override
    public void finished(JobOutcome o) {
        synchronized (this) {
            running.remove(o.name());
            done++;
            boolean ok = o.outcome() == Outcome.SUCCEEDED;
            boolean show = !ok || style.verbosity() == Verbosity.VERBOSE
                    || (style.verbosity() == Verbosity.NORMAL && (!style.statusLine() || !o.warnings().isEmpty()));
            if (show) {
                StringBuilder text = new StringBuilder()
                        .append(counter()).append(' ')
                        .append(o.name()).append(' ').append(paint(o.outcome(), o.outcome().wireName()));
                if (o.worker() != null) {
                    text.append(" on ").append(o.worker());
                } else if (o.cacheResult() != null && o.cacheResult().status().restored()) {
                    text.append(" from the ").append(o.cache().equals("remote-hit") ? "remote " : "").append("cache");
                }
                text.append(" (").append(seconds(o.totalMs())).append(')');
                if (!ok && o.message() != null) {
                    text.append(": ").append(UntrustedText.forTerminal(o.message()));
                }
                List<String> block = new ArrayList<>();
                block.add(text.toString());
                if (style.verbosity() != Verbosity.QUIET) {
                    o.warnings().forEach(w -> block.add("    warning: " + UntrustedText.forTerminal(w)));
                }
                if (!ok && o.logTail() != null && !o.logTail().isBlank()) {
                    List<String> tail = logLines(o.logTail());
                    tail.subList(Math.max(0, tail.size() - TAIL_LINES), tail.size())
                            .forEach(l -> block.add("    | " + UntrustedText.forTerminal(l)));
                }
                if (!ok && o.logPath() != null) {
                    block.add("    full log: " + o.logPath());
                }
                out.lines(block);
            }
            status();
        }
    }

    /** Verbose output names each worker start and death as it happens. */
    @Override
    public void accept(WorkerEvent e) {
        if (style.verbosity() != Verbosity.VERBOSE) {
            return;
        }
        synchronized (this) {
            out.progress("    worker " + e.worker() + " " + e.event().replace('_', ' ')
                    + (e.pid() == null ? "" : " (pid " + e.pid() + ")")
                    + (e.reason() == null ? "" : ": " + UntrustedText.forTerminal(e.reason())));
            status();
        }
    }

    /** A line of the coordinator's own (the target) between the jobs' lines. */
    public void note(String text) {
        synchronized (this) {
            line(text);
            status();
        }
    }

    /**
     * The closing table, one row per job in manifest order, and where the report is. Waits until every line
     * queued before is written, then writes on the caller's thread: call it only when nothing else is left to
     * do but print, since it blocks for as long as the console's reader does.
     */
    public void summary(List<JobOutcome> jobs, String targetLine, String reportPath) {
        summary(jobs, targetLine, null, reportPath);
    }

    /** As {@link #summary(List, String, String)}, with {@code scheduleLine} after the cache's, when not null. */
    public void summary(List<JobOutcome> jobs, String targetLine, String scheduleLine, String reportPath) {
        // not under this object's lock: a late event (the pool closing on Ctrl-C) must not wait for the reader
        PrintStream stream = out.finish();
        long ok = jobs.stream().filter(j -> j.outcome() == Outcome.SUCCEEDED).count();
        if (style.verbosity() != Verbosity.QUIET) {
            int idWidth = Math.max(2, jobs.stream().mapToInt(j -> j.name().length()).max().orElse(2));
            String format = "%-" + idWidth + "s  %s  %8s  %8s  %8s  %8s  %8s  %-7s  %s%n";
            stream.println();
            stream.println(targetLine);
            stream.printf(format, "id", pad("outcome"), "time", "queue", "config", "build", "inspect", "worker",
                    "archs found");
            for (JobOutcome j : byTarget(jobs)) {
                String archs = String.join(" ", j.artifacts().stream().flatMap(a -> a.archs().stream())
                        .distinct().toList());
                stream.printf(format, j.name(), paint(j.outcome(), pad(j.outcome().wireName())),
                        seconds(j.totalMs()), seconds(j.queueWaitMs()), seconds(j.configureMs()),
                        seconds(j.buildMs() + j.commandMs()), seconds(j.inspectMs()),
                        j.worker() != null ? j.worker() : restored(j) ? "cache" : "-",
                        UntrustedText.forTerminal(archs));
            }
        }
        String cache = cacheLine(jobs);
        if (cache != null) {
            stream.println(cache);
        }
        if (scheduleLine != null && style.verbosity() != Verbosity.QUIET) {
            stream.println(scheduleLine);
        }
        long skipped = jobs.stream().filter(j -> j.outcome() == Outcome.SKIPPED).count();
        stream.printf("%d of %d jobs succeeded%s. Report: %s%n", ok, jobs.size(),
                skipped == 0 ? "" : ", " + skipped + " skipped", reportPath);
        stream.flush();
    }

    /** The jobs grouped by the platform of their target, platforms in order of first appearance (stable within). */
    private static List<JobOutcome> byTarget(List<JobOutcome> jobs) {
        Map<Object, List<JobOutcome>> groups = new LinkedHashMap<>();
        for (JobOutcome j : jobs) {
            groups.computeIfAbsent(j.target() == null ? "" : j.target().platform(), k -> new ArrayList<>()).add(j);
        }
        return groups.values().stream().flatMap(List::stream).toList();
    }

    private static boolean restored(JobOutcome j) {
        return j.cacheResult() != null && j.cacheResult().status().restored();
    }

    /**
     * {@code cache: 40 restored (38 hit, 2 remote-hit), 8 stored, 1 rejected, 0 uncacheable; hit rate 83 %}, then,
     * when jobs were looked up and built, why the lookup gave nothing to restore: {@code ; built because: 7 no entry,
     * 1 read set changed, 1 rejected}, reasons of none left out; null for a build without a cache.
     */
    static String cacheLine(List<JobOutcome> jobs) {
        List<CacheResult> results = jobs.stream().map(JobOutcome::cacheResult).filter(Objects::nonNull).toList();
        if (results.isEmpty()) {
            return null;
        }
        CacheSummary s = CacheSummary.of(null, null, results);
        Map<String, Integer> n = s.jobs();
        StringBuilder line = new StringBuilder("cache: ").append(s.restored()).append(" restored");
        if (n.get("remote-hit") > 0) {
            line.append(" (").append(n.get("hit")).append(" hit, ").append(n.get("remote-hit")).append(" remote-hit)");
        }
        line.append(", ").append(n.get("stored")).append(" stored, ").append(n.get("miss")).append(" miss, ")
                .append(n.get("rejected")).append(" rejected, ").append(n.get("uncacheable")).append(" uncacheable");
        line.append("; hit rate ").append(Math.round(100 * s.hitRate())).append(" %");
        if (s.missed() > 0) {
            StringJoiner why = new StringJoiner(", ", "; built because: ", "");
            for (MissReason reason : MissReason.values()) {
                int count = s.missReasons().get(reason.wireName());
                if (count > 0) {
                    why.add(count + " " + reason.words());
                }
            }
            line.append(why);
        }
        return line.toString();
    }

    /** A log's lines, split at line feeds only: a carriage return inside a line is shown, not obeyed. */
    private static List<String> logLines(String text) {
        List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
        if (!lines.isEmpty() && lines.get(lines.size() - 1).isEmpty()) {
            lines.remove(lines.size() - 1);
        }
        lines.replaceAll(l -> l.endsWith("\r") ? l.substring(0, l.length() - 1) : l);
        return lines;
    }

    private void line(String text) {
        out.line(text);
    }

    private void status() {
        if (!style.statusLine()) {
            return;
        }
        StringBuilder text = new StringBuilder(counter());
        if (!running.isEmpty()) {
            text.append(" running: ");
            int shown = 0;
            for (Map.Entry<String, String> r : running.entrySet()) {
                String item = (shown == 0 ? "" : ", ") + r.getKey() + " (" + r.getValue() + ")";
                String more = " +" + (running.size() - shown);
                if (shown > 0 && text.length() + item.length() + more.length() > width - 1) {
                    text.append(more);
                    break;
                }
                text.append(item);
                shown++;
            }
        }
        String shownText = text.length() > width - 1 ? text.substring(0, width - 1) : text.toString();
        out.status(shownText);
    }

    private String paint(Outcome outcome, String text) {
        if (!style.color()) {
            return text;
        }
        String code = switch (outcome) {
            case SUCCEEDED -> "32";
            case CANCELLED -> "33";
            case SKIPPED -> "36";
            default -> "31";
        };
        return "\033[" + code + "m" + text + "\033[0m";
    }

    private static String pad(String outcome) {
        return String.format(Locale.ROOT, "%-9s", outcome);
    }

    private static String seconds(long ms) {
        return String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
    }

    /** {@code [done/total]}, or {@code [done]} when the total is not known. */
    private String counter() {
        return total > 0 ? "[" + done + "/" + total + "]" : "[" + done + "]";
    }
}
