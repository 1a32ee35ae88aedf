package org.archpool.orchestrator.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LineReaderTest {

    private static LineReader reader(byte[] bytes, int max) {
        return new LineReader(new ByteArrayInputStream(bytes), max);
    }

    private static String text(LineReader.Line line) {
        assertThat(line).isInstanceOf(LineReader.Line.Text.class);
        return new String(((LineReader.Line.Text) line).bytes(), StandardCharsets.UTF_8);
    }

    @Test
    void linesComeWithoutTheirNewlineAndTheLastMayLackOne() throws IOException {
        LineReader r = reader("a\n\nbc\nlast".getBytes(StandardCharsets.UTF_8), 10);
        assertThat(text(r.next())).isEqualTo("a");
        assertThat(text(r.next())).isEmpty();
        assertThat(text(r.next())).isEqualTo("bc");
        assertThat(text(r.next())).isEqualTo("last");
        assertThat(r.next()).isNull();
    }

    @Test
    void aLineOverTheLimitIsSkippedWholeAndTheNextIsRead() throws IOException {
        byte[] big = new byte[200_000];
        java.util.Arrays.fill(big, (byte) 'x');
        byte[] all = new byte[big.length + 4];
        System.arraycopy(big, 0, all, 0, big.length);
        all[big.length] = '\n';
        all[big.length + 1] = 'o';
        all[big.length + 2] = 'k';
        all[big.length + 3] = '\n';
        LineReader r = reader(all, 100_000);
        assertThat(r.next()).isEqualTo(new LineReader.Line.TooLong(200_000));
        assertThat(text(r.next())).isEqualTo("ok");
        assertThat(r.next()).isNull();
    }

    @Test
    void aLineOfExactlyTheLimitIsKept() throws IOException {
        LineReader r = reader("12345\n123456\n".getBytes(StandardCharsets.UTF_8), 5);
        assertThat(text(r.next())).isEqualTo("12345");
        assertThat(r.next()).isEqualTo(new LineReader.Line.TooLong(6));
    }
}
