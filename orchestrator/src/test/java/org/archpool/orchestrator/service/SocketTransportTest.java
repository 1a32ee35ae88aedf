package org.archpool.orchestrator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.archpool.orchestrator.manifest.ManifestReader;
import org.archpool.orchestrator.pool.ThreadWorkerLauncher;
import org.archpool.orchestrator.pool.WorkerPool;
import org.archpool.orchestrator.schedule.Scheduler;
import org.archpool.orchestrator.schedule.SchedulerConfig;
import org.archpool.orchestrator.schedule.SchedulerListener;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;
import org.archpool.worker.JobRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The socket's connections: how many may be open at once. The messages are {@link JobServiceTest}'s. */
class SocketTransportTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static JsonNode firstLine(SocketChannel c) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(c),
                StandardCharsets.UTF_8));
        return JSON.readTree(in.readLine());
    }

    @Test
    void aConnectionOverTheLimitIsToldWhyAndClosedAndOneLeavingMakesRoom() throws Exception {
        Clock clock = Clock.systemUTC();
        Target target = new Target(Platform.CUDA, List.of("90"));
        Path run = Files.createDirectories(dir.resolve("run"));
        Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwx------"));
        Path socket = run.resolve("a.sock");
        ServerMessage.Hello hello = new ServerMessage.Hello(1, "test", 1,
                new ServerMessage.Hello.Target("cuda", List.of("90"), "flag", "--arch 90"),
                new ServerMessage.Hello.Pool("thread", "local", 1, "environment"), "/logs", "/logs/report.json");
        try (WorkerPool pool = new WorkerPool(new ThreadWorkerLauncher(JobRunner.standard()), 1, clock);
             Scheduler scheduler = new Scheduler(pool, new SchedulerConfig(target, dir.resolve("logs"), 0, 1, 0, true),
                     clock, SchedulerListener.NONE)) {
            JobService service = new JobService(scheduler, pool, new ManifestReader(), clock, hello, List.of(target),
                    platform -> List.of());
            SocketPath path = SocketPath.prepare(socket);
            List<SocketChannel> clients = new ArrayList<>();
            try (SocketTransport transport = new SocketTransport(path, path.bind(), clock, Duration.ofSeconds(30),
                    2)) {
                transport.start(service);
                for (int i = 0; i < 2; i++) {
                    clients.add(SocketChannel.open(UnixDomainSocketAddress.of(socket)));
                    assertThat(firstLine(clients.get(i)).path("type").asText()).isEqualTo("hello");
                }
                try (SocketChannel third = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
                    JsonNode refused = firstLine(third);
                    assertThat(refused.path("type").asText()).isEqualTo("error");
                    assertThat(refused.path("code").asText()).isEqualTo("too-many-clients");
                    assertThat(refused.path("message").asText()).contains("2 clients connected, its limit");
                    assertThat(third.read(ByteBuffer.allocate(1))).as("then closed").isEqualTo(-1);
                }
                clients.remove(0).close();
                // the server counts it gone once its reader has seen the end: shortly
                await().atMost(Duration.ofSeconds(10)).until(() -> {
                    try (SocketChannel again = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
                        return "hello".equals(firstLine(again).path("type").asText());
                    }
                });
            } finally {
                for (SocketChannel c : clients) {
                    c.close();
                }
                service.shutdown(true, "the test ended");
                service.drained().orTimeout(20, TimeUnit.SECONDS).join();
                path.close();
            }
        }
    }
}
