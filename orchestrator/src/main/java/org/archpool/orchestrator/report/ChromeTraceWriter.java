package org.archpool.orchestrator.report;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.archpool.orchestrator.output.AtomicFile;
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
 * Every job event's {@code args} hold {@code job}, {@code kind}, {@code arch} (the architectures the job was
 * built for, {@code ;}-joined), {@code platform}, {@code outcome}, {@code exitCode} and {@code signal} (when recorded), {@code attempt} (the
 * number of the last attempt), {@code worker}, {@code phase}, {@code phaseExitCode} (when the phase's process
 * exited), {@code phaseMs}, {@code log} and, on a job's last event when it did not succeed, {@code message}.
 * The JSON is streamed with Jackson's generator: what is kept per job is a few small event records (to sort the
 * events by time), never a tree of the document, so a build of 100,000 jobs is written in a few MiB. Strings are
 * passed through unchanged except that unpaired UTF-16 surrogates (which cannot be encoded) become U+FFFD.
 */
public final class ChromeTraceWriter {

    /** The "workers" process: one thread per worker. */
    public static final int WORKERS_PID = 1;
    /** The "queue" process: queue waits and jobs that never started. */
    public static final int QUEUE_PID = 2;
    static final int QUEUED_TID = 1;
    static final int NOT_STARTED_TID = 2;

    private static final JsonFactory JSON = JsonFactory.builder().build();

    /** Writes the trace of {@code report} to {@code file} atomically ({@link AtomicFile}). */
    public void write(BuildReport report, Path file) throws IOException {
        AtomicFile.write(file, out -> writeTo(report, out));
    }

    /** Writes the trace of {@code report} to {@code out}, in UTF-8, leaving {@code out} open. */
    public void writeTo(BuildReport report, OutputStream out) throws IOException {
        try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)
                .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)) {
            write(report, g);
        }
    }

    /** The trace as JSON text. */
    public String toJson(BuildReport report) {
        StringWriter text = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(text)) {
            write(report, g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }

    private static void write(BuildReport report, JsonGenerator g) throws IOException {
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

        List<Event> events = new ArrayList<>();
        for (WorkerEvent e : workerEvents) {
            if (e.worker() != null) {
                events.add(new WorkerInstant(e, tids.get(e.worker())));
            }
        }

        // jobs on each worker's track, in dispatch order
        Map<String, List<JobOutcome>> byWorker = new LinkedHashMap<>();
        for (JobOutcome j : jobs) {
            if (j.worker() != null) {
                byWorker.computeIfAbsent(j.worker(), w -> new ArrayList<>()).add(j);
            }
        }
        for (Map.Entry<String, List<JobOutcome>> track : byWorker.entrySet()) {
            List<JobOutcome> onTrack = track.getValue();
            onTrack.sort(Comparator.comparingLong(JobOutcome::startMs)); // stable: manifest order on ties
            int tid = tids.get(track.getKey());
            List<WorkerEvent> ends = workerEvents.stream()
                    .filter(e -> track.getKey().equals(e.worker()) && !"started".equals(e.event())).toList();
            for (int i = 0; i < onTrack.size(); i++) {
                JobOutcome j = onTrack.get(i);
                long limit = i + 1 < onTrack.size() ? onTrack.get(i + 1).startMs() : Long.MAX_VALUE;
                jobEvents(j, tid, limit, ends, events);
            }
        }
        byWorker.clear();

        boolean anyNotStarted = false;
        boolean anyQueued = false;
        long submittedMs = jobs.stream().mapToLong(j -> Math.max(0, j.startMs() - j.queueWaitMs())).min().orElse(0);
        for (int i = 0; i < jobs.size(); i++) {
            JobOutcome j = jobs.get(i);
            if (j.worker() == null) {
                anyNotStarted = true;
                events.add(new NotStarted(j));
            }
            if (j.queueWaitMs() > 0) {
                anyQueued = true;
                long end = Math.min(submittedMs + j.queueWaitMs(), Math.max(submittedMs, j.startMs()));
                events.add(new Queued(j, i + 1, true, submittedMs));
                events.add(new Queued(j, i + 1, false, end));
            }
        }
        events.sort(Comparator.comparingLong(Event::tsMicros)); // stable

        g.writeStartObject();
        g.writeArrayFieldStart("traceEvents");
        processName(g, WORKERS_PID, "workers");
        meta(g, "process_sort_index", WORKERS_PID, null, "sort_index", WORKERS_PID);
        for (Map.Entry<String, Integer> t : tids.entrySet()) {
            meta(g, "thread_name", WORKERS_PID, t.getValue(), "name", safe(t.getKey()));
            meta(g, "thread_sort_index", WORKERS_PID, t.getValue(), "sort_index", t.getValue());
        }
        if (anyQueued || anyNotStarted) {
            processName(g, QUEUE_PID, "queue");
            meta(g, "process_sort_index", QUEUE_PID, null, "sort_index", QUEUE_PID);
            if (anyQueued) {
                meta(g, "thread_name", QUEUE_PID, QUEUED_TID, "name", "queued");
                meta(g, "thread_sort_index", QUEUE_PID, QUEUED_TID, "sort_index", QUEUED_TID);
            }
            if (anyNotStarted) {
                meta(g, "thread_name", QUEUE_PID, NOT_STARTED_TID, "name", "not started");
                meta(g, "thread_sort_index", QUEUE_PID, NOT_STARTED_TID, "sort_index", NOT_STARTED_TID);
            }
        }
        for (Event e : events) {
            e.write(g, arch);
        }
        g.writeEndArray();
        g.writeStringField("displayTimeUnit", "ms");
        otherData(g, report, arch);
        g.writeEndObject();
    }

    private static void jobEvents(JobOutcome j, int tid, long limit, List<WorkerEvent> ends, List<Event> events) {
        boolean withMessage = j.outcome() != null && j.outcome() != Outcome.SUCCEEDED && j.message() != null;
        if (j.phases().isEmpty()) {
            // no phase timings (crashed, or cancelled with its worker): one event for the job's total, which
            // ends no later than the worker's death
            long end = limit;
            for (WorkerEvent e : ends) {
                if (e.atMs() >= j.startMs()) {
                    end = Math.min(end, e.atMs());
                }
            }
            events.add(new Complete(j, tid, -1, j.startMs(), end, withMessage));
        } else {
            long t = j.startMs();
            List<PhaseTiming> phases = j.phases();
            for (int p = 0; p < phases.size(); p++) {
                events.add(new Complete(j, tid, p, t, limit, withMessage && p == phases.size() - 1));
                t = Math.min(t + Math.max(0, phases.get(p).ms()), limit); // limit >= startMs: tracks sorted
            }
        }
    }

    /** One trace event, kept small until it is written: the job or worker event it draws, and where. */
    private sealed interface Event permits WorkerInstant, Complete, NotStarted, Queued {
        long tsMicros();

        void write(JsonGenerator g, String arch) throws IOException;
    }

    /** A worker's start, death or recycle on its track. */
    private record WorkerInstant(WorkerEvent e, int tid) implements Event {
        @Override
        public long tsMicros() {
            return Math.max(0, e.atMs()) * 1000;
        }

        @Override
        public void write(JsonGenerator g, String arch) throws IOException {
            header(g, e.worker() + " " + e.event(), "worker", "i", tsMicros(), WORKERS_PID, tid);
            g.writeStringField("s", "t");
            g.writeObjectFieldStart("args");
            g.writeStringField("worker", safe(e.worker()));
            stringIfNotNull(g, "event", e.event());
            if (e.pid() != null) {
                g.writeNumberField("pid", e.pid());
            }
            stringIfNotNull(g, "cause", e.cause());
            stringIfNotNull(g, "reason", e.reason());
            g.writeEndObject();
            g.writeEndObject();
        }
    }

    /**
     * One phase of a job ({@code phase} its index), or the job's total ({@code phase} -1), from {@code startMs},
     * cut at {@code limitMs}; {@code withMessage} on a failed job's last event.
     */
    private record Complete(JobOutcome j, int tid, int phase, long startMs, long limitMs, boolean withMessage)
            implements Event {
        @Override
        public long tsMicros() {
            return startMs * 1000;
        }

        @Override
        public void write(JsonGenerator g, String arch) throws IOException {
            PhaseTiming timing = phase < 0 ? null : j.phases().get(phase);
            String name = timing == null ? "total" : timing.name().wireName();
            long recorded = Math.max(0, timing == null ? j.totalMs() : timing.ms());
            long dur = Math.max(0, Math.min(recorded, limitMs - startMs));
            header(g, j.id() + " " + name, name, "X", tsMicros(), WORKERS_PID, tid);
            g.writeNumberField("dur", dur * 1000);
            g.writeObjectFieldStart("args");
            g.writeStringField("job", safe(j.id()));
            stringIfNotNull(g, "kind", j.kind());
            stringIfNotNull(g, "arch", archOf(j, arch));
            stringIfNotNull(g, "platform", j.target() == null ? null : j.target().platform().wireName());
            g.writeStringField("outcome", j.outcome() == null ? null : j.outcome().wireName());
            if (j.exitCode() != null) {
                g.writeNumberField("exitCode", j.exitCode());
            }
            stringIfNotNull(g, "signal", j.signal());
            g.writeNumberField("attempt", j.attempts());
            g.writeStringField("worker", safe(j.worker()));
            g.writeStringField("phase", name);
            if (timing != null && timing.exitCode() != null) {
                g.writeNumberField("phaseExitCode", timing.exitCode());
            }
            g.writeNumberField("phaseMs", recorded);
            stringIfNotNull(g, "log", j.logPath());
            if (dur < recorded) {
                g.writeBooleanField("clipped", true);
            }
            if (withMessage) {
                g.writeStringField("message", safe(j.message()));
            }
            g.writeEndObject();
            g.writeEndObject();
        }
    }

    /** A job no worker ever ran, at the time it was given up. */
    private record NotStarted(JobOutcome j) implements Event {
        @Override
        public long tsMicros() {
            return Math.max(0, j.startMs()) * 1000;
        }

        @Override
        public void write(JsonGenerator g, String arch) throws IOException {
            header(g, j.id() + " not started", "not_started", "i", tsMicros(), QUEUE_PID, NOT_STARTED_TID);
            g.writeStringField("s", "t");
            g.writeObjectFieldStart("args");
            g.writeStringField("job", safe(j.id()));
            stringIfNotNull(g, "kind", j.kind());
            g.writeStringField("outcome", j.outcome() == null ? null : j.outcome().wireName());
            stringIfNotNull(g, "arch", archOf(j, arch));
            stringIfNotNull(g, "platform", j.target() == null ? null : j.target().platform().wireName());
            g.writeNumberField("queueWaitMs", j.queueWaitMs());
            stringIfNotNull(g, "message", j.message());
            g.writeEndObject();
            g.writeEndObject();
        }
    }

    /** The begin ({@code begin}) or end of a job's queue wait, async id {@code id}, at {@code atMs}. */
    private record Queued(JobOutcome j, int id, boolean begin, long atMs) implements Event {
        @Override
        public long tsMicros() {
            return atMs * 1000;
        }

        @Override
        public void write(JsonGenerator g, String arch) throws IOException {
            header(g, j.id() + " queued", "queue", begin ? "b" : "e", tsMicros(), QUEUE_PID, QUEUED_TID);
            g.writeNumberField("id", id);
            if (begin) {
                g.writeObjectFieldStart("args");
                g.writeStringField("job", safe(j.id()));
                g.writeNumberField("queueWaitMs", j.queueWaitMs());
                if (j.worker() != null) {
                    g.writeStringField("worker", safe(j.worker()));
                }
                g.writeEndObject();
            }
            g.writeEndObject();
        }
    }

    /** What the job was built for: its own target's list, else the build's. */
    private static String archOf(JobOutcome j, String arch) {
        return j.target() != null ? j.target().cmakeList() : arch;
    }

    private static void otherData(JsonGenerator g, BuildReport report, String arch) throws IOException {
        g.writeObjectFieldStart("otherData");
        g.writeStringField("generator", "archpool");
        stringIfNotNull(g, "archpoolVersion", report.archpoolVersion());
        stringIfNotNull(g, "manifest", report.manifest());
        stringIfNotNull(g, "startedAt", report.startedAt());
        g.writeNumberField("durationMs", report.durationMs());
        g.writeNumberField("exitCode", report.exitCode());
        if (report.resolution() != null && report.resolution().platform() != null) {
            g.writeStringField("platform", report.resolution().platform().wireName());
        }
        stringIfNotNull(g, "arch", arch);
        if (report.pool() != null) {
            stringIfNotNull(g, "poolMode", report.pool().mode());
            stringIfNotNull(g, "poolLauncher", report.pool().launcher());
            g.writeNumberField("workers", report.pool().workers());
        }
        g.writeStringField("timeOrigin", "ts is in microseconds since the scheduler started (startedAt is when the"
                + " build began, before the target was resolved)");
        g.writeEndObject();
    }

    /** An event's opening: {@code name, cat, ph, ts, pid, tid}; the caller writes the rest and closes it. */
    private static void header(JsonGenerator g, String name, String cat, String ph, long tsMicros, int pid, int tid)
            throws IOException {
        g.writeStartObject();
        g.writeStringField("name", safe(name));
        g.writeStringField("cat", cat);
        g.writeStringField("ph", ph);
        g.writeNumberField("ts", tsMicros);
        g.writeNumberField("pid", pid);
        g.writeNumberField("tid", tid);
    }

    private static void processName(JsonGenerator g, int pid, String name) throws IOException {
        meta(g, "process_name", pid, null, "name", name);
    }

    private static void meta(JsonGenerator g, String name, int pid, Integer tid, String key, Object value)
            throws IOException {
        g.writeStartObject();
        g.writeStringField("name", name);
        g.writeStringField("ph", "M");
        g.writeNumberField("pid", pid);
        if (tid != null) {
            g.writeNumberField("tid", tid);
        }
        g.writeObjectFieldStart("args");
        if (value instanceof Integer i) {
            g.writeNumberField(key, i);
        } else {
            g.writeStringField(key, (String) value);
        }
        g.writeEndObject();
        g.writeEndObject();
    }

    private static void stringIfNotNull(JsonGenerator g, String key, String value) throws IOException {
        if (value != null) {
            g.writeStringField(key, safe(value));
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
