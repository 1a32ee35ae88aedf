package org.archpool.orchestrator.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * {@code archpool serve --socket PATH --stop}: a client that sends {@code shutdown} with {@code cancelRunning} and
 * waits for the {@code bye}.
 */
public final class StopRequest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private StopRequest() {
    }

    /**
     * @return the {@code bye} message
     * @throws IOException when nothing answers at {@code socket}, or it closed without a {@code bye}
     */
    public static JsonNode stop(Path socket) throws IOException {
        try (SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            OutputStream out = Channels.newOutputStream(channel);
            out.write("{\"type\":\"shutdown\",\"cancelRunning\":true}\n".getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = Channels.newInputStream(channel);
            LineReader lines = new LineReader(in, ServiceCodec.MAX_LINE_BYTES);
            for (LineReader.Line line = lines.next(); line != null; line = lines.next()) {
                if (line instanceof LineReader.Line.Text text) {
                    JsonNode message = JSON.readTree(text.bytes());
                    if (message != null && "bye".equals(message.path("type").asText())) {
                        return message;
                    }
                }
            }
            throw new IOException("it closed the connection without a bye");
        }
    }
}
