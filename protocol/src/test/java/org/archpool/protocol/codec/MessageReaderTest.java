package org.archpool.protocol.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.nio.charset.StandardCharsets;
import org.archpool.protocol.Cancel;
import org.archpool.protocol.Shutdown;
import org.junit.jupiter.api.Test;

class MessageReaderTest {

    private static MessageReader reader(String text, int limit) {
        return new MessageReader(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), new MessageCodec(),
                limit);
    }

    @Test
    void readsLinesSkipsBlanksAndAcceptsCrlf() throws Exception {
        MessageReader r = reader("\n  \n{\"type\":\"cancel\",\"requestId\":\"a\"}\r\n{\"type\":\"shutdown\"}\n", 1024);
        assertThat(r.read()).isEqualTo(new Cancel("a"));
        assertThat(r.read()).isEqualTo(new Shutdown());
        assertThatThrownBy(r::read).isInstanceOf(EOFException.class);
    }

    @Test
    void anOversizeLineIsRejectedAndTheNextLineStillReads() throws Exception {
        String big = "{\"type\":\"cancel\",\"requestId\":\"" + "x".repeat(5000) + "\"}";
        MessageReader r = reader(big + "\n{\"type\":\"shutdown\"}\n", 1024);
        assertThatThrownBy(r::read).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("longer than 1024 bytes").hasMessageContaining("{\\\"type\\\":\\\"cancel\\\"");
        assertThat(r.read()).isEqualTo(new Shutdown());
    }

    @Test
    void aPartialLastLineIsAnError() {
        MessageReader r = reader("{\"type\":\"shutdown\"", 1024);
        assertThatThrownBy(r::read).isInstanceOf(ProtocolException.class).hasMessageContaining("ended inside a line");
    }

    @Test
    void writerAndReaderAgree() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        MessageWriter w = new MessageWriter(out);
        w.write(new Cancel("r1"));
        w.write(new Shutdown());
        MessageReader r = new MessageReader(new ByteArrayInputStream(out.toByteArray()));
        assertThat(r.read()).isEqualTo(new Cancel("r1"));
        assertThat(r.read()).isEqualTo(new Shutdown());
    }
}
