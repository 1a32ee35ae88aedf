package org.archpool.protocol.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.archpool.protocol.Artifact;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.Cancel;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.Hello;
import org.archpool.protocol.Message;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;
import org.archpool.protocol.PhaseTiming;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Progress;
import org.archpool.protocol.Shutdown;
import org.archpool.protocol.Step;
import org.archpool.protocol.Target;
import org.junit.jupiter.api.Test;

class MessageCodecTest {

    private final MessageCodec codec = new MessageCodec();

    private Message roundTrip(Message m) throws ProtocolException {
        byte[] line = codec.encode(m);
        assertThat(new String(line)).doesNotContain("\n");
        return codec.decode(line, line.length);
    }

    @Test
    void everyMessageSurvivesARoundTrip() throws Exception {
        CmakeJob cmake = new CmakeJob("a.b-c_1", "/src", "/build", null, "Release", Map.of("X", "1"),
                List.of("--fresh"), List.of(), List.of("all"), Map.of("K", "V"), 5000L, List.of("*.so"));
        CommandJob command = new CommandJob("cmd", List.of("nvcc", "{offload-arch-flags}"), "/w", null, null, null);
        Target target = new Target(Platform.HIP, List.of("gfx942", "gfx90a:xnack-"));
        List<Message> messages = List.of(
                new Hello(1, "w1", 42, "host", "17"),
                new BuildRequest("r1", cmake, target, List.of(
                        new Step(Phase.CONFIGURE, List.of("cmake", "-S", "/src", "-B", "/build",
                                "-DCMAKE_HIP_ARCHITECTURES=gfx942;gfx90a:xnack-"), "/build", Map.of("HIPARCHS", "gfx942")),
                        new Step(Phase.BUILD, List.of("cmake", "--build", "/build", "--parallel", "2"), "/build",
                                Map.of())), 1000, "/logs/a.log"),
                new BuildRequest("r2", command, new Target(Platform.CUDA, List.of("90")),
                        List.of(new Step(Phase.COMMAND, List.of("nvcc", "-arch=sm_90"), "/w", Map.of())), 0,
                        "/logs/b.log"),
                new BuildRequest("r3", command, new Target(Platform.CUDA, List.of("90")),
                        List.of(new Step(Phase.COMMAND, List.of("nvcc", "-arch=sm_90"), "/w", Map.of())), 0,
                        "/logs/c.log", 64L << 20),
                new Progress("r1", Phase.CONFIGURE),
                new BuildResult("r1", Outcome.TIMED_OUT, 137, "SIGKILL", List.of(new PhaseTiming(Phase.BUILD, 12, null)),
                        List.of(new Artifact("/b/lib.so", List.of("sm_90"))), "/logs/a.log", "tail", "msg"),
                new Cancel("r1"),
                new Shutdown());
        for (Message m : messages) {
            assertThat(roundTrip(m)).isEqualTo(m);
        }
    }

    @Test
    void wireNamesAreTheDocumentedOnes() {
        assertThat(new String(codec.encode(new Shutdown()))).isEqualTo("{\"type\":\"shutdown\"}");
        assertThat(new String(codec.encode(new Progress("r", Phase.BUILD))))
                .isEqualTo("{\"type\":\"progress\",\"requestId\":\"r\",\"phase\":\"build\"}");
        String result = new String(codec.encode(new BuildResult("r", Outcome.TIMED_OUT, null, null, null, null,
                null, null, null)));
        assertThat(result).contains("\"type\":\"result\"").contains("\"outcome\":\"timed_out\"")
                .doesNotContain("null");
    }

    @Test
    void unknownFieldsAreIgnored() throws Exception {
        Message m = codec.decode("{\"type\":\"cancel\",\"requestId\":\"r9\",\"future\":{\"x\":[1,2]}}");
        assertThat(m).isEqualTo(new Cancel("r9"));
    }

    @Test
    void malformedLinesAreProtocolErrorsThatQuoteTheLine() {
        assertThatThrownBy(() -> codec.decode("this is not json"))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("not JSON")
                .hasMessageContaining("\"this is not json\"");
        assertThatThrownBy(() -> codec.decode("{\"type\":\"launch-missiles\"}"))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("unknown or missing message type");
        assertThatThrownBy(() -> codec.decode("{\"requestId\":\"r\"}"))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("unknown or missing message type");
        assertThatThrownBy(() -> codec.decode("{\"type\":\"cancel\"}"))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("cancel.requestId");
        assertThatThrownBy(() -> codec.decode("[1,2,3]")).isInstanceOf(ProtocolException.class);
        assertThatThrownBy(() -> codec.decode("null")).isInstanceOf(ProtocolException.class);
    }

    @Test
    void theTypeMayComeAnywhereInTheObject() throws Exception {
        assertThat(codec.decode("{\"requestId\":\"r\",\"phase\":\"build\",\"type\":\"progress\"}"))
                .isEqualTo(new Progress("r", Phase.BUILD));
    }

    @Test
    void valuesOfTheWrongJsonTypeAreRefusedByFieldNotCoerced() {
        assertThatThrownBy(() -> codec.decode("{\"type\":\"cancel\",\"requestId\":5}"))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("cancel.requestId must be a string, not 5");
        String build = "{\"type\":\"build\",\"requestId\":\"r\",\"logPath\":\"/l\","
                + "\"target\":{\"platform\":\"cuda\",\"archs\":[\"90\"]},"
                + "\"steps\":[{\"phase\":\"command\",\"argv\":[\"true\"],\"cwd\":\"/\"}],";
        assertThatThrownBy(() -> codec.decode(build + "\"timeoutMs\":null,"
                + "\"job\":{\"kind\":\"command\",\"id\":\"c\",\"argv\":[\"true\"],\"cwd\":\"/\"}}"))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("build.timeoutMs must be a number, not null");
        assertThatThrownBy(() -> codec.decode(build + "\"timeoutMs\":1.5,"
                + "\"job\":{\"kind\":\"command\",\"id\":\"c\",\"argv\":[\"true\"],\"cwd\":\"/\"}}"))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("build.timeoutMs must be a whole number");
        assertThatThrownBy(() -> codec.decode(build + "\"timeoutMs\":0,"
                + "\"job\":{\"kind\":\"command\",\"id\":\"c\",\"argv\":[7],\"cwd\":\"/\"}}"))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("build.job.argv[0] must be a string, not 7");
        assertThatThrownBy(() -> codec.decode(build + "\"timeoutMs\":99999999999999999999,"
                + "\"job\":{\"kind\":\"command\",\"id\":\"c\",\"argv\":[\"true\"],\"cwd\":\"/\"}}"))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("build.timeoutMs is out of range");
        assertThatThrownBy(() -> codec.decode(build + "\"timeoutMs\":0,"
                + "\"job\":{\"kind\":\"docker\",\"id\":\"c\"}}"))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("build.job.kind must be cmake or command");
        String job = "\"job\":{\"kind\":\"command\",\"id\":\"c\",\"argv\":[\"true\"],\"cwd\":\"/\"}";
        assertThatThrownBy(() -> codec.decode(build.replace("\"argv\":[\"true\"]", "\"argv\":[\"true\",1]")
                + "\"timeoutMs\":0," + job + "}"))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("build.steps[0].argv[1] must be a string, not 1");
        assertThatThrownBy(() -> codec.decode(build.replace("\"command\"", "\"link\"") + "\"timeoutMs\":0," + job + "}"))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("unknown phase 'link'");
        assertThatThrownBy(() -> codec.decode("{\"type\":\"result\",\"requestId\":\"r\",\"outcome\":\"exploded\"}"))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("unknown outcome 'exploded'");
        assertThatThrownBy(() -> codec.decode("{\"type\":\"build\",\"requestId\":\"r\",\"env\":{\"A\":null}}"))
                .isInstanceOf(ProtocolException.class);
    }

    @Test
    void absentOptionalValuesAreLeftOutNotWrittenAsNull() {
        String line = new String(codec.encode(new BuildRequest("r", new CommandJob("c", List.of("true"), "/", null,
                null, null), new Target(Platform.CUDA, List.of("90")),
                List.of(new Step(Phase.COMMAND, List.of("true"), "/", null)), 0, "/l")));
        assertThat(line).startsWith("{\"type\":\"build\"").doesNotContain("null").doesNotContain("timeoutMs\":null")
                .contains("\"job\":{\"kind\":\"command\",\"id\":\"c\",\"argv\":[\"true\"],\"cwd\":\"/\"")
                .contains("\"steps\":[{\"phase\":\"command\",\"argv\":[\"true\"],\"cwd\":\"/\",\"env\":{}}]");
        String result = new String(codec.encode(new BuildResult("r", Outcome.SUCCEEDED, 0, null,
                List.of(new PhaseTiming(Phase.INSPECT, 3, null)), List.of(new Artifact("/a.so", List.of("sm_90"))),
                null, null, null)));
        assertThat(result).contains("{\"name\":\"inspect\",\"ms\":3}").doesNotContain("hostcallKernels")
                .doesNotContain("null");
    }

    @Test
    void theLogCapIsOptionalAndPositive() throws Exception {
        String build = "{\"type\":\"build\",\"requestId\":\"r\",\"timeoutMs\":0,\"logPath\":\"/l\","
                + "\"target\":{\"platform\":\"cuda\",\"archs\":[\"90\"]},"
                + "\"steps\":[{\"phase\":\"command\",\"argv\":[\"true\"],\"cwd\":\"/\"}],"
                + "\"job\":{\"kind\":\"command\",\"id\":\"c\",\"argv\":[\"true\"],\"cwd\":\"/\"}";
        assertThat(((BuildRequest) codec.decode(build + "}")).maxLogBytes()).isNull();
        assertThat(((BuildRequest) codec.decode(build + ",\"maxLogBytes\":4096}")).maxLogBytes()).isEqualTo(4096L);
        assertThat(new String(codec.encode(codec.decode(build + ",\"maxLogBytes\":4096}"))))
                .contains("\"maxLogBytes\":4096");
        assertThatThrownBy(() -> codec.decode(build + ",\"maxLogBytes\":0}"))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("build.maxLogBytes must be > 0");
        assertThatThrownBy(() -> codec.decode(build + ",\"maxLogBytes\":\"1G\"}"))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("build.maxLogBytes must be a");
    }

    @Test
    void aBuildWithoutStepsIsRefused() {
        assertThatThrownBy(() -> codec.decode("{\"type\":\"build\",\"requestId\":\"r\",\"timeoutMs\":0,"
                + "\"logPath\":\"/l\",\"target\":{\"platform\":\"cuda\",\"archs\":[\"90\"]},\"steps\":[],"
                + "\"job\":{\"kind\":\"command\",\"id\":\"c\",\"argv\":[\"true\"],\"cwd\":\"/\"}}"))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("build.steps must not be empty");
    }

    @Test
    void aWorkerCannotBeHandedNative() {
        assertThatThrownBy(() -> codec.decode("{\"type\":\"build\",\"requestId\":\"r\",\"timeoutMs\":0,"
                + "\"logPath\":\"/l\",\"target\":{\"platform\":\"cuda\",\"archs\":[\"native\"]},"
                + "\"steps\":[{\"phase\":\"command\",\"argv\":[\"true\"],\"cwd\":\"/\"}],"
                + "\"job\":{\"kind\":\"command\",\"id\":\"c\",\"argv\":[\"true\"],\"cwd\":\"/\"}}"))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("native");
    }

    @Test
    void previewsAreTruncatedAndEscaped() {
        byte[] garbage = new byte[1000];
        for (int i = 0; i < garbage.length; i++) {
            garbage[i] = (byte) (i % 7 == 0 ? 1 : 'x');
        }
        String preview = ProtocolException.preview(garbage, garbage.length);
        assertThat(preview).contains("\\u0001").contains("1000 bytes in all");
        assertThat(preview.length()).isLessThan(ProtocolException.PREVIEW_BYTES * 6 + 40);
    }
}
