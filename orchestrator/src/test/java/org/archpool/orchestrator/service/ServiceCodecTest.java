package org.archpool.orchestrator.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.archpool.orchestrator.schedule.JobOutcome;
import org.archpool.protocol.Outcome;
import org.junit.jupiter.api.Test;

class ServiceCodecTest {

    private final ServiceCodec codec = new ServiceCodec();
    private final ObjectMapper json = new ObjectMapper();

    private ServiceCodec.Decoded decode(String line) {
        return codec.decode(line.getBytes(StandardCharsets.UTF_8));
    }

    private ServerMessage.Error refused(String line) {
        ServiceCodec.Decoded d = decode(line);
        assertThat(d).as(line).isInstanceOf(ServiceCodec.Decoded.Refused.class);
        return ((ServiceCodec.Decoded.Refused) d).error();
    }

    private ClientMessage message(String line) {
        ServiceCodec.Decoded d = decode(line);
        assertThat(d).as(line).isInstanceOf(ServiceCodec.Decoded.Message.class);
        return ((ServiceCodec.Decoded.Message) d).message();
    }

    private JsonNode encoded(ServerMessage m) throws Exception {
        byte[] line = codec.encode(m);
        assertThat(line[line.length - 1]).isEqualTo((byte) '\n');
        String text = new String(line, StandardCharsets.UTF_8);
        assertThat(text.indexOf('\n')).isEqualTo(text.length() - 1);
        assertThat(text).startsWith("{\"type\":\"" + m.type() + "\"");
        return json.readTree(line);
    }

    @Test
    void clientMessagesAreDecodedWithUnknownFieldsIgnored() {
        ClientMessage submit = message("{\"type\":\"submit\",\"clientJobId\":\"c1\",\"cwd\":\"/p\",\"job\":{\"id\":\"a\"},"
                + "\"later\":1}");
        assertThat(submit).isInstanceOf(ClientMessage.Submit.class);
        assertThat(((ClientMessage.Submit) submit).cwd()).isEqualTo(Path.of("/p"));
        assertThat(message("{\"type\":\"cancel\",\"clientJobId\":\"c1\"}")).isEqualTo(new ClientMessage.Cancel("c1"));
        assertThat(message("{\"type\":\"status\"}")).isEqualTo(new ClientMessage.Status(null));
        assertThat(message("{\"type\":\"status\",\"requestId\":\"s\"}")).isEqualTo(new ClientMessage.Status("s"));
        assertThat(message("{\"type\":\"shutdown\",\"cancelRunning\":true}")).isEqualTo(new ClientMessage.Shutdown(true));
        assertThat(message("{\"type\":\"shutdown\"}")).isEqualTo(new ClientMessage.Shutdown(false));
    }

    @Test
    void badLinesAndBadMessagesAreTold() {
        assertThat(refused("{").code()).isEqualTo(ErrorCode.BAD_LINE);
        assertThat(refused("").code()).isEqualTo(ErrorCode.BAD_LINE);
        assertThat(refused("\"text\"").code()).isEqualTo(ErrorCode.BAD_LINE);
        assertThat(refused("{\"type\":\"status\"} {}").code()).isEqualTo(ErrorCode.BAD_LINE);
        assertThat(refused("{\"type\":\"status\",\"type\":\"cancel\"}").code()).isEqualTo(ErrorCode.BAD_LINE);
        assertThat(codec.decode(new byte[] {'"', (byte) 0xc3, '"'})).isInstanceOf(ServiceCodec.Decoded.Refused.class);
        assertThat(refused("{\"clientJobId\":\"c\"}").code()).isEqualTo(ErrorCode.BAD_MESSAGE);
        assertThat(refused("{\"clientJobId\":\"c\"}").clientJobId()).isEqualTo("c");
        assertThat(refused("{\"type\":\"cancel\"}").code()).isEqualTo(ErrorCode.BAD_MESSAGE);
        assertThat(refused("{\"type\":\"cancel\",\"clientJobId\":\"\"}").message()).contains("1 to 128");
        assertThat(refused("{\"type\":\"cancel\",\"clientJobId\":\"" + "x".repeat(129) + "\"}").message())
                .contains("not 129");
        assertThat(refused("{\"type\":\"submit\",\"clientJobId\":\"c\",\"job\":{}}").message()).contains("cwd");
        assertThat(refused("{\"type\":\"submit\",\"clientJobId\":\"c\",\"cwd\":\"/\"}").message()).contains("job");
        assertThat(refused("{\"type\":\"shutdown\",\"cancelRunning\":\"yes\"}").code()).isEqualTo(ErrorCode.BAD_MESSAGE);
        ServerMessage.Error status = refused("{\"type\":\"nope\",\"requestId\":\"r\"}");
        assertThat(status.requestId()).isEqualTo("r");
        assertThat(status.message()).contains("\"nope\"").contains("submit, cancel, status or shutdown");
    }

    @Test
    void serverMessagesAreOneLineTypeFirstAndAbsentRatherThanNull() throws Exception {
        JsonNode error = encoded(ServerMessage.Error.of(ErrorCode.DUPLICATE_CLIENT_JOB_ID, "m"));
        assertThat(error.get("code").asText()).isEqualTo("duplicate-client-job-id");
        assertThat(error.has("clientJobId")).isFalse();
        assertThat(error.has("requestId")).isFalse();
        JsonNode accepted = encoded(new ServerMessage.Accepted("c", "a.1", true));
        assertThat(accepted.get("shared").asBoolean()).isTrue();
        JobOutcome outcome = new JobOutcome("a.1", "command", Outcome.SUCCEEDED, 0, null, "w1", 1, 5, 0, 0, 0, 3, 1, 9,
                List.of(), "/l/a.1.log", null, null, List.of(), List.of(), List.of()).forClient("c");
        JsonNode result = encoded(new ServerMessage.Result("c", false, outcome));
        List<String> fields = new java.util.ArrayList<>();
        result.get("job").fieldNames().forEachRemaining(fields::add);
        assertThat(fields).startsWith("id", "clientJobId", "kind", "outcome");
        assertThat(result.get("job").has("signal")).isFalse();
        JsonNode bye = encoded(new ServerMessage.Bye("/r.json", null, Map.of("succeeded", 2)));
        assertThat(bye.has("notWritten")).isFalse();
        assertThat(bye.get("outcomes").get("succeeded").asInt()).isEqualTo(2);
        JsonNode status = encoded(new ServerMessage.Status(null, 1, 2, 3, 4, new ServerMessage.Status.Workers(2, 1),
                Map.of(), 10, false));
        assertThat(status.has("requestId")).isFalse();
        assertThat(status.get("workers").get("live").asInt()).isEqualTo(1);
    }
}
