package org.archpool.orchestrator.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code archpool serve --socket PATH --stop}: a client that waits for {@code hello}, sends {@code shutdown} with
 * {@code cancelRunning}, and waits for the {@code bye}, all within a time limit: a socket that accepts and never
 * answers (a {@code serve} stopped with Ctrl-Z, a hung one, something else listening) is not waited on for ever.
 */
public final class StopRequest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** How long {@code --stop} waits by default: the hello is immediate, then the jobs' cancel and the report. */
    public static final Duration DEFAULT_LIMIT = Duration.ofSeconds(60);

    private StopRequest() {
    }

    /** Why {@code --stop} did not get its {@code bye}. */
    public static final class NoAnswerException extends IOException {
        NoAnswerException(String message) {
            super(message);
        }
    }

    /**
     * @return the {@code bye} message
     * @throws NoAnswerException when the other side did not say {@code hello} and then {@code bye} within
     *                           {@code limit}, or closed the connection without them
     * @throws IOException       when nothing answers at {@code socket}
     */
    public static JsonNode stop(Path socket, Duration limit) throws IOException {
        try (SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            AtomicBoolean timedOut = new AtomicBoolean();
            // a blocked read has no time limit of its own; closing the channel ends it
            Executor later = CompletableFuture.delayedExecutor(limit.toMillis(), TimeUnit.MILLISECONDS);
            CompletableFuture<Void> watchdog = CompletableFuture.runAsync(() -> {
                timedOut.set(true);
                closeQuietly(channel);
            }, later);
            try {
                return exchange(channel);
            } catch (ClosedChannelException e) {
                if (!timedOut.get()) {
                    throw e;
                }
                throw new NoAnswerException("the socket accepted the connection but no bye came within "
                        + limit.toSeconds() + " s (is that serve stopped with Ctrl-Z, or hung? is it an archpool"
                        + " serve at all?)");
            } finally {
                watchdog.cancel(false);
            }
        }
    }

    private static JsonNode exchange(SocketChannel channel) throws IOException {
        InputStream in = Channels.newInputStream(channel);
        LineReader lines = new LineReader(in, ServiceCodec.MAX_LINE_BYTES);
        JsonNode hello = next(lines);
        if (hello == null || !"hello".equals(hello.path("type").asText())) {
            throw new NoAnswerException("what answers on the socket did not say hello first: it is not an archpool"
                    + " serve");
        }
        OutputStream out = Channels.newOutputStream(channel);
        out.write("{\"type\":\"shutdown\",\"cancelRunning\":true}\n".getBytes(StandardCharsets.UTF_8));
        out.flush();
        for (JsonNode message = next(lines); message != null; message = next(lines)) {
            if ("bye".equals(message.path("type").asText())) {
                return message;
            }
        }
        throw new NoAnswerException("it closed the connection without a bye");
    }

    /** The next message; null at the end. A line too long is skipped. */
    private static JsonNode next(LineReader lines) throws IOException {
        for (LineReader.Line line = lines.next(); line != null; line = lines.next()) {
            if (line instanceof LineReader.Line.Text text) {
                JsonNode message = JSON.readTree(text.bytes());
                if (message != null) {
                    return message;
                }
            }
        }
        return null;
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // closing is all the watchdog does: a failure leaves the channel as closed as it can be
        }
    }
}
