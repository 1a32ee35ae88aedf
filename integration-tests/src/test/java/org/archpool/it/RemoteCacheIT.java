package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --remote-cache} against a real nginx serving Bazel's HTTP cache layout ({@link NginxCache}): what one build
 * stores another restores, read-only stores nothing, a remote that fails costs no job and is reported once, the
 * authentication header is sent and written nowhere, and a blob damaged on the server is refused, rebuilt and
 * repaired. The jobs are command jobs that copy their declared inputs into their outputs (no GPU code, which strict
 * verification lets pass), so no compiler is needed; one output is 2 MiB, over nginx's default body limit. Each test
 * has its own cache folders and its own path on the server.
 */
class RemoteCacheIT {

    private static final String HEADER = "ARCHPOOL_REMOTE_CACHE_HEADER";
    private static final List<String> JOBS = List.of("j1", "j2", "j3");

    private static NginxCache nginx;

    @BeforeAll
    static void server() throws Exception {
        nginx = NginxCache.require();
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (nginx != null) {
            nginx.close();
        }
    }

    /**
     * A project of three command jobs: {@code jN} copies {@code inN} into {@code outN.o}; j1 also prints its
     * environment into its log, so that a variable passed on to jobs would be seen.
     */
    private static Path project(Path dir) throws IOException {
        Path project = Files.createDirectories(dir.resolve("project"));
        Files.writeString(project.resolve("in1.txt"), "the first input\n");
        Files.writeString(project.resolve("in2.txt"), "the second input\n");
        byte[] large = new byte[2 * 1024 * 1024 + 5];
        new Random(42).nextBytes(large);
        Files.write(project.resolve("in3.bin"), large);
        return Archpool.manifest(project, "{\"version\":1,\"jobs\":["
                + job("j1", "env; cat in1.txt > out1.o", "in1.txt", "out1.o") + ","
                + job("j2", "cat in2.txt > out2.o", "in2.txt", "out2.o") + ","
                + job("j3", "cat in3.bin > out3.o", "in3.bin", "out3.o") + "]}").getParent();
    }

    private static String job(String id, String script, String input, String output) {
        return "{\"id\":\"" + id + "\",\"kind\":\"command\",\"argv\":[\"sh\",\"-c\",\"" + script + "\"],\"cwd\":\".\","
                + "\"inputs\":[\"" + input + "\"],\"artifacts\":[\"" + output + "\"]}";
    }

    private static Path output(Path project, String job) {
        return project.resolve("out" + job.substring(1) + ".o");
    }

    private static Map<String, byte[]> outputs(Path project) throws IOException {
        Map<String, byte[]> bytes = new LinkedHashMap<>();
        for (String job : JOBS) {
            bytes.put(job, Files.readAllBytes(output(project, job)));
        }
        return bytes;
    }

    private static void deleteOutputs(Path project) throws IOException {
        for (String job : JOBS) {
            Files.delete(output(project, job));
        }
    }

    private static Archpool.Run build(Path project, Path cache, String remote, Map<String, String> env,
                                      String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("build", project.resolve("archpool.json").toString(),
                "--platform", "cuda", "--arch", "90", "-j2", "--no-toolchain-check", "--cache", cache.toString(),
                "--remote-cache", remote, "--report", project.resolve("report.json").toString(),
                "--log-dir", project.resolve("logs").toString()));
        args.addAll(List.of(extra));
        Archpool archpool = new Archpool().in(project).env(HEADER, "");
        env.forEach(archpool::env);
        return archpool.run(args.toArray(String[]::new));
    }

    private static Archpool.Run build(Path project, Path cache, String remote, String... extra) throws Exception {
        return build(project, cache, remote, Map.of(), extra);
    }

    private static JsonNode report(Path project) throws IOException {
        return Archpool.json(project.resolve("report.json"));
    }

    private static JsonNode job(JsonNode report, String id) {
        for (JsonNode j : report.path("jobs")) {
            if (j.path("id").asText().equals(id)) {
                return j;
            }
        }
        throw new AssertionError("no job " + id + " in " + report);
    }

    /** Each job's cache status, by id. */
    private static Map<String, String> statuses(JsonNode report) {
        Map<String, String> statuses = new LinkedHashMap<>();
        for (String id : JOBS) {
            JsonNode j = job(report, id);
            assertThat(j.path("outcome").asText()).as(id + " in " + report).isEqualTo("succeeded");
            statuses.put(id, j.path("cache").asText());
        }
        return statuses;
    }

    private static Map<String, String> all(String status) {
        Map<String, String> all = new LinkedHashMap<>();
        JOBS.forEach(id -> all.put(id, status));
        return all;
    }

    private static Map<String, String> keys(JsonNode report) {
        Map<String, String> keys = new LinkedHashMap<>();
        JOBS.forEach(id -> keys.put(id, job(report, id).path("cacheKey").asText()));
        return keys;
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            n++;
        }
        return n;
    }

    /** stderr said once that the remote failed, and nothing else about it. */
    private static void remoteFailedOnce(Archpool.Run run, String remote) {
        assertThat(count(run.stderr(), "the remote cache " + remote + " failed")).as(run.toString()).isEqualTo(1);
        assertThat(count(run.stderr(), "remote cache")).as(run.toString()).isEqualTo(1);
    }

    @Test
    void whatOneBuildStoresAnotherRestoresFromTheRemoteAndKeeps(@TempDir Path dir) throws Exception {
        Path project = project(dir);
        String prefix = NginxCache.uniquePrefix("restore");
        String remote = nginx.url + "/" + prefix;

        Archpool.Run first = build(project, dir.resolve("cache-a"), remote);

        assertThat(first.exitCode()).as(first.toString()).isZero();
        JsonNode stored = report(project);
        assertThat(statuses(stored)).isEqualTo(all("stored"));
        assertThat(stored.path("cache").path("remote").asText()).isEqualTo(remote);
        assertThat(stored.path("cache").path("jobs").path("stored").asInt()).isEqualTo(3);
        Map<String, byte[]> built = outputs(project);
        Map<String, String> keys = keys(stored);
        List<String> onServer = nginx.files(prefix);
        for (String id : JOBS) {
            assertThat(onServer).contains("ac/" + keys.get(id), "cas/" + sha256(built.get(id)));
        }
        assertThat(Files.readAllBytes(nginx.file(prefix + "/cas/" + sha256(built.get("j3")))))
                .as("the 2 MiB blob, whole").isEqualTo(built.get("j3"));
        assertThat(first.stderr()).doesNotContain("remote cache");

        deleteOutputs(project);
        Archpool.Run second = build(project, dir.resolve("cache-b"), remote);

        assertThat(second.exitCode()).as(second.toString()).isZero();
        JsonNode restored = report(project);
        assertThat(statuses(restored)).isEqualTo(all("remote-hit"));
        assertThat(keys(restored)).isEqualTo(keys);
        assertThat(restored.path("cache").path("hitRate").asDouble()).isEqualTo(1.0);
        for (String id : JOBS) {
            assertThat(Files.readAllBytes(output(project, id))).as(id).isEqualTo(built.get(id));
        }
        assertThat(project.resolve("logs/j1.log")).content().contains("restored from the remote cache")
                .contains("cat in1.txt > out1.o");

        deleteOutputs(project);
        int requestsBefore = nginx.requests(prefix).size();
        Archpool.Run third = build(project, dir.resolve("cache-b"), remote);

        assertThat(third.exitCode()).as(third.toString()).isZero();
        JsonNode hit = report(project);
        assertThat(statuses(hit)).isEqualTo(all("hit"));
        for (String id : JOBS) {
            assertThat(Files.readAllBytes(output(project, id))).as(id).isEqualTo(built.get(id));
        }
        assertThat(nginx.requests(prefix)).as("a local hit asks the server nothing").hasSize(requestsBefore);
        assertThat(project.resolve("logs/j1.log")).as("the log came with the remote entry and was kept too")
                .content().contains("restored from the cache").contains("cat in1.txt > out1.o")
                .doesNotContain("not in the cache");
    }

    @Test
    void readOnlyNeverWritesToTheServer(@TempDir Path dir) throws Exception {
        Path project = project(dir);
        String prefix = NginxCache.uniquePrefix("read-only");
        String remote = nginx.url + "/" + prefix;

        Archpool.Run readOnly = build(project, dir.resolve("cache-a"), remote, "--remote-cache-read-only");

        assertThat(readOnly.exitCode()).as(readOnly.toString()).isZero();
        assertThat(statuses(report(project))).as("stored in the local cache only").isEqualTo(all("stored"));
        assertThat(nginx.files(prefix)).isEmpty();
        assertThat(nginx.requests(prefix)).as("it asked, and wrote nothing").hasSize(3)
                .allSatisfy(r -> assertThat(r).startsWith("GET /" + prefix + "/ac/"));

        // a writer fills the remote; a read-only build that finds a damaged blob there leaves it as it is
        build(project, dir.resolve("cache-b"), remote);
        Map<String, byte[]> built = outputs(project);
        Path blob = nginx.file(prefix + "/cas/" + sha256(built.get("j1")));
        byte[] damaged = built.get("j1").clone();
        damaged[0] ^= 1;
        Files.write(blob, damaged);
        deleteOutputs(project);
        int before = nginx.requests(prefix).size();

        Archpool.Run rejected = build(project, dir.resolve("cache-c"), remote, "--remote-cache-read-only");

        assertThat(rejected.exitCode()).as(rejected.toString()).isZero();
        assertThat(statuses(report(project))).containsEntry("j1", "rejected").containsEntry("j2", "remote-hit")
                .containsEntry("j3", "remote-hit");
        assertThat(Files.readAllBytes(output(project, "j1"))).isEqualTo(built.get("j1"));
        List<String> requests = nginx.requests(prefix);
        assertThat(requests.subList(before, requests.size())).isNotEmpty()
                .allSatisfy(r -> assertThat(r).startsWith("GET "));
        assertThat(Files.readAllBytes(blob)).as("left damaged, as read-only asks").isEqualTo(damaged);
    }

    @Test
    void aRemoteThatRefusesConnectionsCostsNoJob(@TempDir Path dir) throws Exception {
        Path project = project(dir);
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        String remote = "http://127.0.0.1:" + port + "/cache";

        Archpool.Run run = build(project, dir.resolve("cache"), remote);

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(statuses(report(project))).isEqualTo(all("stored"));
        remoteFailedOnce(run, remote);
        assertThat(outputs(project).get("j2")).isEqualTo("the second input\n".getBytes(StandardCharsets.UTF_8));
        assertThat(project.resolve("logs/@archpool.log")).content().contains("the remote cache " + remote + " failed");
    }

    @Test
    void aRemoteThatAnswers500CostsNoJob(@TempDir Path dir) throws Exception {
        Path project = project(dir);
        String remote = nginx.url + "/fail/" + NginxCache.uniquePrefix("500");

        Archpool.Run run = build(project, dir.resolve("cache"), remote);

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(statuses(report(project))).isEqualTo(all("stored"));
        remoteFailedOnce(run, remote);
        assertThat(run.stderr()).contains("answered HTTP 500");
    }

    @Test
    void aRemoteThatNeverAnswersCostsNoJob(@TempDir Path dir) throws Exception {
        Path project = project(dir);
        // connections are taken by the kernel into the backlog, and never answered
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            String remote = "http://127.0.0.1:" + silent.getLocalPort() + "/cache";

            long started = System.nanoTime();
            Archpool.Run run = build(project, dir.resolve("cache"), remote, "--remote-cache-timeout", "1s");
            long seconds = (System.nanoTime() - started) / 1_000_000_000L;

            assertThat(run.exitCode()).as(run.toString()).isZero();
            assertThat(statuses(report(project))).isEqualTo(all("stored"));
            remoteFailedOnce(run, remote);
            assertThat(seconds).as("the time-out is paid once, not per job or request").isLessThan(30);
        }
    }

    @Test
    void theHeaderIsSentAndWrittenNowhere(@TempDir Path dir) throws Exception {
        Path project = project(dir);
        String prefix = NginxCache.uniquePrefix("auth");
        String remote = nginx.url + "/auth/" + prefix;
        String secret = nginx.secret();
        Map<String, String> header = Map.of(HEADER, "Authorization: Bearer " + secret);

        Archpool.Run without = build(project, dir.resolve("cache-a"), remote);

        assertThat(without.exitCode()).as(without.toString()).isZero();
        assertThat(statuses(report(project))).isEqualTo(all("stored"));
        remoteFailedOnce(without, remote);
        assertThat(without.stderr()).contains("answered HTTP 401");
        assertThat(nginx.files("auth/" + prefix)).isEmpty();

        Archpool.Run with = build(project, dir.resolve("cache-b"), remote, header);

        assertThat(with.exitCode()).as(with.toString()).isZero();
        assertThat(statuses(report(project))).isEqualTo(all("stored"));
        assertThat(with.stderr()).doesNotContain("remote cache");
        assertThat(nginx.files("auth/" + prefix)).filteredOn(f -> f.startsWith("ac/")).hasSize(3);
        assertThat(nginx.requests("auth/" + prefix)).contains("PUT /auth/" + prefix + "/ac/"
                + job(report(project), "j1").path("cacheKey").asText());
        assertNoSecret(secret, with, project, dir.resolve("cache-b"));

        deleteOutputs(project);
        Archpool.Run restored = build(project, dir.resolve("cache-c"), remote, header);

        assertThat(restored.exitCode()).as(restored.toString()).isZero();
        assertThat(statuses(report(project))).isEqualTo(all("remote-hit"));
        assertNoSecret(secret, restored, project, dir.resolve("cache-c"));
        assertNoSecret(secret, without, project, dir.resolve("cache-a"));
        assertThat(filesHolding(secret, nginx.file("auth/" + prefix))).as("what the server was sent").isEmpty();
    }

    /** The secret is in no output of the run, no file of its log folder or report, and none of its cache. */
    private static void assertNoSecret(String secret, Archpool.Run run, Path project, Path cache) throws IOException {
        assertThat(run.stdout()).doesNotContain(secret);
        assertThat(run.stderr()).doesNotContain(secret);
        assertThat(Files.readString(project.resolve("report.json"))).doesNotContain(secret);
        assertThat(filesHolding(secret, project.resolve("logs"))).isEmpty();
        assertThat(filesHolding(secret, cache)).isEmpty();
    }

    private static List<Path> filesHolding(String secret, Path folder) throws IOException {
        byte[] needle = secret.getBytes(StandardCharsets.UTF_8);
        List<Path> holding = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(folder)) {
            for (Path f : (Iterable<Path>) walk.filter(Files::isRegularFile)::iterator) {
                String text = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
                if (text.contains(new String(needle, StandardCharsets.ISO_8859_1))) {
                    holding.add(f);
                }
            }
        }
        return holding;
    }

    /**
     * Whoever can write to a shared remote cache forges two entries: j1's gains an executable script at a file of the
     * user's home, j2's loses its artifact. A build that only reads the remote writes neither: both are refused and
     * rebuilt, the home file is as it was.
     */
    @Test
    void aForgedRemoteEntryWritesNothingOutsideItsJobAndLeavesOutNothingEvenReadOnly(@TempDir Path dir)
            throws Exception {
        Path project = project(dir);
        String prefix = NginxCache.uniquePrefix("forged");
        String remote = nginx.url + "/" + prefix;
        build(project, dir.resolve("cache-a"), remote);
        Map<String, byte[]> built = outputs(project);
        Path victim = Files.writeString(Files.createDirectories(dir.resolve("home")).resolve("bashrc"), "ORIGINAL\n");
        byte[] script = "#!/bin/sh\necho PWNED\n".getBytes(StandardCharsets.UTF_8);
        Files.write(nginx.file(prefix + "/cas/" + sha256(script)), script);
        Map<String, String> keys = keys(report(project));
        Path j1 = nginx.file(prefix + "/ac/" + keys.get("j1"));
        ObjectNode entry = (ObjectNode) Archpool.json(j1);
        ((ArrayNode) entry.path("artifacts")).addObject().put("path", victim.toString()).put("sha256", sha256(script))
                .put("size", script.length).put("executable", true);
        Files.writeString(j1, entry.toString());
        Path j2 = nginx.file(prefix + "/ac/" + keys.get("j2"));
        entry = (ObjectNode) Archpool.json(j2);
        entry.putArray("artifacts");
        Files.writeString(j2, entry.toString());
        deleteOutputs(project);

        Archpool.Run run = build(project, dir.resolve("cache-b"), remote, "--remote-cache-read-only");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(victim).hasContent("ORIGINAL");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(victim))).doesNotContain("x");
        JsonNode report = report(project);
        assertThat(statuses(report)).containsEntry("j1", "rejected").containsEntry("j2", "rejected")
                .containsEntry("j3", "remote-hit");
        assertThat(job(report, "j1").path("cacheNote").asText()).contains(victim + " is not in the job's output folder");
        assertThat(job(report, "j2").path("cacheNote").asText())
                .contains(output(project, "j2") + ", which the job's artifact rules require, is missing");
        for (String id : JOBS) {
            assertThat(output(project, id)).as(id + ": rebuilt, or restored").hasBinaryContent(built.get(id));
        }
    }

    @Test
    void aBlobDamagedOnTheServerIsRefusedRebuiltAndRepaired(@TempDir Path dir) throws Exception {
        Path project = project(dir);
        String prefix = NginxCache.uniquePrefix("damaged");
        String remote = nginx.url + "/" + prefix;
        build(project, dir.resolve("cache-a"), remote);
        Map<String, byte[]> built = outputs(project);
        String digest = sha256(built.get("j1"));
        Path blob = nginx.file(prefix + "/cas/" + digest);
        byte[] damaged = built.get("j1").clone();
        damaged[3] ^= 0x20;
        Files.write(blob, damaged);
        // j2's log, too: a log is no artifact, so j2 is still restored, but its log is not shown as it was
        String key = job(report(project), "j2").path("cacheKey").asText();
        JsonNode entry = Archpool.json(nginx.file(prefix + "/ac/" + key));
        Path log = nginx.file(prefix + "/cas/" + entry.path("log").path("sha256").asText());
        Files.writeString(log, "a log that no build wrote\n");
        deleteOutputs(project);

        Archpool.Run run = build(project, dir.resolve("cache-b"), remote);

        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode report = report(project);
        assertThat(statuses(report)).containsEntry("j1", "rejected").containsEntry("j2", "remote-hit")
                .containsEntry("j3", "remote-hit");
        assertThat(job(report, "j1").path("cacheNote").asText()).contains(digest).contains("does not match its digest");
        assertThat(Files.readAllBytes(output(project, "j1"))).as("rebuilt").isEqualTo(built.get("j1"));
        assertThat(Files.readAllBytes(blob)).as("the server's blob, written again").isEqualTo(built.get("j1"));
        assertThat(project.resolve("logs/j2.log")).content().contains("restored from the remote cache")
                .contains("the log of that build is damaged in the cache").doesNotContain("a log that no build wrote");

        deleteOutputs(project);
        Archpool.Run after = build(project, dir.resolve("cache-c"), remote);

        assertThat(after.exitCode()).as(after.toString()).isZero();
        assertThat(statuses(report(project))).isEqualTo(all("remote-hit"));
        assertThat(Files.readAllBytes(output(project, "j1"))).isEqualTo(built.get("j1"));
    }
}
