package org.archpool.orchestrator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class StopRequestTest {

    @TempDir
    Path dir;

    /** A listener that accepts and then does {@code what} with the connection. */
    private CompletableFuture<Void> listen(ServerSocketChannel server, Answer what) {
        return CompletableFuture.runAsync(() -> {
            try (SocketChannel c = server.accept()) {
                what.with(c);
            } catch (IOException e) {
                // the client went away: what this side says no longer matters
            }
        });
    }

    private interface Answer {
        void with(SocketChannel c) throws IOException;
    }

    private static ServerSocketChannel bound(Path socket) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        return server;
    }

    @Test
    @Timeout(20)
    void aSocketThatAcceptsAndNeverAnswersIsNotWaitedOnPastTheLimit() throws Exception {
        Path socket = dir.resolve("a.sock");
        try (ServerSocketChannel server = bound(socket)) {
            CompletableFuture<Void> silent = listen(server, c -> c.read(ByteBuffer.allocate(1 << 16)));
            long started = System.nanoTime();
            assertThatThrownBy(() -> StopRequest.stop(socket, Duration.ofMillis(500)))
                    .isInstanceOf(StopRequest.NoAnswerException.class)
                    .hasMessageContaining("no bye came within");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isBetween(400L, 5_000L);
            silent.cancel(true);
        }
    }

    @Test
    void somethingThatDoesNotSayHelloIsNotAServe() throws Exception {
        Path socket = dir.resolve("a.sock");
        try (ServerSocketChannel server = bound(socket)) {
            listen(server, c -> c.write(ByteBuffer.wrap("{\"type\":\"other\"}\n".getBytes(StandardCharsets.UTF_8))));
            assertThatThrownBy(() -> StopRequest.stop(socket, Duration.ofSeconds(10)))
                    .isInstanceOf(StopRequest.NoAnswerException.class).hasMessageContaining("did not say hello");
        }
    }

    @Test
    void aServeThatSaysHelloThenByeIsStopped() throws Exception {
        Path socket = dir.resolve("a.sock");
        try (ServerSocketChannel server = bound(socket)) {
            CompletableFuture<String> asked = new CompletableFuture<>();
            listen(server, c -> {
                c.write(ByteBuffer.wrap("{\"type\":\"hello\"}\n".getBytes(StandardCharsets.UTF_8)));
                ByteBuffer request = ByteBuffer.allocate(1 << 10);
                while (request.position() == 0 || request.get(request.position() - 1) != '\n') {
                    c.read(request);
                }
                asked.complete(new String(request.array(), 0, request.position(), StandardCharsets.UTF_8));
                c.write(ByteBuffer.wrap("{\"type\":\"bye\",\"report\":\"r.json\"}\n".getBytes(StandardCharsets.UTF_8)));
            });
            JsonNode bye = StopRequest.stop(socket, Duration.ofSeconds(10));
            assertThat(bye.path("report").asText()).isEqualTo("r.json");
            assertThat(asked.get(5, TimeUnit.SECONDS)).contains("\"shutdown\"").contains("\"cancelRunning\":true");
        }
    }
}
