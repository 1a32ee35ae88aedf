package org.archpool.it;

import static org.archpool.it.ServeClient.commandJob;
import static org.archpool.it.ServeClient.submit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.archpool.testing.MarkedProcesses;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * How long {@code archpool serve} takes to end once its client is gone: within seconds, with every job, worker and
 * process of theirs. The rest of serve is {@link ServeIT}'s.
 */
// it asserts how long serve takes to end: never beside a compile
@Isolated
class ServeEndsIT {

    @TempDir
    Path dir;

    @RegisterExtension
    final Serves serves = new Serves(() -> dir);

    @Test
    void theEndOfStdinEndsEveryJobWorkerAndProcessWithinTwoSeconds() throws Exception {
        Path sleep = serves.markedSleep();
        Process serve = serves.serve("--stdio", "--arch", "90", "--no-toolchain-check", "-j", "2");
        ServeClient client = ServeClient.of(serve);
        client.next("hello");
        client.send(submit("a", dir, commandJob("a", sleep + " 1101")));
        client.send(submit("b", dir, commandJob("b", "(" + sleep + " 1102 &); " + sleep + " 1103")));
        client.send(submit("queued", dir, commandJob("c", sleep + " 1104")));
        await().atMost(Duration.ofSeconds(60)).until(() -> MarkedProcesses.alive(serves.marker()).size() >= 3);
        List<ProcessHandle> workers = serve.descendants()
                .filter(p -> p.info().commandLine().orElse("").contains("org.archpool.worker.WorkerMain")).toList();
        assertThat(workers).hasSize(2);

        long closed = System.nanoTime();
        serve.getOutputStream().close(); // as the client's death would: the end of serve's stdin
        assertThat(serve.waitFor(10, TimeUnit.SECONDS)).as("serve ends").isTrue();
        await().atMost(Duration.ofSeconds(2)).untilAsserted(() -> {
            assertThat(MarkedProcesses.alive(serves.marker())).as("the jobs' processes").isEmpty();
            assertThat(workers).noneMatch(ProcessHandle::isAlive);
        });
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closed)).isLessThan(5_000);
        assertThat(serve.exitValue()).as(serves.stderr()).isZero();
        JsonNode report = Archpool.json(dir.resolve(".archpool/serve-" + serve.pid() + "/report.json"));
        assertThat(ReportSchema.problems(report)).isEmpty();
        assertThat(report.path("jobs").findValuesAsText("outcome")).containsOnly("cancelled").hasSize(3);
    }

    /** The client's requests, sent without ever reading a reply: far more replies than a pipe holds. */
    private static void floodWithoutReading(Process serve, Path dir, String sleep) throws Exception {
        OutputStream in = serve.getOutputStream();
        in.write((submit("a", dir, commandJob("a", sleep + " 1201")) + "\n").getBytes(StandardCharsets.UTF_8));
        StringBuilder requests = new StringBuilder();
        for (int i = 0; i < 3000; i++) {
            requests.append("{\"type\":\"status\",\"requestId\":\"s").append(i).append("\"}\n");
        }
        in.write(requests.toString().getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    @Test
    void sigtermEndsServeWithinTwoSecondsWithItsReportAlsoWhenItsClientDoesNotRead() throws Exception {
        Path sleep = serves.markedSleep();
        Process serve = serves.serve("--stdio", "--arch", "90", "--no-toolchain-check", "-j", "1");
        floodWithoutReading(serve, dir, sleep.toString());
        await().atMost(Duration.ofSeconds(60)).until(() -> !MarkedProcesses.alive(serves.marker()).isEmpty());

        long signalled = System.nanoTime();
        new ProcessBuilder("kill", "-TERM", Long.toString(serve.pid())).start().waitFor();
        assertThat(serve.waitFor(10, TimeUnit.SECONDS)).as("serve ends").isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - signalled)).as(serves.stderr())
                .isLessThan(2_000);
        assertThat(serve.exitValue()).as(serves.stderr()).isEqualTo(130);
        assertThat(MarkedProcesses.alive(serves.marker())).as("the job's processes").isEmpty();
        JsonNode report = Archpool.json(dir.resolve(".archpool/serve-" + serve.pid() + "/report.json"));
        assertThat(report.path("jobs").findValuesAsText("outcome")).containsExactly("cancelled");
    }

    @Test
    void aClientThatStopsReadingIsDisconnectedAfterTheStallLimitAndServeEnds() throws Exception {
        Path sleep = serves.markedSleep();
        Process serve = serves.serve("--stdio", "--arch", "90", "--no-toolchain-check", "-j", "1",
                "--client-stall-limit", "1s");
        floodWithoutReading(serve, dir, sleep.toString());
        // nothing more is sent to it after the flood's replies: the blocked write itself is watched
        assertThat(serve.waitFor(30, TimeUnit.SECONDS)).as("serve ends").isTrue();
        assertThat(serve.exitValue()).as(serves.stderr()).isZero();
        assertThat(serves.stderr()).contains("stdio disconnected: it has not read its replies for");
        assertThat(MarkedProcesses.alive(serves.marker())).as("the job's processes").isEmpty();
        JsonNode report = Archpool.json(dir.resolve(".archpool/serve-" + serve.pid() + "/report.json"));
        assertThat(report.path("jobs").findValuesAsText("outcome")).containsExactly("cancelled");
    }
}
