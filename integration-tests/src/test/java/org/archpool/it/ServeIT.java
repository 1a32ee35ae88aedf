package org.archpool.it;

import static org.archpool.it.ServeClient.commandJob;
import static org.archpool.it.ServeClient.submit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.archpool.testing.MarkedProcesses;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code archpool serve} as its clients use it (docs/service.md): the distribution's {@code bin/archpool} over
 * stdio and over a Unix socket, with real worker JVMs (or thread mode where only the protocol's load is tested).
 * Every process a job starts carries a marker of the test's own, so that what outlives a session is found. How
 * long serve takes to end once its client is gone is {@link ServeEndsIT}'s, which runs alone.
 */
class ServeIT {

    @TempDir
    Path dir;

    @RegisterExtension
    final Serves serves = new Serves(() -> dir);

    /** A client of the serve on {@code socket}, once it listens (the file exists a moment before it does). */
    private static ServeClient connect(Path socket) {
        return await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                .until(() -> ServeClient.connect(socket), c -> c != null);
    }

    private static JsonNode report(JsonNode bye) throws Exception {
        JsonNode report = Archpool.json(Path.of(bye.path("report").asText()));
        assertThat(ReportSchema.problems(report)).as("the report against docs/report.schema.json").isEmpty();
        return report;
    }

    @Test
    void aStdioSessionBuildsJobsOnWorkerJvmsAndEndsWithItsReport() throws Exception {
        Path metrics = dir.resolve("serve.prom");
        Process serve = serves.serve("--stdio", "--arch", "90", "--no-toolchain-check", "-j", "1", "--metrics",
                metrics.toString());
        ServeClient client = ServeClient.of(serve);
        JsonNode hello = client.next("hello");
        assertThat(hello.path("service").asInt()).isEqualTo(1);
        assertThat(hello.path("pid").asLong()).isEqualTo(serve.pid());
        assertThat(hello.path("target").path("archs").toString()).isEqualTo("[\"90\"]");
        assertThat(hello.path("target").path("source").asText()).isEqualTo("flag");
        assertThat(hello.path("pool").path("mode").asText()).isEqualTo("process");
        assertThat(hello.path("pool").path("deviceIsolation").asText()).isIn("namespace", "environment");
        Path logDir = dir.resolve(".archpool/serve-" + serve.pid());
        assertThat(hello.path("logDir").asText()).isEqualTo(logDir.toString());
        assertThat(hello.path("report").asText()).isEqualTo(logDir.resolve("report.json").toString());

        client.send(submit("c1", dir, commandJob("arch", "echo built for {archs}")));
        JsonNode accepted = client.next("accepted");
        assertThat(accepted.path("jobId").asText()).isEqualTo("arch.1");
        assertThat(accepted.path("shared").asBoolean()).isFalse();
        JsonNode started = client.next("started");
        assertThat(started.path("clientJobId").asText()).isEqualTo("c1");
        assertThat(started.path("id").asText()).isEqualTo("arch.1");
        assertThat(started.path("worker").asText()).isEqualTo("w1");
        assertThat(started.path("attempt").asInt()).isEqualTo(1);
        JsonNode result = client.next("result");
        assertThat(result.path("clientJobId").asText()).isEqualTo("c1");
        JsonNode job = result.path("job");
        assertThat(ReportSchema.problems("job", job)).as("a result's job is a report's job entry").isEmpty();
        assertThat(job.path("id").asText()).isEqualTo("arch.1");
        assertThat(job.path("clientJobId").asText()).isEqualTo("c1");
        assertThat(job.path("outcome").asText()).isEqualTo("succeeded");
        assertThat(job.path("worker").asText()).isEqualTo("w1");
        assertThat(Files.readString(Path.of(job.path("logPath").asText()))).contains("built for 90");
        await("--metrics rewritten while serve runs").atMost(Duration.ofSeconds(30)).until(() ->
                Files.exists(metrics) && Files.readString(metrics).lines().anyMatch(line ->
                        line.startsWith("archpool_jobs_total{") && line.contains("outcome=\"succeeded\"")
                                && line.endsWith(" 1.0")));

        client.send(submit("c2", dir, commandJob("fails", "exit 3")));
        client.next("accepted");
        assertThat(client.next("result").path("job").path("exitCode").asInt()).isEqualTo(3);

        client.send("{\"type\":\"shutdown\",\"cancelRunning\":false}");
        JsonNode bye = client.next("bye");
        assertThat(bye.path("outcomes").toString()).isEqualTo("{\"succeeded\":1,\"failed\":1}");
        assertThat(serve.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(serve.exitValue()).as(serves.stderr()).isZero();
        JsonNode report = report(bye);
        assertThat(report.has("manifest")).isFalse();
        assertThat(report.path("jobs").findValuesAsText("clientJobId")).containsExactly("c1", "c2");
        assertThat(report.path("pool").path("keepGoing").asBoolean()).isTrue();
        assertThat(report.path("pool").path("deviceIsolation").asText()).as("hello says what the report says")
                .isEqualTo(hello.path("pool").path("deviceIsolation").asText());
    }

    /** A serve of two targets: a submit names its platform, is built for its archs there, or is skipped. */
    @Test
    void aServeOfTwoTargetsBuildsEachSubmitForThePlatformItNames() throws Exception {
        Process serve = serves.serve("--stdio", "--target", "cuda:80,90", "--target", "hip:gfx90a,gfx942",
                "--no-toolchain-check", "-j", "1");
        ServeClient client = ServeClient.of(serve);
        JsonNode hello = client.next("hello");
        assertThat(hello.path("gpuTargets").findValuesAsText("platform")).containsExactly("cuda", "hip");
        assertThat(hello.path("target").path("platform").asText()).isEqualTo("cuda");
        assertThat(hello.path("gpuTargets").path(1).path("detail").asText()).isEqualTo("--target hip:gfx90a,gfx942");

        client.send(submit("open", dir, commandJob("k", "echo {archs}")));
        JsonNode refused = client.next("error");
        assertThat(refused.path("code").asText()).isEqualTo("invalid-job");
        assertThat(refused.path("message").asText()).contains("name its platform");

        String amd = commandJob("k", "echo built for {archs}").replace("]}", "],\"platforms\":[\"hip\"],"
                + "\"archs\":[\"gfx942\"]}");
        client.send(submit("amd", dir, amd));
        client.next("accepted");
        JsonNode built = client.next("result").path("job");
        assertThat(ReportSchema.problems("job", built)).as(built.toString()).isEmpty();
        assertThat(built.path("outcome").asText()).isEqualTo("succeeded");
        assertThat(built.path("target").toString()).isEqualTo("{\"platform\":\"hip\",\"archs\":[\"gfx942\"]}");
        assertThat(Files.readString(Path.of(built.path("logPath").asText()))).contains("built for gfx942");

        String fp8 = commandJob("fp8", "true").replace("]}", "],\"platforms\":[\"cuda\"],\"archs\":[\"90a\"]}");
        client.send(submit("fp8", dir, fp8));
        client.next("accepted");
        JsonNode skipped = client.next("result").path("job");
        assertThat(ReportSchema.problems("job", skipped)).as(skipped.toString()).isEmpty();
        assertThat(skipped.path("outcome").asText()).isEqualTo("skipped");
        assertThat(skipped.path("message").asText()).contains("90a").contains("80;90");

        client.send("{\"type\":\"shutdown\",\"cancelRunning\":false}");
        JsonNode bye = client.next("bye");
        assertThat(bye.path("outcomes").toString()).isEqualTo("{\"succeeded\":1,\"skipped\":1}");
        assertThat(serve.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(serve.exitValue()).as(serves.stderr()).isZero();
        JsonNode report = report(bye);
        assertThat(report.path("gpuTargets").findValuesAsText("platform")).containsExactly("cuda", "hip");
    }

    @Test
    void sigtermCancelsEveryJobWritesTheReportSaysByeAndExits130() throws Exception {
        Path sleep = serves.markedSleep();
        Process serve = serves.serve("--stdio", "--arch", "90", "--no-toolchain-check", "-j", "1");
        ServeClient client = ServeClient.of(serve);
        client.next("hello");
        client.send(submit("a", dir, commandJob("a", sleep + " 1301")));
        client.next("accepted");
        await().atMost(Duration.ofSeconds(60)).until(() -> !MarkedProcesses.alive(serves.marker()).isEmpty());
        serve.toHandle().destroy(); // SIGTERM (Process.destroy would also close our end of its pipes)
        JsonNode result = client.next("result", Duration.ofSeconds(10));
        assertThat(result.path("job").path("outcome").asText()).isEqualTo("cancelled");
        JsonNode bye = client.next("bye", Duration.ofSeconds(10));
        assertThat(serve.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(serve.exitValue()).as(serves.stderr()).isEqualTo(130);
        assertThat(report(bye).path("exitCode").asInt()).isEqualTo(130);
        assertThat(MarkedProcesses.alive(serves.marker())).isEmpty();
    }

    @Test
    void aMalformedAndAnOversizedLineAreAnsweredWithErrorsAndTheSessionGoesOn() throws Exception {
        Process serve = serves.serve("--stdio", "--mode", "thread", "--arch", "90", "--no-toolchain-check", "-j", "1");
        ServeClient client = ServeClient.of(serve);
        client.next("hello");
        client.send("{not json");
        assertThat(client.next("error").path("code").asText()).isEqualTo("bad-line");
        byte[] huge = new byte[5 << 20];
        java.util.Arrays.fill(huge, (byte) 'x');
        client.send(huge);
        JsonNode tooLong = client.next("error");
        assertThat(tooLong.path("code").asText()).isEqualTo("bad-line");
        assertThat(tooLong.path("message").asText()).contains("4 MiB");
        client.send("{\"type\":\"submit\",\"clientJobId\":\"k\",\"cwd\":\"" + dir + "\",\"job\":{\"id\":\"k\","
                + "\"kind\":\"cmake\",\"sourceDir\":\"nothere\"}}");
        JsonNode invalid = client.next("error");
        assertThat(invalid.path("code").asText()).isEqualTo("invalid-job");
        assertThat(invalid.path("clientJobId").asText()).isEqualTo("k");
        client.send(submit("ok", dir, commandJob("ok", "true")));
        client.next("accepted");
        assertThat(client.next("result").path("job").path("outcome").asText()).isEqualTo("succeeded");
        client.send("{\"type\":\"status\",\"requestId\":\"s\"}");
        JsonNode status = client.next("status");
        assertThat(status.path("requestId").asText()).isEqualTo("s");
        assertThat(status.path("accepted").asInt()).isEqualTo(1);
        client.send("{\"type\":\"shutdown\"}");
        client.next("bye");
        assertThat(serve.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(serve.exitValue()).as(serves.stderr()).isZero();
        assertThat(client.endsNext(Duration.ofSeconds(10))).as("nothing after bye").isTrue();
    }

    @Test
    void twoSocketClientsShareOneServeAndStopEndsIt() throws Exception {
        Path socket = dir.resolve("run/serve.sock");
        Process serve = serves.serve("--socket", socket.toString(), "--arch", "90", "--no-toolchain-check", "-j", "2");
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(socket));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket.getParent())))
                .isEqualTo("rwx------");
        try (ServeClient a = connect(socket); ServeClient b = connect(socket)) {
            a.next("hello");
            b.next("hello");
            // set right after the bind (the folder, 0700, keeps everyone else out meanwhile); surely by the hello
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket))).isEqualTo("rw-------");
            a.send(submit("x", dir, commandJob("a", "echo a")));
            b.send(submit("x", dir, commandJob("b", "echo b")));
            assertThat(a.next("accepted").path("jobId").asText()).startsWith("a.");
            assertThat(b.next("accepted").path("jobId").asText()).startsWith("b.");
            assertThat(a.next("result").path("job").path("outcome").asText()).isEqualTo("succeeded");
            assertThat(b.next("result").path("job").path("outcome").asText()).isEqualTo("succeeded");
            assertThat(a.started()).as("a started before the result, over a socket too").singleElement()
                    .satisfies(m -> assertThat(m.path("id").asText()).startsWith("a."));
            b.send("{\"type\":\"status\"}");
            assertThat(b.next("status").path("clients").asInt()).isEqualTo(2);
        }
        Archpool.Run stop = new Archpool().in(dir).run("serve", "--socket", socket.toString(), "--stop");
        assertThat(stop.exitCode()).as(stop.toString()).isZero();
        assertThat(serve.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(serve.exitValue()).as(serves.stderr()).isZero();
        assertThat(socket).doesNotExist();
        JsonNode report = Archpool.json(dir.resolve(".archpool/serve-" + serve.pid() + "/report.json"));
        assertThat(ReportSchema.problems(report)).isEmpty();
        assertThat(report.path("jobs")).hasSize(2);
    }

    @Test
    void aSocketClientThatDisconnectsHasItsJobsCancelledWhileAnothersCompletes() throws Exception {
        Path sleep = serves.markedSleep();
        Path socket = dir.resolve("run/serve.sock");
        Process serve = serves.serve("--socket", socket.toString(), "--arch", "90", "--no-toolchain-check", "-j", "2");
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(socket));
        try (ServeClient stays = connect(socket)) {
            stays.next("hello");
            try (ServeClient leaves = connect(socket)) {
                leaves.next("hello");
                leaves.send(submit("doomed", dir, commandJob("doomed", sleep + " 1201")));
                leaves.next("accepted");
                await().atMost(Duration.ofSeconds(60)).until(() -> !MarkedProcesses.alive(serves.marker()).isEmpty());
                stays.send(submit("kept", dir, commandJob("kept", "sleep 2; echo done")));
                stays.next("accepted");
            }
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(MarkedProcesses.alive(serves.marker())).as("the gone client's job").isEmpty());
            assertThat(stays.next("result").path("job").path("outcome").asText()).isEqualTo("succeeded");
            stays.send("{\"type\":\"shutdown\",\"cancelRunning\":true}");
            JsonNode bye = stays.next("bye");
            JsonNode report = report(bye);
            Map<String, String> outcomes = new HashMap<>();
            report.path("jobs").forEach(j -> outcomes.put(j.path("clientJobId").asText(), j.path("outcome").asText()));
            assertThat(outcomes).containsEntry("doomed", "cancelled").containsEntry("kept", "succeeded");
        }
        assertThat(serve.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(serve.exitValue()).as(serves.stderr()).isZero();
    }

    @Test
    void aSocketPathThatOthersMayEnterOrThatIsNotASocketIsRefused() throws Exception {
        Path open = Files.createDirectories(dir.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));
        Archpool.Run refused = new Archpool().in(dir).run("serve", "--socket", open.resolve("s.sock").toString(),
                "--arch", "90", "--no-toolchain-check");
        assertThat(refused.exitCode()).as(refused.toString()).isEqualTo(2);
        assertThat(refused.stderr()).contains("chmod 700").doesNotContain("\tat ").doesNotContain("Exception");
        assertThat(refused.stderr().strip().lines()).hasSize(1);
        assertThat(refused.stdout()).isEmpty();

        Path mine = Files.createDirectories(dir.resolve("mine"));
        Files.setPosixFilePermissions(mine, PosixFilePermissions.fromString("rwx------"));
        Files.writeString(mine.resolve("s.sock"), "not a socket");
        Archpool.Run file = new Archpool().in(dir).run("serve", "--socket", mine.resolve("s.sock").toString(),
                "--arch", "90", "--no-toolchain-check");
        assertThat(file.exitCode()).as(file.toString()).isEqualTo(2);
        assertThat(file.stderr()).contains("not a socket");
        assertThat(mine.resolve("s.sock")).hasContent("not a socket");

        Archpool.Run neither = new Archpool().in(dir).run("serve", "--arch", "90");
        assertThat(neither.exitCode()).as(neither.toString()).isEqualTo(2);
        assertThat(neither.stderr()).contains("exactly one of --stdio");
    }

    @Test
    void aStaleSocketIsReplacedAndOneThatAnswersIsRefused() throws Exception {
        Path run = Files.createDirectories(dir.resolve("run"));
        Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwx------"));
        Path socket = run.resolve("serve.sock");
        // what a serve killed by SIGKILL leaves: a socket file that nothing listens on
        try (java.nio.channels.ServerSocketChannel dead = java.nio.channels.ServerSocketChannel.open(
                java.net.StandardProtocolFamily.UNIX)) {
            dead.bind(java.net.UnixDomainSocketAddress.of(socket));
        }
        assertThat(socket).exists();
        Process serve = serves.serve("--socket", socket.toString(), "--mode", "thread", "--arch", "90",
                "--no-toolchain-check", "-j", "1");
        try (ServeClient client = connect(socket)) {
            assertThat(client.next("hello").path("pid").asLong()).isEqualTo(serve.pid());
        }
        Archpool.Run second = new Archpool().in(dir).run("serve", "--socket", socket.toString(), "--arch", "90",
                "--no-toolchain-check");
        assertThat(second.exitCode()).as(second.toString()).isEqualTo(2);
        assertThat(second.stderr()).contains("another archpool serve, pid " + serve.pid() + ", is starting or running"
                + " on that socket").contains(socket + ".lock").contains("--stop");
        assertThat(socket).as("the first serve's socket is left alone").exists();
        Archpool.Run stop = new Archpool().in(dir).run("serve", "--socket", socket.toString(), "--stop");
        assertThat(stop.exitCode()).as(stop.toString()).isZero();
        assertThat(serve.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(socket).doesNotExist();
    }

    @Test
    void twoServesStartedAtOnceOnOneStaleSocketLeaveOneServingAndRefuseTheOther() throws Exception {
        Path run = Files.createDirectories(dir.resolve("run"));
        Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwx------"));
        Path socket = run.resolve("serve.sock");
        try (java.nio.channels.ServerSocketChannel dead = java.nio.channels.ServerSocketChannel.open(
                java.net.StandardProtocolFamily.UNIX)) {
            dead.bind(java.net.UnixDomainSocketAddress.of(socket));
        }
        String[] args = {"--socket", socket.toString(), "--mode", "thread", "--arch", "90", "--no-toolchain-check",
                "-j", "1"};
        // each takes about a second from its start to its bind, so both decide about the path before either binds
        Process a = serves.serveTo(dir.resolve("a.err"), args);
        Process b = serves.serveTo(dir.resolve("b.err"), args);
        await().atMost(Duration.ofSeconds(60)).until(() -> !a.isAlive() || !b.isAlive());
        Process loser = a.isAlive() ? b : a;
        Process winner = loser == a ? b : a;
        String loserErr = Files.readString(dir.resolve(loser == a ? "a.err" : "b.err"));
        assertThat(loser.exitValue()).as(loserErr).isEqualTo(2);
        assertThat(loserErr).contains("another archpool serve");
        try (ServeClient client = connect(socket)) {
            assertThat(client.next("hello").path("pid").asLong()).isEqualTo(winner.pid());
        }
        Archpool.Run stop = new Archpool().in(dir).run("serve", "--socket", socket.toString(), "--stop");
        assertThat(stop.exitCode()).as(stop.toString()).isZero();
        assertThat(winner.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(socket).doesNotExist();
    }

    @Test
    void twentyClientsSubmittingTwoHundredJobsEachAtOnceGetExactlyOneResultEach() throws Exception {
        Path socket = dir.resolve("run/serve.sock");
        Process serve = serves.serve("--socket", socket.toString(), "--mode", "thread", "--arch", "90",
                "--no-toolchain-check", "-j", "4", "-q");
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(socket));
        int clients = 20;
        int jobs = 200;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<Map<String, Integer>>> all = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                all.add(pool.submit(() -> {
                    try (ServeClient s = connect(socket)) {
                        s.next("hello");
                        for (int j = 0; j < jobs; j++) {
                            // every job of its own: identical ones would share a build
                            s.send(submit("j" + j, dir, "{\"id\":\"t\",\"kind\":\"command\",\"argv\":[\"true\",\"c"
                                    + client + "-" + j + "\"]}"));
                        }
                        Map<String, Integer> results = new HashMap<>();
                        int accepted = 0;
                        while (results.values().stream().mapToInt(Integer::intValue).sum() < jobs) {
                            JsonNode m = s.next(accepted < jobs ? "accepted-or-result" : "result",
                                    Duration.ofSeconds(90), true);
                            if (m.path("type").asText().equals("accepted")) {
                                accepted++;
                            } else {
                                assertThat(m.path("job").path("outcome").asText()).isEqualTo("succeeded");
                                results.merge(m.path("clientJobId").asText(), 1, Integer::sum);
                            }
                        }
                        assertThat(accepted).isEqualTo(jobs);
                        s.send("{\"type\":\"status\"}");
                        s.next("status");
                        return results;
                    }
                }));
            }
            for (Future<Map<String, Integer>> f : all) {
                Map<String, Integer> results = f.get(120, TimeUnit.SECONDS);
                assertThat(results).hasSize(jobs).allSatisfy((id, n) -> assertThat(n).as(id).isEqualTo(1));
            }
        } finally {
            pool.shutdownNow();
        }
        Archpool.Run stop = new Archpool().in(dir).run("serve", "--socket", socket.toString(), "--stop");
        assertThat(stop.exitCode()).as(stop.toString()).isZero();
        assertThat(serve.waitFor(30, TimeUnit.SECONDS)).isTrue();
        JsonNode report = Archpool.json(dir.resolve(".archpool/serve-" + serve.pid() + "/report.json"));
        assertThat(report.path("jobs")).hasSize(clients * jobs);
        assertThat(report.path("outcomes").path("succeeded").asInt()).isEqualTo(clients * jobs);
    }
}
