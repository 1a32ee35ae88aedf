package org.archpool.protocol.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.archpool.protocol.Cancel;
import org.junit.jupiter.api.Test;

/** Regressions for what the protocol fuzzer found in the codec's error messages and framing. */
class ProtocolHardeningTest {

    private final MessageCodec codec = new MessageCodec();

    private ProtocolException refusal(byte[] line) {
        try {
            codec.decode(line, line.length);
        } catch (ProtocolException e) {
            assertThat(ProtocolFuzzTest.checkProtocolError(e, line.length)).as(e.getMessage()).isNull();
            return e;
        }
        throw new AssertionError("decoded: " + new String(line, StandardCharsets.UTF_8));
    }

    private ProtocolException refusal(String line) {
        return refusal(line.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aProblemThatQuotesAHugeValueIsCutShort() {
        // was: the whole 100,000-character platform in the message
        ProtocolException e = refusal("{\"type\":\"build\",\"requestId\":\"r\",\"timeoutMs\":0,"
                + "\"logPath\":\"/l\",\"job\":{\"kind\":\"command\",\"id\":\"a\",\"argv\":[\"x\"],\"cwd\":\"/\"},"
                + "\"target\":{\"platform\":\"" + "q".repeat(100_000) + "\",\"archs\":[\"90\"]}}");
        assertThat(e.getMessage()).contains("unknown platform 'qqq").contains("characters in all").hasSizeLessThan(1200);
    }

    @Test
    void controlCharactersFromTheLineNeverReachTheMessageRaw() {
        // was: an escape sequence from a worker's line went to the coordinator's terminal as is
        ProtocolException e = refusal("{\"type\":\"build\",\"requestId\":\"r\",\"timeoutMs\":0,"
                + "\"logPath\":\"/l\",\"job\":{\"kind\":\"command\",\"id\":\"a\",\"argv\":[\"x\"],\"cwd\":\"/\"},"
                + "\"target\":{\"platform\":\"\\u001b[2J\\u2028\",\"archs\":[\"90\"]}}");
        assertThat(e.getMessage()).doesNotContain("\u001b").doesNotContain("\u2028")
                .contains("unknown platform '\\u001b[2J\\u2028'");
        assertThat(refusal("{\"type\":\"cancel\",\u2029\"requestId\":1}").offendingPreview()).contains("\\u2029");
    }

    @Test
    void thePreviewShowsTheBytesThatAreNotUtf8() {
        // was: every invalid byte showed as \xfd (the low byte of U+FFFD)
        byte[] line = {'{', (byte) 0xff, 'a', (byte) 0xc3, (byte) 0xa9, (byte) 0xe2, (byte) 0x82, '}'};
        assertThat(refusal(line).offendingPreview()).isEqualTo("\"{\\xffa\\u00e9\\xe2\\x82}\"");
    }

    @Test
    void aLineWithMoreAfterItsObjectIsAnError() throws Exception {
        // was: decoded as its first object, the rest silently dropped
        assertThat(refusal("{\"type\":\"cancel\",\"requestId\":\"r\"} {\"type\":\"shutdown\"}").getMessage())
                .contains("{\\\"type\\\":\\\"shutdown\\\"}");
        assertThat(refusal("{\"type\":\"cancel\",\"requestId\":\"r\"}x").getMessage()).isNotBlank();
        assertThat(codec.decode("{\"type\":\"cancel\",\"requestId\":\"r\"}  \t")).isEqualTo(new Cancel("r"));
    }

    @Test
    void aNullInAListSaysSo() {
        // was: "invalid message: null"
        assertThat(refusal("{\"type\":\"result\",\"requestId\":\"r\",\"outcome\":\"failed\",\"phases\":[null]}")
                .getMessage()).startsWith("invalid message: a list or map holds null");
    }
}
