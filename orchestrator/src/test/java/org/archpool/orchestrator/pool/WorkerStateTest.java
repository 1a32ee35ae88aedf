package org.archpool.orchestrator.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.Message;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Step;
import org.archpool.protocol.Target;
import org.archpool.protocol.codec.MessageReader;
import org.archpool.protocol.codec.MessageWriter;
import org.archpool.worker.JobRunner;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A worker handle says where its worker is: starting, idle, busy with a request, or dead with the reason. */
@Tag("process")
class WorkerStateTest {

    private static final String HELLO = "{\"type\":\"hello\",\"protocolVersion\":" + Message.PROTOCOL_VERSION
            + ",\"workerId\":\"w1\",\"pid\":1,\"host\":\"h\",\"javaVersion\":\"17\"}";

    @TempDir
    Path dir;

    private final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stopWatchdog() {
        watchdog.shutdownNow();
    }

    private BuildRequest request(String id) {
        List<String> argv = List.of("sh", "-c", "sleep 60");
        return new BuildRequest(id, new CommandJob("j", argv, dir.toString(), null, null, null),
                new Target(Platform.CUDA, List.of("90")), List.of(new Step(Phase.COMMAND, argv, dir.toString(), Map.of())),
                0, dir.resolve("j.log").toString());
    }

    /** A worker process played by a shell: says hello, then runs {@code afterHello}. */
    private ProcessWorker worker(String afterHello) throws Exception {
        Process process = new ProcessBuilder("sh", "-c", "echo '" + HELLO + "'; " + afterHello).start();
        return new ProcessWorker("w1", process, ProcessControl.LOCAL, new MessageReader(process.getInputStream()),
                new MessageWriter(process.getOutputStream()), watchdog, AwakeClock.system(), Duration.ofSeconds(30));
    }

    @Test
    void aProcessWorkerGoesFromStartingToIdleToBusyAndBackThenDead() throws Exception {
        // answers the build only once it has read the cancel that follows it
        ProcessWorker worker = worker("read build; read cancel; echo '{\"type\":\"result\",\"requestId\":\"r#1\","
                + "\"outcome\":\"cancelled\"}'; read shutdown; sleep 60");
        assertThat(worker.state()).as("no hello read yet").isEqualTo(WorkerState.STARTING);

        worker.startReading();
        worker.hello().get(10, TimeUnit.SECONDS);
        assertThat(worker.state()).isEqualTo(WorkerState.IDLE);

        CompletableFuture<BuildResult> answer = worker.execute(request("r#1"), phase -> { });
        assertThat(worker.state()).isEqualTo(new WorkerState.Busy("r#1"));
        worker.cancel("r#1");
        assertThat(answer.get(10, TimeUnit.SECONDS).outcome()).isEqualTo(Outcome.CANCELLED);
        assertThat(worker.state()).isEqualTo(WorkerState.IDLE);

        worker.close();
        assertThat(worker.state()).isEqualTo(new WorkerState.Dead(WorkerFailure.SHUTDOWN, "worker was shut down"));
        assertThat(worker.isAlive()).isFalse();
    }

    @Test
    void aWorkerThatExitsIsDeadWithWhatHappened() throws Exception {
        ProcessWorker worker = worker("read build; exit 3");
        worker.startReading();
        worker.hello().get(10, TimeUnit.SECONDS);
        worker.execute(request("r#1"), phase -> { });
        await().atMost(Duration.ofSeconds(10)).until(() -> !worker.isAlive());
        assertThat(worker.state()).isInstanceOfSatisfying(WorkerState.Dead.class, dead -> {
            assertThat(dead.cause()).isEqualTo(WorkerFailure.EXIT);
            assertThat(dead.reason()).contains("closed its output").contains("status 3");
        });
        worker.close();
    }

    @Test
    void aThreadWorkerIsBusyWhileItRunsAJobAndDeadOnceClosed() throws Exception {
        Worker worker = new ThreadWorkerLauncher(JobRunner.standard()).launch("t1");
        assertThat(worker.state()).isEqualTo(WorkerState.IDLE);
        CompletableFuture<BuildResult> answer = worker.execute(request("r#2"), phase -> { });
        await().atMost(Duration.ofSeconds(10)).until(() -> worker.state().equals(new WorkerState.Busy("r#2")));
        worker.cancel("r#2");
        assertThat(answer.get(10, TimeUnit.SECONDS).outcome()).isEqualTo(Outcome.CANCELLED);
        await().atMost(Duration.ofSeconds(10)).until(() -> worker.state().equals(WorkerState.IDLE));
        worker.close();
        assertThat(worker.state()).isInstanceOf(WorkerState.Dead.class);
    }
}
