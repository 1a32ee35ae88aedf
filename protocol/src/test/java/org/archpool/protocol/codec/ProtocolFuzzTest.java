package org.archpool.protocol.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
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
import org.archpool.protocol.fuzz.FuzzRun;
import org.archpool.protocol.fuzz.Mutator;
import org.junit.jupiter.api.Test;

/**
 * Feeds mutated protocol lines to {@link MessageCodec} and mutated byte streams to {@link MessageReader}: the only
 * allowed outcomes are a {@link Message} (which then survives another round trip) or a {@link ProtocolException}
 * whose message is bounded, one line, and quotes the offending bytes. Anything else, or a hang, fails and prints
 * the seed: replay with {@code -Darchpool.fuzz.seed=S -Darchpool.fuzz.case=N} (see {@link FuzzRun}).
 */
class ProtocolFuzzTest {

    static final long SEED = FuzzRun.seed(0x5EED_A4C4_0002L);
    /** Problem (≤ 300 characters, each at most 6 escaped) + preview (≤ 200 bytes, each at most 6) + the suffixes. */
    static final int MAX_MESSAGE_CHARS = 3072;

    private final MessageCodec codec = new MessageCodec();

    /** Every message type, with every optional field filled in at least once. */
    static List<Message> messages() {
        Map<String, String> defines = new LinkedHashMap<>();
        defines.put("USE_FAST_MATH", "ON");
        defines.put("N", "4");
        CmakeJob cmake = new CmakeJob("vector_add", "/abs/src", "/abs/build/vector_add", "Ninja", "Release", defines,
                List.of("-Wno-dev"), List.of("--verbose"), List.of("kernels"), Map.of("CC", "gcc"), 90_000L,
                List.of("*.so"));
        CommandJob command = new CommandJob("direct.nvcc", List.of("nvcc", "{offload-arch-flags}", "-c", "k.cu"),
                "/abs/src", Map.of(), null, List.of("k.o"));
        return List.of(
                new Hello(Message.PROTOCOL_VERSION, "w1", 4242L, "node17", "17.0.15"),
                new BuildRequest("vector_add#1", cmake, new Target(Platform.CUDA, List.of("80-real", "90a")),
                        List.of(new Step(Phase.CONFIGURE, List.of("cmake", "-S", "/abs/src", "-B", "/abs/build/vector_add",
                                        "-DCMAKE_CUDA_ARCHITECTURES=80-real;90a"), "/abs/build/vector_add",
                                        Map.of("CUDAARCHS", "80-real;90a")),
                                new Step(Phase.BUILD, List.of("cmake", "--build", "/abs/build/vector_add"),
                                        "/abs/build/vector_add", Map.of())),
                        600_000L, "/abs/.archpool/logs/vector_add.log"),
                new BuildRequest("direct.nvcc#2", command, new Target(Platform.HIP, List.of("gfx942", "gfx90a:xnack-")),
                        List.of(new Step(Phase.COMMAND, List.of("hipcc", "--offload-arch=gfx942", "-c", "k.hip"),
                                "/abs/src", Map.of("HIPARCHS", "gfx942;gfx90a:xnack-"))),
                        0, "/abs/.archpool/logs/direct.nvcc.log"),
                new Progress("vector_add#1", Phase.CONFIGURE),
                new BuildResult("vector_add#1", Outcome.SUCCEEDED, 0, null,
                        List.of(new PhaseTiming(Phase.CONFIGURE, 3120, 0), new PhaseTiming(Phase.BUILD, 1630, 0)),
                        List.of(new Artifact("/abs/build/libk.so", List.of("sm_90", "compute_90")),
                                new Artifact("/abs/build/bad.so", List.of(), "not an ELF file")),
                        "/abs/.archpool/logs/vector_add.log", null, null),
                new BuildResult("direct.nvcc#2", Outcome.TIMED_OUT, null, "SIGKILL",
                        List.of(new PhaseTiming(Phase.COMMAND, 600_000, null)), List.of(), "/abs/log",
                        "line 1\nline 2\n", "killed at its time limit of 10m"),
                new Cancel("vector_add#1"),
                new Shutdown());
    }

    @Test
    void everyMessageTypeIsASeed() throws Exception {
        List<Message> seeds = messages();
        assertThat(seeds.stream().map(m -> m.getClass().getSimpleName()).distinct())
                .containsExactlyInAnyOrder("Hello", "BuildRequest", "Progress", "BuildResult", "Cancel", "Shutdown");
        for (Message m : seeds) {
            byte[] line = codec.encode(m);
            assertThat(codec.decode(line, line.length)).isEqualTo(m);
        }
    }

    @Test
    void mutatedLinesDecodeOrAreProtocolErrors() {
        List<byte[]> seeds = messages().stream().map(codec::encode).toList();
        int[] decoded = {0};
        int[] refused = {0};
        int ran = FuzzRun.run("mutated protocol lines", SEED, i -> {
            Mutator mutator = new Mutator(SEED, i);
            byte[] line = mutator.mutate(seeds.get(mutator.random().nextInt(seeds.size())));
            String problem;
            try {
                Message m = codec.decode(line, line.length);
                decoded[0]++;
                problem = checkDecoded(m);
            } catch (ProtocolException e) {
                refused[0]++;
                problem = checkProtocolError(e, line.length);
            } catch (Throwable t) {
                problem = "threw " + FuzzRun.stackTop(t);
            }
            return problem == null ? null
                    : "(" + mutator.describe() + "): " + problem + "\n    input: " + Mutator.show(line, 400);
        });
        if (FuzzRun.ONLY_CASE == null) {
            assertThat(ran).isGreaterThanOrEqualTo(1000);
            assertThat(decoded[0]).as("decoded").isGreaterThan(ran / 50);
            assertThat(refused[0]).as("refused").isGreaterThan(ran / 2);
        }
    }

    @Test
    void mutatedStreamsReadLikeTheirLines() {
        List<byte[]> seeds = messages().stream().map(codec::encode).toList();
        int ran = FuzzRun.run("mutated streams", SEED, i -> {
            Mutator mutator = new Mutator(SEED ^ 0x57EA_0000L, i);
            Random random = mutator.random();
            int maxLine = new int[] {64, 200, 1024, 4096, 1 << 20}[random.nextInt(5)];
            byte[] stream = stream(seeds, mutator, random);
            String problem;
            try {
                problem = compare(stream, maxLine, random);
            } catch (Throwable t) {
                problem = "threw " + FuzzRun.stackTop(t);
            }
            return problem == null ? null : "(max line " + maxLine + "; " + mutator.describe() + "): " + problem
                    + "\n    stream: " + Mutator.show(stream, 600);
        });
        if (FuzzRun.ONLY_CASE == null) {
            assertThat(ran).isGreaterThanOrEqualTo(1000);
        }
    }

    /** Several lines: valid, mutated, blank, CRLF, oversize; sometimes mutated as a whole or cut off without a newline. */
    private static byte[] stream(List<byte[]> seeds, Mutator mutator, Random random) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int lines = 1 + random.nextInt(8);
        for (int l = 0; l < lines; l++) {
            byte[] seed = seeds.get(random.nextInt(seeds.size()));
            switch (random.nextInt(7)) {
                case 0, 1 -> out.writeBytes(seed);
                case 2, 3 -> out.writeBytes(mutator.mutate(seed));
                case 4 -> out.write(new byte[] {' ', '\t', ' '}, 0, random.nextInt(4));
                case 5 -> {
                    byte[] big = new byte[100 + random.nextInt(6000)];
                    Arrays.fill(big, (byte) 'x');
                    big[0] = '{';
                    out.writeBytes(big);
                }
                default -> {
                    out.writeBytes(seed);
                    out.write(' ');
                    out.writeBytes(seed);
                }
            }
            if (random.nextInt(4) == 0) {
                out.write('\r');
            }
            out.write('\n');
        }
        byte[] bytes = out.toByteArray();
        if (random.nextInt(4) == 0) {
            bytes = mutator.mutate(bytes);
        }
        if (random.nextInt(3) == 0 && bytes.length > 0) {
            bytes = Arrays.copyOf(bytes, bytes.length - 1 - random.nextInt(Math.min(bytes.length, 20)));
        }
        return bytes;
    }

    /**
     * Reads {@code stream} with a {@link MessageReader} fed in random chunks, and checks each result against what
     * decoding the stream's lines one by one gives (the documented framing). Null when they agree.
     */
    private String compare(byte[] stream, int maxLine, Random random) throws IOException {
        List<Object> expected = expectedResults(stream, maxLine);
        MessageReader reader = new MessageReader(new ChunkedStream(stream, random), codec, maxLine);
        for (int n = 0; ; n++) {
            Object actual;
            try {
                actual = reader.read();
            } catch (EOFException e) {
                actual = "EOF";
            } catch (ProtocolException e) {
                String bad = checkProtocolError(e, -1);
                if (bad != null) {
                    return "read " + n + ": " + bad;
                }
                actual = ProtocolException.class;
            }
            if (n >= expected.size()) {
                return "read " + n + " returned " + actual + " after the expected " + expected;
            }
            if (!expected.get(n).equals(actual)) {
                return "read " + n + " returned " + actual + ", expected " + expected.get(n) + " (all: " + expected + ")";
            }
            if (actual.equals("EOF")) {
                return null;
            }
        }
    }

    private List<Object> expectedResults(byte[] stream, int maxLine) {
        List<Object> out = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= stream.length; i++) {
            boolean end = i == stream.length;
            if (!end && stream[i] != '\n') {
                continue;
            }
            int length = i - start;
            if (end) {
                if (length > 0) {
                    out.add(ProtocolException.class);
                }
                break;
            }
            if (length > maxLine) {
                out.add(ProtocolException.class);
            } else {
                int content = length > 0 && stream[i - 1] == '\r' ? length - 1 : length;
                byte[] line = Arrays.copyOfRange(stream, start, start + content);
                if (!isBlank(line)) {
                    try {
                        out.add(codec.decode(line, line.length));
                    } catch (ProtocolException e) {
                        out.add(ProtocolException.class);
                    }
                }
            }
            start = i + 1;
        }
        out.add("EOF");
        return out;
    }

    private static boolean isBlank(byte[] line) {
        for (byte b : line) {
            if (b != ' ' && b != '\t') {
                return false;
            }
        }
        return true;
    }

    /** Null when a decoded message is sound: it encodes and decodes to itself. */
    private String checkDecoded(Message m) {
        if (m == null) {
            return "decoded to null";
        }
        try {
            byte[] again = codec.encode(m);
            Message back = codec.decode(again, again.length);
            return back.equals(m) ? null : "decoded " + m + " but its encoding decodes to " + back;
        } catch (Exception | Error e) {
            return "decoded " + m + " but it does not survive a round trip: " + FuzzRun.stackTop(e);
        }
    }

    /** Null when a protocol error is bounded, one line, and quotes the offending bytes. */
    static String checkProtocolError(ProtocolException e, int lineLength) {
        String m = e.getMessage();
        String preview = e.offendingPreview();
        if (m == null || m.isBlank()) {
            return "ProtocolException without a message";
        }
        if (m.length() > MAX_MESSAGE_CHARS) {
            return "message of " + m.length() + " chars: " + m.substring(0, 300) + "…";
        }
        if (preview == null || !preview.startsWith("\"") || !m.contains(preview)) {
            return "no preview of the offending bytes: " + m;
        }
        if (lineLength > ProtocolException.PREVIEW_BYTES && !preview.contains(lineLength + " bytes in all")) {
            return "the preview of a " + lineLength + "-byte line does not say it is cut: " + preview;
        }
        if (m.chars().anyMatch(c -> c < 0x20 || c == 0x7f || c == 0x2028 || c == 0x2029)) {
            return "message holds a control character or line break: " + Mutator.show(m.getBytes(), 400);
        }
        return null;
    }

    /** Hands out the bytes in random small chunks, so that lines straddle the reader's buffer in every way. */
    private static final class ChunkedStream extends InputStream {
        private final ByteArrayInputStream in;
        private final Random random;

        ChunkedStream(byte[] bytes, Random random) {
            this.in = new ByteArrayInputStream(bytes);
            this.random = random;
        }

        @Override
        public int read() {
            return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (len == 0) {
                return 0;
            }
            int n = random.nextInt(3) == 0 ? len : 1 + random.nextInt(Math.min(len, 13));
            return in.read(b, off, n);
        }
    }
}
