package org.archpool.orchestrator.report;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import org.archpool.orchestrator.schedule.JobOutcome;

/**
 * Build reports for the writers' tests: the real ones under {@code src/test/resources/report/} (written by
 * {@code archpool build} on a machine with nvcc, paths replaced by {@code /home/user/…}), and synthetic ones
 * built as JSON and read through Jackson, the way the report is read by its consumers. Going through JSON keeps
 * these tests independent of the records' constructors (a component added to a record reads as null/0).
 */
final class ReportTestData {

    static final ObjectMapper MAPPER = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    /** The real reports kept as test resources. */
    static final String QUICKSTART = "quickstart-cuda90-j2.report.json";
    static final String MIXED = "mixed-keep-going.report.json";
    static final String STOP_ON_FAILURE = "stop-on-failure.report.json";
    static final List<String> REAL = List.of(QUICKSTART, MIXED, STOP_ON_FAILURE);

    private ReportTestData() {
    }

    /** A real report from {@code src/test/resources/report/}. */
    static BuildReport load(String name) {
        try (InputStream in = ReportTestData.class.getResourceAsStream("/report/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no test resource /report/" + name);
            }
            return MAPPER.readValue(in, BuildReport.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A job outcome; set fields with the builder's methods. */
    static Job job(String id) {
        return new Job(id);
    }

    /** A report over {@code jobs} for {@code cuda 80;90}, two or more workers, with these worker events. */
    static BuildReport report(List<JobOutcome> jobs, ObjectNode... workerEvents) {
        ObjectNode r = MAPPER.createObjectNode();
        r.put("schemaVersion", 2);
        r.put("archpoolVersion", "0.1.0-test");
        r.put("manifest", "/home/user/project/quickstart/archpool.json");
        r.put("startedAt", "2026-11-30T15:26:33.719133762Z");
        r.put("durationMs", 94_187);
        r.put("exitCode", jobs.stream().allMatch(j -> j.outcome().wireName().equals("succeeded")) ? 0 : 1);
        ObjectNode resolution = r.putArray("gpuTargets").addObject();
        resolution.put("platform", "cuda");
        resolution.putArray("archs").add("80").add("90");
        resolution.put("source", "flag");
        resolution.put("detail", "--arch 80;90");
        resolution.putArray("devices");
        resolution.putArray("warnings");
        resolution.putArray("probes");
        ObjectNode pool = r.putObject("pool");
        pool.put("mode", "process");
        pool.put("workers", 3);
        pool.put("buildParallelism", 1);
        pool.put("retries", 1);
        pool.put("keepGoing", true);
        pool.put("logDir", "/home/user/project/.archpool/logs");
        pool.put("deviceIsolation", "namespace");
        ArrayNode events = pool.putArray("workerEvents");
        for (ObjectNode e : workerEvents) {
            events.add(e);
        }
        ObjectNode outcomes = r.putObject("outcomes");
        jobs.forEach(j -> outcomes.put(j.outcome().wireName(), outcomes.path(j.outcome().wireName()).asInt() + 1));
        ArrayNode jobArray = r.putArray("jobs");
        jobs.forEach(j -> jobArray.add(MAPPER.valueToTree(j)));
        return convert(r, BuildReport.class);
    }

    /** A {@code pool.workerEvents} entry. */
    static ObjectNode workerEvent(String worker, String event, long atMs, String reason) {
        ObjectNode e = MAPPER.createObjectNode();
        e.put("worker", worker);
        e.put("event", event);
        e.put("pid", 4000 + Math.abs(worker.hashCode() % 1000));
        e.put("atMs", atMs);
        if (reason != null) {
            e.put("cause", "exit");
            e.put("reason", reason);
        }
        return e;
    }

    static <T> T convert(ObjectNode node, Class<T> type) {
        try {
            return MAPPER.treeToValue(node, type);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Builds a {@link JobOutcome} as its JSON; phases add to configureMs/buildMs/… like the scheduler does. */
    static final class Job {
        private final ObjectNode node = MAPPER.createObjectNode();
        private final ArrayNode phases;

        private Job(String id) {
            node.put("id", id);
            node.put("kind", "cmake");
            node.put("outcome", "succeeded");
            node.put("attempts", 1);
            phases = node.putArray("phases");
            node.putArray("artifacts");
            node.putArray("attemptFailures");
            node.putArray("warnings");
        }

        Job kind(String kind) {
            node.put("kind", kind);
            return this;
        }

        /** Built for {@code platform} and {@code archs}. */
        Job target(String platform, String... archs) {
            ObjectNode t = node.putObject("target");
            t.put("platform", platform);
            ArrayNode list = t.putArray("archs");
            for (String arch : archs) {
                list.add(arch);
            }
            return this;
        }

        Job outcome(String outcome) {
            node.put("outcome", outcome);
            return this;
        }

        Job exitCode(Integer code) {
            node.put("exitCode", code);
            return this;
        }

        Job signal(String signal) {
            node.put("signal", signal);
            return this;
        }

        /** Ran on {@code worker}; its last attempt was dispatched at {@code startMs}. */
        Job on(String worker, long startMs) {
            node.put("worker", worker);
            node.put("startMs", startMs);
            if (!node.has("logPath")) {
                node.put("logPath", "/home/user/project/.archpool/logs/" + node.get("id").asText() + ".log");
            }
            return this;
        }

        /** Never ran: given up at {@code atMs}. */
        Job notStarted(long atMs, String message) {
            node.put("outcome", "cancelled");
            node.put("attempts", 0);
            node.put("startMs", atMs);
            node.put("message", message);
            return this;
        }

        Job attempts(int attempts, String... failures) {
            node.put("attempts", attempts);
            ArrayNode f = node.putArray("attemptFailures");
            for (String failure : failures) {
                f.add(failure);
            }
            return this;
        }

        Job queueWait(long ms) {
            node.put("queueWaitMs", ms);
            return this;
        }

        Job total(long ms) {
            node.put("totalMs", ms);
            return this;
        }

        /** A phase; {@code exitCode} null when its process never exited (timed out) or it ran none (inspect). */
        Job phase(String name, long ms, Integer exitCode) {
            ObjectNode p = phases.addObject();
            p.put("name", name);
            p.put("ms", ms);
            if (exitCode != null) {
                p.put("exitCode", exitCode);
            }
            String field = name + "Ms";
            node.put(field, node.path(field).asLong() + ms);
            if (!node.has("totalMs") || node.get("totalMs").asLong() < sumPhases() + 20) {
                node.put("totalMs", sumPhases() + 20);
            }
            return this;
        }

        private long sumPhases() {
            long sum = 0;
            for (var p : phases) {
                sum += p.get("ms").asLong();
            }
            return sum;
        }

        Job log(String path) {
            node.put("logPath", path);
            return this;
        }

        Job logTail(String tail) {
            node.put("logTail", tail);
            return this;
        }

        Job message(String message) {
            node.put("message", message);
            return this;
        }

        Job warning(String warning) {
            ((ArrayNode) node.get("warnings")).add(warning);
            return this;
        }

        Job artifact(String path, String... archs) {
            ObjectNode a = ((ArrayNode) node.get("artifacts")).addObject();
            a.put("path", path);
            ArrayNode list = a.putArray("archs");
            for (String arch : archs) {
                list.add(arch);
            }
            return this;
        }

        JobOutcome build() {
            return convert(node, JobOutcome.class);
        }
    }

    /**
     * A build like the ones archpool runs: 5 worker tracks (w1, w1.2 after w1 died, w2, w10, w10.2 — to check
     * the natural order), every outcome, queue waits, a retry and two jobs that never started.
     */
    static BuildReport realistic() {
        List<JobOutcome> jobs = List.of(
                job("vector_add").on("w1", 5_062).queueWait(0)
                        .phase("configure", 16_427, 0).phase("build", 10_271, 0).phase("inspect", 78, null)
                        .exitCode(0).total(32_959)
                        .artifact("/home/user/project/build/vector_add/libvector_add_kernels.so",
                                "compute_80", "sm_80", "compute_90", "sm_90")
                        .build(),
                job("saxpy").on("w2", 5_079).queueWait(0)
                        .phase("configure", 17_356, 0).phase("build", 12_180, 0).phase("inspect", 138, null)
                        .exitCode(0).total(35_860)
                        .artifact("/home/user/project/build/saxpy/libsaxpy.so", "sm_80", "sm_90", "sm_75")
                        .warning("libsaxpy.so also holds sm_75, which was not requested")
                        .build(),
                job("broken_kernel").outcome("failed").on("w10", 5_100).queueWait(0)
                        .phase("configure", 3_000, 0).phase("build", 1_200, 1).exitCode(1)
                        .message("build (cmake) exited with status 1")
                        .logTail("kernels.cu(3): error: identifier \"undeclared_value\" is undefined")
                        .build(),
                job("slow_kernel").kind("command").outcome("timed_out").on("w10", 9_400).queueWait(9_390)
                        .phase("command", 3_000, null)
                        .message("timed out in the command phase")
                        .logTail("# running at the time limit, now killed:\n#   pid 3542: /usr/bin/sleep 600")
                        .build(),
                job("worker_killer").kind("command").outcome("crashed").on("w1.2", 36_000).queueWait(32_900)
                        .attempts(2, "worker w1 (pid 4242): worker closed its output",
                                "worker w1.2 (pid 4243): worker closed its output")
                        .total(4_100)
                        .message("the infrastructure failed 2 time(s); last: worker w1.2 (pid 4243): worker"
                                + " closed its output")
                        .build(),
                job("retried_ok").kind("command").outcome("succeeded").on("w10.2", 14_950).queueWait(12_480)
                        .attempts(2, "worker w10 (pid 4300): protocol error: not JSON")
                        .phase("command", 2_000, 0).phase("inspect", 5, null).exitCode(0).total(4_480)
                        .build(),
                job("matmul").on("w2", 41_000).queueWait(35_900)
                        .phase("configure", 17_700, 0).phase("build", 10_300, 0).phase("inspect", 11, null)
                        .exitCode(0).build(),
                job("histogram").notStarted(70_000, "not started: the build was interrupted (SIGINT or SIGTERM)")
                        .queueWait(69_990).build(),
                job("stencil1d").notStarted(70_000, "not started: the build was interrupted (SIGINT or SIGTERM)")
                        .queueWait(69_990).build());
        return report(jobs,
                workerEvent("w1", "started", 5_063, null),
                workerEvent("w2", "started", 5_080, null),
                workerEvent("w10", "started", 5_090, null),
                workerEvent("w1", "died", 33_500, "worker w1 (pid 4242): worker closed its output"),
                workerEvent("w1.2", "started", 35_990, null),
                workerEvent("w1.2", "died", 37_100, "worker w1.2 (pid 4243): worker closed its output"),
                workerEvent("w10", "died", 12_600, "worker w10 (pid 4300): protocol error: not JSON"),
                workerEvent("w10.2", "started", 14_900, null));
    }
}
