package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.archpool.testing.RequiredTool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real reports, from builds that end in every outcome, validate against {@code docs/report.schema.json}; and the
 * validator is not vacuous: a real report, broken in one place at a time, is rejected each time.
 */
class ReportSchemaIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static String commandJob(String id, String extra, String... argv) {
        ArrayNode args = JSON.createArrayNode();
        for (String a : argv) {
            args.add(a);
        }
        return "{\"id\":\"" + id + "\",\"kind\":\"command\",\"argv\":" + args + extra + "}";
    }

    private static JsonNode job(JsonNode report, String id) {
        for (JsonNode j : report.path("jobs")) {
            if (j.path("id").asText().equals(id)) {
                return j;
            }
        }
        throw new AssertionError("no job " + id + " in " + report.toPrettyString());
    }

    private static JsonNode build(Path dir, String jobs, int expectedExit, String... args) throws Exception {
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + jobs + "]}");
        Path report = dir.resolve("report.json");
        String[] argv = new String[args.length + 4];
        argv[0] = "build";
        argv[1] = "archpool.json";
        System.arraycopy(args, 0, argv, 2, args.length);
        argv[args.length + 2] = "--report";
        argv[args.length + 3] = report.toString();
        Archpool.Run run = new Archpool().in(dir).run(argv);
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(expectedExit);
        return ReportSchema.assertValid(report);
    }

    @Test
    void theSchemaIsValidJsonSchema202012() {
        assertThat(ReportSchema.document().path("$schema").asText())
                .isEqualTo("https://json-schema.org/draft/2020-12/schema");
        assertThat(ReportSchema.metaSchemaProblems()).isEmpty();
    }

    /** The example in docs/report-schema.md is a valid report: the page cannot drift from the schema. */
    @Test
    void theDocumentedExampleValidates() throws Exception {
        String page = Files.readString(Archpool.repo().resolve("docs/report-schema.md"));
        int start = page.indexOf("```json\n");
        assertThat(start).as("a ```json block in docs/report-schema.md").isNotNegative();
        int end = page.indexOf("\n```", start + 8);
        ReportSchema.assertValid(JSON.readTree(page.substring(start + 8, end)), "the example in docs/report-schema.md");
    }

    /** A CMake project, a command, a non-zero exit, a signal, a missing program, a time limit and a dying worker. */
    @Test
    void succeededFailedTimedOutAndCrashedJobsValidate(@TempDir Path dir) throws Exception {
        RequiredTool.require("cmake", "ninja", "nvcc");
        Archpool.copyTree(Archpool.repo().resolve("examples/quickstart/vector_add"), dir.resolve("vector_add"));
        String jobs = String.join(",",
                "{\"id\":\"vector_add\",\"kind\":\"cmake\",\"sourceDir\":\"vector_add\"}",
                commandJob("echo", "", "sh", "-c", "echo building for {archs}"),
                commandJob("false", "", "false"),
                commandJob("missing", "", "archpool-it-no-such-program"),
                commandJob("segfault", "", "sh", "-c", "kill -SEGV $$"),
                commandJob("sleeper", ",\"timeout\":\"1s\"", "sleep", "5"),
                commandJob("worker-killer", "", "sh", "-c", FaultAgent.ask(dir, "worker-killer", "KILL") + "; sleep 5"));

        JsonNode r;
        try (FaultAgent agent = new FaultAgent(dir)) {
            r = build(dir, jobs, 1, "--platform", "cuda", "--arch", "90", "-j2", "-k");
        }

        assertThat(r.path("outcomes").properties()).extracting(Map.Entry::getKey)
                .containsExactlyInAnyOrder("succeeded", "failed", "timed_out", "crashed");
        JsonNode cmake = job(r, "vector_add");
        assertThat(cmake.path("outcome").asText()).isEqualTo("succeeded");
        assertThat(cmake.path("phases").findValuesAsText("name")).containsExactly("configure", "build", "inspect");
        assertThat(cmake.path("artifacts").toString()).contains("sm_90");
        assertThat(job(r, "false").path("exitCode").asInt()).isEqualTo(1);
        assertThat(job(r, "segfault").path("signal").asText()).isEqualTo("SIGSEGV");
        assertThat(job(r, "missing").path("outcome").asText()).isEqualTo("failed");
        assertThat(job(r, "missing").has("exitCode")).as("a program that never ran has no exit code").isFalse();
        JsonNode sleeper = job(r, "sleeper");
        assertThat(sleeper.path("outcome").asText()).isEqualTo("timed_out");
        assertThat(sleeper.has("exitCode")).isFalse();
        JsonNode killer = job(r, "worker-killer");
        assertThat(killer.path("outcome").asText()).isEqualTo("crashed");
        assertThat(killer.path("attemptFailures")).hasSize(2);
        assertThat(r.path("pool").path("workerEvents").findValuesAsText("event")).contains("started", "died");
        assertThat(r.path("gpuTargets").path(0).path("toolchainCheck").path("compiler").asText()).isEqualTo("nvcc");
    }

    /** Without -k, jobs after a failure are cancelled before they start: no worker, no log, no attempts. */
    @Test
    void jobsNotStartedValidate(@TempDir Path dir) throws Exception {
        JsonNode r = build(dir, commandJob("first", "", "false") + "," + commandJob("second", "", "true"), 1,
                "--arch", "90", "-j1");
        JsonNode second = job(r, "second");
        assertThat(second.path("outcome").asText()).isEqualTo("cancelled");
        assertThat(second.path("attempts").asInt()).isZero();
        assertThat(second.has("worker")).isFalse();
        assertThat(second.has("logPath")).isFalse();
    }

    /** SIGTERM mid-build: running jobs are cancelled with their worker and log tail, queued ones not started; 130. */
    @Test
    void anInterruptedBuildValidates(@TempDir Path dir) throws Exception {
        String jobs = String.join(",",
                commandJob("long1", "", "sh", "-c", "echo started >> started.txt; sleep 120"),
                commandJob("long2", "", "sh", "-c", "echo started >> started.txt; sleep 120"),
                commandJob("queued", "", "true"));
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + jobs + "]}");
        Path report = dir.resolve("report.json");
        Process coordinator = Archpool.process(List.of(Archpool.home().resolve("bin/archpool").toString(), "build",
                "archpool.json", "--arch", "90", "-j2", "-k", "--report", report.toString()))
                .directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile())
                .start();
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(dir.resolve("started.txt"))
                    && Files.readAllLines(dir.resolve("started.txt")).size() >= 2);
            coordinator.destroy();
            assertThat(coordinator.waitFor(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            coordinator.destroyForcibly();
        }
        assertThat(coordinator.exitValue()).isEqualTo(130);
        JsonNode r = ReportSchema.assertValid(report);
        assertThat(r.path("exitCode").asInt()).isEqualTo(130);
        assertThat(r.path("jobs").findValuesAsText("outcome")).containsOnly("cancelled");
        assertThat(job(r, "long1").path("worker").asText()).startsWith("w");
        assertThat(job(r, "queued").path("attempts").asInt()).isZero();
    }

    /**
     * A worker that never says hello: the job is crashed without an attempt, the event failed_to_start, and the
     * build, in which no worker could start, ends with exit code 70.
     */
    @Test
    void aWorkerThatDoesNotStartValidates(@TempDir Path dir) throws Exception {
        JsonNode r = build(dir, commandJob("orphan", "", "true"), 70,
                "--arch", "90", "-j1", "--retries", "0", "--worker-start-timeout", "1ms");
        assertThat(job(r, "orphan").path("outcome").asText()).isEqualTo("crashed");
        assertThat(r.path("pool").path("workerEvents").findValuesAsText("event")).containsOnly("failed_to_start");
    }

    /**
     * Detection (spy nvidia-smi and rocminfo printing real captures), thread mode (worker events without pid), no
     * toolchain check (absent), and a fallback; {@code archpool arch --json} validates as {@code $defs/resolution}.
     */
    @Test
    void detectedAndFallbackResolutionsValidate(@TempDir Path dir) throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path fixtures = Archpool.repo().resolve("orchestrator/src/test/resources/fixtures");
        script(bin.resolve("nvidia-smi"), "cat '"
                + fixtures.resolve("nvidia-smi/query-index-uuid-compute_cap-name-csv-noheader-h200.txt") + "'\n");
        script(bin.resolve("rocminfo"), "echo 'ROCk module is NOT loaded, possibly no GPU devices'; exit 1\n");
        script(bin.resolve("amdgpu-arch"), "echo 'Failed to get device count' >&2; exit 1\n");
        String path = bin + ":" + System.getenv("PATH");
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + commandJob("echo", "", "sh", "-c", "echo {archs}") + "]}");
        Path report = dir.resolve("report.json");

        Archpool.Run run = new Archpool().in(dir).env("PATH", path).env("CUDAARCHS", "").env("HIPARCHS", "")
                .run("build", "archpool.json", "--mode", "thread", "--no-toolchain-check", "--report", report.toString());

        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode r = ReportSchema.assertValid(report);
        assertThat(r.path("gpuTargets").path(0).path("source").asText()).isEqualTo("detected:nvidia-smi");
        assertThat(r.path("gpuTargets").path(0).path("devices")).isNotEmpty();
        assertThat(r.path("gpuTargets").path(0).has("toolchainCheck")).isFalse();
        assertThat(r.path("pool").path("workerEvents").findValues("pid")).isEmpty();

        Map<String, Archpool> arches = new LinkedHashMap<>();
        arches.put("detected cuda", new Archpool().env("PATH", path));
        Path rocm = Files.createDirectories(dir.resolve("rocm-bin"));
        script(rocm.resolve("rocminfo"), "cat '" + fixtures.resolve("rocminfo/mi300x-x4-gfx942.txt") + "'\n");
        arches.put("detected hip", new Archpool().env("PATH", rocm + ":/usr/bin:/bin").env("ROCR_VISIBLE_DEVICES", "1,3"));
        Path empty = Files.createDirectories(dir.resolve("empty"));
        arches.put("fallback", new Archpool().env("PATH", empty + ":/usr/bin:/bin"));
        for (Map.Entry<String, Archpool> e : arches.entrySet()) {
            List<String> args = switch (e.getKey()) {
                case "detected cuda" -> List.of("arch", "--json", "--platform", "cuda");
                case "detected hip" -> List.of("arch", "--json", "--platform", "hip");
                default -> List.of("arch", "--json", "--platform", "hip", "--fallback-arch", "gfx942");
            };
            Archpool.Run arch = e.getValue().env("CUDAARCHS", "").env("HIPARCHS", "").in(dir)
                    .run(args.toArray(String[]::new));
            assertThat(arch.exitCode()).as(e.getKey() + ": " + arch).isZero();
            JsonNode resolution = JSON.readTree(arch.stdout());
            assertThat(ReportSchema.problems("resolution", resolution)).as(e.getKey() + ": " + resolution.toPrettyString())
                    .isEmpty();
        }
        JsonNode hip = JSON.readTree(arches.get("detected hip").run("arch", "--json", "--platform", "hip").stdout());
        assertThat(hip.path("devices").findValuesAsText("targetId")).contains("gfx942:sramecc+:xnack-");
        assertThat(hip.path("visibility").path("visibleIndices").toString()).isEqualTo("[1,3]");
    }

    /** hipcc jobs: code that needs a hostcall buffer, and the gfx803 that hipcc builds without --offload-arch. */
    @Test
    void hipArtifactsWithHostcallKernelsValidate(@TempDir Path dir) throws Exception {
        RequiredTool.require("hipcc");
        String kernel = """
                #include <hip/hip_runtime.h>
                #include <cstdio>
                __global__ void hello(int x) { printf("hello %d\\n", x); }
                int main() { hipLaunchKernelGGL(hello, dim3(1), dim3(1), 0, 0, 1); return 0; }
                """;
        for (String sub : List.of("good", "default")) {
            Files.writeString(Files.createDirectories(dir.resolve(sub)).resolve("k.hip"), kernel);
        }
        String env = ",\"env\":{\"HIP_PLATFORM\":\"amd\"}";
        String jobs = commandJob("good", env + ",\"cwd\":\"good\"", "hipcc", "{offload-arch-flags}", "k.hip", "-o", "k")
                + "," + commandJob("default", env + ",\"cwd\":\"default\"", "hipcc", "k.hip", "-o", "k");

        JsonNode r = build(dir, jobs, 1, "--platform", "hip", "--arch", "gfx90a", "-j2", "-k");

        JsonNode good = job(r, "good");
        assertThat(good.path("outcome").asText()).isEqualTo("succeeded");
        assertThat(good.path("artifacts").get(0).path("hostcallKernels").toString())
                .isEqualTo("[\"gfx90a:_Z5helloi\"]");
        JsonNode wrong = job(r, "default");
        assertThat(wrong.path("outcome").asText()).isEqualTo("failed");
        assertThat(wrong.path("exitCode").asInt()).as("hipcc itself succeeded; the check failed the job").isZero();
        assertThat(wrong.path("artifacts").get(0).path("archs").toString()).isEqualTo("[\"gfx803\"]");
        assertThat(r.path("gpuTargets").path(0).path("toolchainCheck").path("probes").get(0).path("command").toString())
                .contains("--offload-arch=gfx90a");
    }

    /** Each mutation breaks one rule of the schema; the validator must reject every one, and accept the original. */
    @Test
    void theValidatorRejectsBrokenReports(@TempDir Path dir) throws Exception {
        JsonNode original = build(dir, commandJob("ok", "", "true") + "," + commandJob("bad", "", "false"), 1,
                "--arch", "90", "-j1", "-k");
        assertThat(ReportSchema.problems(original)).isEmpty();

        Map<String, Consumer<ObjectNode>> mutations = new LinkedHashMap<>();
        mutations.put("schemaVersion missing", r -> r.remove("schemaVersion"));
        mutations.put("schemaVersion 1", r -> r.put("schemaVersion", 1));
        mutations.put("jobs missing", r -> r.remove("jobs"));
        mutations.put("gpuTargets missing", r -> r.remove("gpuTargets"));
        mutations.put("gpuTargets empty", r -> r.set("gpuTargets", JSON.createArrayNode()));
        mutations.put("the version 1 resolution", r -> r.set("resolution", resolution(r)));
        mutations.put("a job without its target", r -> job0(r).remove("target"));
        mutations.put("a skipped job with a worker", r -> job0(r).put("outcome", "skipped").put("message", "skipped: x"));
        mutations.put("a HIP arch in a CUDA job's target", r -> ((ObjectNode) job0(r).get("target"))
                .set("archs", JSON.createArrayNode().add("gfx942")));
        mutations.put("an extra top-level field", r -> r.put("host", "ci-runner-7"));
        mutations.put("durationMs negative", r -> r.put("durationMs", -1));
        mutations.put("durationMs fractional", r -> r.put("durationMs", 12.5));
        mutations.put("durationMs a string", r -> r.put("durationMs", "12"));
        mutations.put("startedAt not a time", r -> r.put("startedAt", "yesterday"));
        mutations.put("startedAt an impossible date (format date-time)", r -> r.put("startedAt", "2026-13-45T25:61:00Z"));
        mutations.put("exitCode 2 (no report is written then)", r -> r.put("exitCode", 2));
        mutations.put("unknown key in outcomes", r -> ((ObjectNode) r.get("outcomes")).put("ignored", 1));
        mutations.put("platform rocm", r -> resolution(r).put("platform", "rocm"));
        mutations.put("a HIP arch for cuda", r -> resolution(r).set("archs", JSON.createArrayNode().add("gfx942")));
        mutations.put("archs empty", r -> resolution(r).set("archs", JSON.createArrayNode()));
        mutations.put("pool.mode docker", r -> ((ObjectNode) r.get("pool")).put("mode", "docker"));
        mutations.put("worker event unknown", r -> ((ObjectNode) r.get("pool").get("workerEvents").get(0))
                .put("event", "exploded"));
        mutations.put("job id missing", r -> job0(r).remove("id"));
        mutations.put("job outcome missing", r -> job0(r).remove("outcome"));
        mutations.put("job outcome 'success'", r -> job0(r).put("outcome", "success"));
        mutations.put("job outcome upper case", r -> job0(r).put("outcome", "SUCCEEDED"));
        mutations.put("job kind make", r -> job0(r).put("kind", "make"));
        mutations.put("job totalMs negative", r -> job0(r).put("totalMs", -5));
        mutations.put("job queueWaitMs null", r -> job0(r).putNull("queueWaitMs"));
        mutations.put("job worker null instead of absent", r -> job0(r).putNull("worker"));
        mutations.put("an extra job field", r -> job0(r).put("cached", true));
        mutations.put("phases missing", r -> job0(r).remove("phases"));
        mutations.put("phase name link", r -> ((ObjectNode) job0(r).get("phases").get(0)).put("name", "link"));
        mutations.put("phase ms negative", r -> ((ObjectNode) job0(r).get("phases").get(0)).put("ms", -1));
        mutations.put("a failed job without message", r -> ((ObjectNode) r.get("jobs").get(1)).remove("message"));
        mutations.put("a succeeded job with exit code 1", r -> job0(r).put("exitCode", 1));
        mutations.put("an artifact without path", r -> job0(r).set("artifacts",
                JSON.createArrayNode().add(JSON.createObjectNode().set("archs", JSON.createArrayNode()))));
        mutations.put("hostcallKernels empty (absent when empty)", r -> job0(r).set("artifacts",
                JSON.createArrayNode().add(JSON.createObjectNode().put("path", "/x/k")
                        .<ObjectNode>set("archs", JSON.createArrayNode().add("gfx90a"))
                        .set("hostcallKernels", JSON.createArrayNode()))));

        String key = "0123456789abcdef".repeat(4);
        mutations.put("a cache status 'hot'", r -> job0(r).put("cache", "hot"));
        mutations.put("an uncacheable job with a key", r -> job0(r).put("cache", "uncacheable").put("cacheKey", key));
        mutations.put("a stored job without a key", r -> job0(r).put("cache", "stored").remove("cacheKey"));
        mutations.put("a cache key that is not SHA-256", r -> job0(r).put("cache", "stored").put("cacheKey", "abc"));
        mutations.put("a restored job with a worker", r -> job0(r).put("cache", "hit").put("cacheKey", key)
                .put("attempts", 0));
        mutations.put("a restored job that failed", r -> ((ObjectNode) r.get("jobs").get(1)).put("cache", "hit")
                .put("cacheKey", key).put("attempts", 0).remove("worker"));
        mutations.put("a built job that succeeded without a worker", r -> job0(r).put("cache", "stored")
                .put("cacheKey", key).remove("worker"));
        mutations.put("cache summary without a status", r -> ((ObjectNode) r.get("cache").get("jobs")).remove("hit"));
        mutations.put("hitRate above 1", r -> ((ObjectNode) r.get("cache")).put("hitRate", 1.5));
        mutations.put("a remote cache URL with no scheme", r -> ((ObjectNode) r.get("cache")).put("remote", "cache:80"));

        mutations.put("a stored job without a miss reason", r -> job0(r).put("cache", "stored").put("cacheKey", key));
        mutations.put("a miss reason 'stale'", r -> job0(r).put("cache", "miss").put("cacheKey", key)
                .put("cacheMissReason", "stale"));
        mutations.put("a restored job with a miss reason", r -> job0(r).put("cache", "hit").put("cacheKey", key)
                .put("attempts", 0).put("cacheMissReason", "no-entry").remove("worker"));
        mutations.put("an uncacheable job with a miss reason", r -> job0(r).put("cacheMissReason", "no-entry"));
        mutations.put("a rejected job whose miss reason is no-entry", r -> job0(r).put("cache", "rejected")
                .put("cacheKey", key).put("cacheMissReason", "no-entry"));
        mutations.put("a stored job whose miss reason is rejected", r -> job0(r).put("cache", "stored")
                .put("cacheKey", key).put("cacheMissReason", "rejected"));
        mutations.put("cache summary without missReasons", r -> ((ObjectNode) r.get("cache")).remove("missReasons"));
        mutations.put("cache summary without a miss reason", r -> ((ObjectNode) r.get("cache").get("missReasons"))
                .remove("read-set-changed"));

        ObjectNode missed = original.deepCopy();
        job0(missed).put("cache", "stored").put("cacheKey", key).put("cacheMissReason", "read-set-changed");
        assertThat(ReportSchema.problems(missed)).as("a stored job whose entry's read set changed").isEmpty();

        ObjectNode restored = original.deepCopy();
        job0(restored).put("cache", "hit").put("cacheKey", key).put("attempts", 0).remove(List.of("worker", "cacheNote"));
        assertThat(ReportSchema.problems(restored)).as("a restored job").isEmpty();

        for (Map.Entry<String, Consumer<ObjectNode>> m : mutations.entrySet()) {
            ObjectNode broken = original.deepCopy();
            m.getValue().accept(broken);
            assertThat(ReportSchema.problems(broken)).as("the validator accepted a report with " + m.getKey())
                    .isNotEmpty();
        }
    }

    private static ObjectNode resolution(ObjectNode report) {
        return (ObjectNode) report.get("gpuTargets").get(0);
    }

    private static ObjectNode job0(ObjectNode report) {
        return (ObjectNode) report.get("jobs").get(0);
    }

    private static void script(Path file, String body) throws Exception {
        Files.writeString(file, "#!/bin/sh\n" + body);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
