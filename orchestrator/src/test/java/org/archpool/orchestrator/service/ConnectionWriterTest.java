package org.archpool.orchestrator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ConnectionWriterTest {

    private static final ServerMessage STATUS = new ServerMessage.Status(null, 0, 0, 0, 1,
            new ServerMessage.Status.Workers(1, 1), java.util.Map.of(), 0, false);

    @Test
    void whatWasSentIsWrittenInOrderBeforeTheConnectionCloses() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CompletableFuture<String> gone = new CompletableFuture<>();
        ConnectionWriter w = new ConnectionWriter(out, () -> { }, "t", Clock.systemUTC(), Duration.ofSeconds(5),
                1 << 20, gone::complete);
        for (int i = 0; i < 100; i++) {
            w.send(new ServerMessage.Accepted("c" + i, "a." + i, false));
        }
        w.close(Duration.ofSeconds(10));
        String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
        assertThat(lines).hasSize(100);
        assertThat(lines[99]).contains("\"c99\"");
        assertThat(gone).isNotDone();
    }

    @Test
    void aClientThatDoesNotReadIsDisconnectedWithoutStallingTheSender() throws Exception {
        PipedInputStream unread = new PipedInputStream(1024);
        PipedOutputStream out = new PipedOutputStream(unread);
        CompletableFuture<String> gone = new CompletableFuture<>();
        ConnectionWriter w = new ConnectionWriter(out, unread::close, "slow", Clock.systemUTC(),
                Duration.ofMillis(300), 1 << 20, gone::complete);
        long started = System.nanoTime();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            w.send(STATUS); // never blocks, however full the pipe
            return gone.isDone();
        });
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(15_000);
        assertThat(gone.get()).contains("has not read its replies for");
        assertThat(w.isOpen()).isFalse();
    }

    @Test
    void aClientThatStopsReadingIsDisconnectedAlsoWhenNothingMoreIsSent() throws Exception {
        PipedInputStream unread = new PipedInputStream(1024);
        CompletableFuture<String> gone = new CompletableFuture<>();
        ConnectionWriter w = new ConnectionWriter(new PipedOutputStream(unread), unread::close, "quiet",
                Clock.systemUTC(), Duration.ofMillis(300), 1 << 20, gone::complete);
        for (int i = 0; i < 20; i++) {
            w.send(STATUS); // more than the pipe holds, all at once: the writer blocks, and nothing follows
        }
        assertThat(gone.get(10, TimeUnit.SECONDS)).contains("has not read its replies for");
        assertThat(w.isOpen()).isFalse();
    }

    @Test
    void repliesOverTheByteLimitDisconnect() throws Exception {
        PipedInputStream unread = new PipedInputStream(1024);
        CompletableFuture<String> gone = new CompletableFuture<>();
        ConnectionWriter w = new ConnectionWriter(new PipedOutputStream(unread), unread::close, "full",
                Clock.systemUTC(), Duration.ofMinutes(5), 10_000, gone::complete);
        for (int i = 0; i < 200 && !gone.isDone(); i++) {
            w.send(STATUS);
        }
        assertThat(gone.get(10, TimeUnit.SECONDS)).contains("would exceed 10000 bytes");
    }

    @Test
    void aFailedWriteEndsTheConnection() throws Exception {
        CompletableFuture<String> gone = new CompletableFuture<>();
        OutputStream broken = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("Broken pipe");
            }
        };
        ConnectionWriter w = new ConnectionWriter(broken, () -> { }, "broken", Clock.systemUTC(),
                Duration.ofSeconds(5), 1 << 20, gone::complete);
        w.send(STATUS);
        assertThat(gone.get(10, TimeUnit.SECONDS)).contains("Broken pipe");
    }
}
