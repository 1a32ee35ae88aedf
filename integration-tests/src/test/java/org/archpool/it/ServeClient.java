package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A client of {@code archpool serve} as docs/service.md describes it: JSON lines out, JSON lines in, read on a
 * thread of its own into a queue the test takes from.
 */
final class ServeClient implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** What the reader puts in the queue at the end of the stream. */
    private static final JsonNode END = JSON.createObjectNode().put("type", "end-of-stream");

    private final OutputStream out;
    private final AutoCloseable connection;
    private final BlockingQueue<JsonNode> in = new LinkedBlockingQueue<>();
    private final List<JsonNode> passedOver = new CopyOnWriteArrayList<>();

    private ServeClient(InputStream from, OutputStream to, AutoCloseable connection) {
        this.out = to;
        this.connection = connection;
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(from, StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    in.add(JSON.readTree(line));
                }
            } catch (IOException e) {
                // the connection ended
            } finally {
                in.add(END);
            }
        }, "serve-client-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /** The client of a {@code serve --stdio} child. */
    static ServeClient of(Process serve) {
        return new ServeClient(serve.getInputStream(), serve.getOutputStream(), serve.getOutputStream());
    }

    /** A client of a {@code serve --socket PATH}. */
    static ServeClient connect(Path socket) throws IOException {
        SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(socket));
        // Channels' output stream would wait for the blocking lock its input stream holds while it reads
        return new ServeClient(Channels.newInputStream(channel), new ChannelOut(channel), channel);
    }

    void send(String line) throws IOException {
        send(line.getBytes(StandardCharsets.UTF_8));
    }

    synchronized void send(byte[] line) throws IOException {
        out.write(line);
        out.write('\n');
        out.flush();
    }

    /** The next message, which must be of {@code type}. */
    JsonNode next(String type) throws InterruptedException {
        return next(type, Duration.ofSeconds(60));
    }

    JsonNode next(String type, Duration within) throws InterruptedException {
        return next(type, within, false);
    }

    /**
     * The next message; unless {@code anyType}, it must be of {@code type} (which otherwise only names it). Unless
     * {@code type} is {@code started}, {@code started} messages are passed over (they come whenever a slot takes a
     * job); {@link #started()} lists them.
     */
    JsonNode next(String type, Duration within, boolean anyType) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        JsonNode m;
        while (true) {
            m = in.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (m == null || m == END || type.equals("started") || !m.path("type").asText().equals("started")) {
                break;
            }
            passedOver.add(m);
        }
        assertThat(m).as("a " + type + " message within " + within).isNotNull();
        assertThat(m).as("the connection ended").isNotSameAs(END);
        if (!anyType) {
            assertThat(m.path("type").asText()).as(m.toString()).isEqualTo(type);
        }
        return m;
    }

    /** The {@code started} messages {@link #next} passed over, in order. */
    List<JsonNode> started() {
        return List.copyOf(passedOver);
    }

    /** Whether the stream ends, with no message first, within {@code within}. */
    boolean endsNext(Duration within) throws InterruptedException {
        return in.poll(within.toMillis(), TimeUnit.MILLISECONDS) == END;
    }

    static String submit(String clientJobId, Path cwd, String job) {
        return "{\"type\":\"submit\",\"clientJobId\":\"" + clientJobId + "\",\"cwd\":\"" + cwd + "\",\"job\":" + job
                + "}";
    }

    static String commandJob(String id, String script) {
        return "{\"id\":\"" + id + "\",\"kind\":\"command\",\"argv\":[\"sh\",\"-c\",\"" + script + "\"]}";
    }

    @Override
    public void close() throws Exception {
        connection.close();
    }

    /** Writes to a socket channel without its blocking lock, which the reader holds while it waits. */
    private static final class ChannelOut extends OutputStream {
        private final SocketChannel channel;

        ChannelOut(SocketChannel channel) {
            this.channel = channel;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(b, off, len);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        }
    }
}
