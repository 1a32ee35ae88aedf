package org.archpool.orchestrator.report;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.archpool.orchestrator.pool.WorkerEvent;
import org.archpool.orchestrator.schedule.JobOutcome;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.PhaseTiming;

/**
 * Writes a build as a Chrome trace-event file ({@code --trace}), in the JSON Object Format
 * ({@code {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}}) that Perfetto
 * (ui.perfetto.dev) and {@code chrome://tracing} open.
 *
 * <p>Timestamps ({@code ts}, {@code dur}) are microseconds since the scheduler started, the origin of
 * {@link JobOutcome#startMs()}; worker starts and deaths are placed by their {@link WorkerEvent#atMs()} (ms since
 * the pool started, a few ms before the scheduler). The layout:
 * <ul>
 *   <li>Process {@value #WORKERS_PID} "workers": one thread per worker id, in natural order ({@code w1, w1.2, w2,
 *       …, w10}). Each job that ran gets one complete event ({@code "ph": "X"}) per phase, named
 *       {@code "<job id> <phase>"} with category the phase, laid out back to back from the job's {@code startMs}
 *       (the dispatch of its last attempt) with the phases' recorded durations. A job that ran but has no phase
 *       timings (crashed, or cancelled with its worker) gets one event named {@code "<job id> total"} (category
 *       {@code total}) of its {@code totalMs}, cut at its worker's death when the report records one. Events are
 *       never allowed to run into the next job on the same worker: one that would is shortened and gets
 *       {@code "clipped": true} (the recorded duration stays in {@code args.phaseMs}). Worker starts, deaths and
 *       recycles are instant events ({@code "ph": "i"}, category {@code worker}, args {@code worker, event, pid,
 *       cause, reason}) on the worker's own track.</li>
 *   <li>Process {@value #QUEUE_PID} "queue": thread "queued" holds, per job with a queue wait, an async span
 *       ({@code "ph": "b"}/{@code "e"}, category {@code queue}, id = the job's 1-based position in the report)
 *       of its {@code queueWaitMs}, from submission to its first dispatch. The report does not record when a job
 *       was submitted; archpool submits every job at once when the scheduler starts, so the spans begin at the
 *       earliest {@code startMs - queueWaitMs} of all jobs (exact for a job that never started; for the others
 *       an upper bound, since a job's {@code startMs} comes after any worker start and earlier attempts). A span
 *       therefore never ends after its job's {@code startMs}; the gap between them is the time spent starting a
 *       worker or on earlier attempts. Thread "not started" holds one instant event per job no worker ever ran
 *       (worker null, e.g. cancelled after an earlier failure), at the time it was given up.</li>
 * </ul>
 * Every job event's {@code args} hold {@code job}, {@code kind}, {@code arch} (the target's architectures,
 * {@code ;}-joined), {@code outcome}, {@code exitCode} and {@code signal} (when recorded), {@code attempt} (the
 * number of the last attempt), {@code worker}, {@code phase}, {@code phaseExitCode} (when the phase's process
 * exited), {@code phaseMs}, {@code log} and, on a job's last event when it did not succeed, {@code message}.
 * The JSON is built with Jackson; strings are passed through unchanged except that unpaired UTF-16 surrogates
 * (which cannot be encoded) become U+FFFD.
 */
public final class ChromeTraceWriter {

    /** The "workers" process: one thread per worker. */
    public static final int WORKERS_PID = 1;
    /** The "queue" process: queue waits and jobs that never started. */
    public static final int QUEUE_PID = 2;
    static final int QUEUED_TID = 1;
    static final int NOT_STARTED_TID = 2;

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final ObjectMapper mapper = JsonMapper.builder()
            .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)
            .build();

    /** Writes the trace of {@code report} to {@code file} atomically ({@link AtomicFile}). */
    public void write(BuildReport report, Path file) throws IOException {
        ObjectNode trace = toTree(report);
        AtomicFile.write(file, out -> mapper.writeValue(out, trace));
    }

    /** The trace as JSON text. */
    public String toJson(BuildReport report) {
        try {
            return mapper.writeValueAsString(toTree(report));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The trace as a Jackson tree. */
    public ObjectNode toTree(BuildReport report) {
        List<JobOutcome> jobs = report.jobs() == null ? List.of() : report.jobs();
        List<WorkerEvent> workerEvents = report.pool() == null || report.pool().workerEvents() == null
                ? List.of() : report.pool().workerEvents();
        String arch = report.resolution() == null ? null : String.join(";", report.resolution().archs());

        // worker id -> tid, in natural order
        TreeSet<String> workerIds = new TreeSet<>(ChromeTraceWriter::naturalCompare);
        jobs.stream().map(JobOutcome::worker).filter(w -> w != null).forEach(workerIds::add);
        workerEvents.stream().map(WorkerEvent::worker).filter(w -> w != null).forEach(workerIds::add);
        Map<String, Integer> tids = new LinkedHashMap<>();
        workerIds.forEach(w -> tids.put(w, tids.size() + 1));

        ArrayNode metadata = NODES.arrayNode();
        List<ObjectNode> events = new ArrayList<>();

        metadata.add(processName(WORKERS_PID, "workers"));
        metadata.add(meta("process_sort_index", WORKERS_PID, null, "sort_index", WORKERS_PID));
        tids.forEach((worker, tid) -> {
            metadata.add(meta("thread_name", WORKERS_PID, tid, "name", safe(worker)));
            metadata.add(meta("thread_sort_index", WORKERS_PID, tid, "sort_index", tid));
        });

        for (WorkerEvent e : workerEvents) {
            if (e.worker() == null) {
                continue;
            }
            ObjectNode args = NODES.objectNode();
            args.put("worker", safe(e.worker()));
            putIfNotNull(args, "event", e.event());
            if (e.pid() != null) {
                args.put("pid", e.pid());
            }
            putIfNotNull(args, "cause", e.cause());
            putIfNotNull(args, "reason", e.reason());
            events.add(instant(e.worker() + " " + e.event(), "worker", e.atMs(), WORKERS_PID, tids.get(e.worker()),
                    args));
        }

        // jobs on each worker's track, in dispatch order
        Map<String, List<JobOutcome>> byWorker = new LinkedHashMap<>();
        for (JobOutcome j : jobs) {
            if (j.worker() != null) {
                byWorker.computeIfAbsent(j.worker(), w -> new ArrayList<>()).add(j);
            }
        }
        for (Map.Entry<String, List<JobOutcome>> track : byWorker.entrySet()) {
            List<JobOutcome> onTrack = new ArrayList<>(track.getValue());
            onTrack.sort(Comparator.comparingLong(JobOutcome::startMs)); // stable: manifest order on ties
            int tid = tids.get(track.getKey());
            for (int i = 0; i < onTrack.size(); i++) {
                JobOutcome j = onTrack.get(i);
                long limit = i + 1 < onTrack.size() ? onTrack.get(i + 1).startMs() : Long.MAX_VALUE;
                jobEvents(j, arch, tid, limit, workerEvents, events);
            }
        }

        boolean anyNotStarted = jobs.stream().anyMatch(j -> j.worker() == null);
        boolean anyQueued = false;
        long submittedMs = jobs.stream().mapToLong(j -> Math.max(0, j.startMs() - j.queueWaitMs())).min().orElse(0);
        for (int i = 0; i < jobs.size(); i++) {
            JobOutcome j = jobs.get(i);
            if (j.worker() == null) {
                ObjectNode args = NODES.objectNode();
                args.put("job", safe(j.id()));
                putIfNotNull(args, "kind", j.kind());
                args.put("outcome", j.outcome() == null ? null : j.outcome().wireName());
                putIfNotNull(args, "arch", arch);
                args.put("queueWaitMs", j.queueWaitMs());
                putIfNotNull(args, "message", j.message());
                events.add(instant(j.id() + " not started", "not_started", j.startMs(), QUEUE_PID, NOT_STARTED_TID,
                        args));
            }
            if (j.queueWaitMs() > 0) {
                anyQueued = true;
                long begin = submittedMs;
                long end = Math.min(submittedMs + j.queueWaitMs(), Math.max(submittedMs, j.startMs()));
                ObjectNode args = NODES.objectNode();
                args.put("job", safe(j.id()));
                args.put("queueWaitMs", j.queueWaitMs());
                if (j.worker() != null) {
                    args.put("worker", safe(j.worker()));
                }
                ObjectNode b = event(j.id() + " queued", "queue", "b", begin * 1000, QUEUE_PID, QUEUED_TID);
                b.put("id", i + 1);
                b.set("args", args);
                ObjectNode e = event(j.id() + " queued", "queue", "e", end * 1000, QUEUE_PID, QUEUED_TID);
                e.put("id", i + 1);
                events.add(b);
                events.add(e);
            }
        }
        if (anyQueued || anyNotStarted) {
            metadata.add(processName(QUEUE_PID, "queue"));
            metadata.add(meta("process_sort_index", QUEUE_PID, null, "sort_index", QUEUE_PID));
            if (anyQueued) {
                metadata.add(meta("thread_name", QUEUE_PID, QUEUED_TID, "name", "queued"));
                metadata.add(meta("thread_sort_index", QUEUE_PID, QUEUED_TID, "sort_index", QUEUED_TID));
            }
            if (anyNotStarted) {
                metadata.add(meta("thread_name", QUEUE_PID, NOT_STARTED_TID, "name", "not started"));
                metadata.add(meta("thread_sort_index", QUEUE_PID, NOT_STARTED_TID, "sort_index", NOT_STARTED_TID));
            }
        }

        events.sort(Comparator.comparingLong(e -> e.get("ts").asLong())); // stable
        ArrayNode traceEvents = NODES.arrayNode();
        traceEvents.addAll(metadata);
        events.forEach(traceEvents::add);

        ObjectNode root = NODES.objectNode();
        root.set("traceEvents", traceEvents);
        root.put("displayTimeUnit", "ms");
        root.set("otherData", otherData(report, arch));
        return root;
    }

    private static void jobEvents(JobOutcome j, String arch, int tid, long limit, List<WorkerEvent> workerEvents,
                                  List<ObjectNode> events) {
        long t = j.startMs();
        List<ObjectNode> mine = new ArrayList<>();
        if (j.phases().isEmpty()) {
            // no phase timings (crashed, or cancelled with its worker): one event for the job's total, which
            // ends no later than the worker's death
            long end = limit;
            for (WorkerEvent e : workerEvents) {
                if (j.worker().equals(e.worker()) && !"started".equals(e.event()) && e.atMs() >= j.startMs()) {
                    end = Math.min(end, e.atMs());
                }
            }
            mine.add(complete(j, arch, tid, "total", t, j.totalMs(), end, null));
        } else {
            for (PhaseTiming p : j.phases()) {
                String phase = p.name().wireName();
                mine.add(complete(j, arch, tid, phase, t, p.ms(), limit, p.exitCode()));
                t = Math.min(t + Math.max(0, p.ms()), limit); // limit >= startMs: tracks are sorted by startMs
            }
        }
        if (j.outcome() != null && j.outcome() != Outcome.SUCCEEDED && j.message() != null) {
            ((ObjectNode) mine.get(mine.size() - 1).get("args")).put("message", safe(j.message()));
        }
        events.addAll(mine);
    }

    private static ObjectNode complete(JobOutcome j, String arch, int tid, String phase, long startMs, long ms,
                                       long limitMs, Integer phaseExitCode) {
        long recorded = Math.max(0, ms);
        long dur = Math.max(0, Math.min(recorded, limitMs - startMs));
        ObjectNode x = event(j.id() + " " + phase, phase, "X", startMs * 1000, WORKERS_PID, tid);
        x.put("dur", dur * 1000);
        ObjectNode args = NODES.objectNode();
        args.put("job", safe(j.id()));
        putIfNotNull(args, "kind", j.kind());
        putIfNotNull(args, "arch", arch);
        args.put("outcome", j.outcome() == null ? null : j.outcome().wireName());
        if (j.exitCode() != null) {
            args.put("exitCode", j.exitCode());
        }
        putIfNotNull(args, "signal", j.signal());
        args.put("attempt", j.attempts());
        args.put("worker", safe(j.worker()));
        args.put("phase", phase);
        if (phaseExitCode != null) {
            args.put("phaseExitCode", phaseExitCode);
        }
        args.put("phaseMs", recorded);
        putIfNotNull(args, "log", j.logPath());
        if (dur < recorded) {
            args.put("clipped", true);
        }
        x.set("args", args);
        return x;
    }

    private static ObjectNode otherData(BuildReport report, String arch) {
        ObjectNode other = NODES.objectNode();
        other.put("generator", "archpool");
        putIfNotNull(other, "archpoolVersion", report.archpoolVersion());
        putIfNotNull(other, "manifest", report.manifest());
        putIfNotNull(other, "startedAt", report.startedAt());
        other.put("durationMs", report.durationMs());
        other.put("exitCode", report.exitCode());
        if (report.resolution() != null && report.resolution().platform() != null) {
            other.put("platform", report.resolution().platform().wireName());
        }
        putIfNotNull(other, "arch", arch);
        if (report.pool() != null) {
            putIfNotNull(other, "poolMode", report.pool().mode());
            putIfNotNull(other, "poolLauncher", report.pool().launcher());
            other.put("workers", report.pool().workers());
        }
        other.put("timeOrigin", "ts is in microseconds since the scheduler started (startedAt is when the build"
                + " began, before the target was resolved)");
        return other;
    }

    private static ObjectNode event(String name, String cat, String ph, long tsMicros, int pid, int tid) {
        ObjectNode e = NODES.objectNode();
        e.put("name", safe(name));
        e.put("cat", cat);
        e.put("ph", ph);
        e.put("ts", tsMicros);
        e.put("pid", pid);
        e.put("tid", tid);
        return e;
    }

    private static ObjectNode instant(String name, String cat, long atMs, int pid, int tid, ObjectNode args) {
        ObjectNode e = event(name, cat, "i", Math.max(0, atMs) * 1000, pid, tid);
        e.put("s", "t");
        e.set("args", args);
        return e;
    }

    private static ObjectNode processName(int pid, String name) {
        return meta("process_name", pid, null, "name", name);
    }

    private static ObjectNode meta(String name, int pid, Integer tid, String key, Object value) {
        ObjectNode m = NODES.objectNode();
        m.put("name", name);
        m.put("ph", "M");
        m.put("pid", pid);
        if (tid != null) {
            m.put("tid", tid);
        }
        ObjectNode args = m.putObject("args");
        if (value instanceof Integer i) {
            args.put(key, i);
        } else {
            args.put(key, (String) value);
        }
        return m;
    }

    private static void putIfNotNull(ObjectNode node, String key, String value) {
        if (value != null) {
            node.put(key, safe(value));
        }
    }

    /** {@code s} with each unpaired UTF-16 surrogate (which no encoder can write) replaced by U+FFFD. */
    static String safe(String s) {
        if (s == null) {
            return null;
        }
        StringBuilder out = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean pairedHigh = Character.isHighSurrogate(c) && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1));
            if (pairedHigh) {
                if (out != null) {
                    out.append(c).append(s.charAt(i + 1));
                }
                i++;
            } else if (Character.isSurrogate(c)) {
                if (out == null) {
                    out = new StringBuilder(s.length()).append(s, 0, i);
                }
                out.append('\uFFFD');
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? s : out.toString();
    }

    /** Orders {@code w2} before {@code w10} and {@code w1.2} between {@code w1} and {@code w2}: digit runs compare as numbers. */
    static int naturalCompare(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            char ca = a.charAt(i);
            char cb = b.charAt(j);
            if (Character.isDigit(ca) && Character.isDigit(cb)) {
                int si = i;
                int sj = j;
                while (i < a.length() && Character.isDigit(a.charAt(i))) {
                    i++;
                }
                while (j < b.length() && Character.isDigit(b.charAt(j))) {
                    j++;
                }
                String na = a.substring(si, i).replaceFirst("^0+(?=.)", "");
                String nb = b.substring(sj, j).replaceFirst("^0+(?=.)", "");
                int c = na.length() != nb.length() ? Integer.compare(na.length(), nb.length()) : na.compareTo(nb);
                if (c != 0) {
                    return c;
                }
            } else {
                if (ca != cb) {
                    return Character.compare(ca, cb);
                }
                i++;
                j++;
            }
        }
        int c = Integer.compare(a.length() - i, b.length() - j);
        return c != 0 ? c : a.compareTo(b);
    }
}
