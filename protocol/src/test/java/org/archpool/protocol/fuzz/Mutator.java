package org.archpool.protocol.fuzz;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Random;

/**
 * Deterministic mutations of JSON text for fuzz tests: byte flips, truncation, insertion of random bytes,
 * control characters, invalid UTF-8, huge numbers and deep nesting, and structure-aware edits (field deletion,
 * duplication, type swaps). One mutator per case, seeded from the run's seed and the case's index, so that any
 * case can be replayed alone; {@link #describe()} lists what was done.
 */
public final class Mutator {

    /** Names of every field of the manifest and the six protocol messages: duplicating or swapping them hits real code. */
    static final String[] FIELDS = {
        "type", "protocolVersion", "workerId", "pid", "host", "javaVersion", "requestId", "job", "target",
        "timeoutMs", "buildParallelism", "logPath", "phase", "outcome", "exitCode", "signal", "phases",
        "artifacts", "logTail", "message", "name", "ms", "path", "archs", "problem", "platform", "kind", "id",
        "sourceDir", "buildDir", "generator", "buildType", "defines", "configureArgs", "buildArgs", "targets",
        "env", "argv", "cwd", "version", "defaults", "jobs", "timeout", "buildRoot"};

    static final String[] STRINGS = {
        "", " ", ".", "..", "../..", "/", "a b", "a=b", "=", "\u0000", "a\u0000b", "\n", "\r\n", "\t", "\u001b[31m",
        "\u202e", "\ufeff", "\ud800", "\udc00x", "\ud83d\ude80", "é", "日本", "native", "NATIVE", "all", "90", "90a",
        "sm_90", "gfx942", "gfx90a:xnack-", "cuda", "hip", "rocm", "cmake", "command", "make", "hello", "build",
        "progress", "result", "cancel", "shutdown", "configure", "succeeded", "failed", "timed_out", "cancelled",
        "crashed", "Succeeded", "0", "0s", "-5s", "90s", "1h30m", "500ms", "1e3", "banana", "9999999999999999h",
        "99999999999999999999999999999999999999h1h", "0.0001ms", "1.5", "-1", "CMAKE_CUDA_ARCHITECTURES",
        "CMAKE_HIP_ARCHITECTURES", "PATH", "CUDA_VISIBLE_DEVICES", "{archs}", "{offload-arch-flags}", "\\", "\"",
        "x".repeat(128), "x".repeat(129), "y".repeat(5000)};

    /**
     * Entries that break a rule of the manifest or of a message on their own (a reserved define, a bad id, a bad
     * duration, a wrong kind): byte-level mutation rarely builds them, so they are put into objects whole.
     */
    static final String[][] ENTRIES = {
        {"CMAKE_CUDA_ARCHITECTURES", "\"75\""}, {"CMAKE_HIP_ARCHITECTURES", "\"gfx90a\""}, {"A=B", "\"1\""},
        {"", "\"x\""}, {"PATH", "\"/bin\""}, {"CUDA_VISIBLE_DEVICES", "\"0\""}, {"id", "\"..\""}, {"id", "\".\""},
        {"id", "\"a b\""}, {"id", "\"" + "i".repeat(129) + "\""}, {"id", "\"vector_add\""}, {"id", "\"a\""},
        {"kind", "\"make\""}, {"kind", "\"command\""}, {"kind", "\"cmake\""}, {"timeout", "\"0s\""},
        {"timeout", "-5"}, {"timeout", "\"99999999999999999999h1h\""}, {"timeout", "\"1e3\""}, {"timeout", "0.0001"},
        {"sourceDir", "\".\""}, {"sourceDir", "\"empty\""}, {"sourceDir", "\"/\""}, {"cwd", "\"proj/CMakeLists.txt\""},
        {"argv", "[]"}, {"argv", "[\"\"]"}, {"argv", "[\" \"]"}, {"argv", "[\"a\\u0000b\"]"}, {"argv", "[null]"},
        {"version", "2"}, {"version", "1.0"}, {"version", "\"1\""}, {"buildRoot", "\"..\""},
        {"type", "\"hello\""}, {"type", "\"build\""}, {"type", "\"result\""}, {"type", "\"shutdown\""},
        {"platform", "\"rocm\""}, {"archs", "[\"native\"]"}, {"archs", "[]"}, {"archs", "[\"\"]"},
        {"outcome", "\"crashed\""}, {"phase", "\"link\""}, {"buildParallelism", "0"}, {"timeoutMs", "-1"},
        {"protocolVersion", "2"}, {"pid", "-1"}, {"exitCode", "2147483648"}, {"requestId", "null"}};

    static final String[] NUMBERS = {
        "0", "-0", "1", "-1", "2", "1.0", "1.5", "-1.5", "1e3", "1E-3", "1e999999", "-1e999999", "1e-999999",
        "2147483647", "2147483648", "-2147483649", "9223372036854775807", "9223372036854775808",
        "-9223372036854775809", "123456789012345678901234567890", "0.1e1", "00", "01", "1.", ".5", "+1", "0x10",
        "NaN", "Infinity", "-Infinity", "1" + "0".repeat(999), "1" + "0".repeat(1500)};

    static final String[] TOKENS = {
        "null", "true", "false", "\"\"", "[]", "{}", "[", "]", "{", "}", ",", ":", "\"", "\\", "\\u", "\\uD800",
        "\\u00", "\\x41", "/*", "*/", "//", "#", "'", ",,", "::", "\"a\":", ",]", ",}", "{\"\":\"\"}"};

    static final byte[][] INVALID_UTF8 = {
        {(byte) 0xff}, {(byte) 0xfe}, {(byte) 0xc0, (byte) 0x80}, {(byte) 0xc1, (byte) 0xbf}, {(byte) 0x80},
        {(byte) 0xbf}, {(byte) 0xe2, (byte) 0x82}, {(byte) 0xed, (byte) 0xa0, (byte) 0x80},
        {(byte) 0xf0, (byte) 0x9f, (byte) 0x98}, {(byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
        {(byte) 0xf8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80}, {(byte) 0xe0, (byte) 0x80, (byte) 0xaf}};

    static final int[] CONTROLS = {0x00, 0x01, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1b, 0x1f, 0x7f};

    /** No mutation makes an input longer than this; the reader's own limits are what is tested, not the heap. */
    static final int MAX_BYTES = 8 * 1024 * 1024;

    private static final ObjectMapper MAPPER = JsonMapper.builder().build();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final Random random;
    private final List<String> applied = new ArrayList<>();

    public Mutator(long runSeed, int caseIndex) {
        this.random = new Random(caseSeed(runSeed, caseIndex));
    }

    /** A well-mixed seed for one case (SplitMix64 of the run's seed and the index). */
    public static long caseSeed(long runSeed, int caseIndex) {
        long z = runSeed + 0x9E3779B97F4A7C15L * (caseIndex + 1L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    public Random random() {
        return random;
    }

    /** Applies one to four mutations, chosen at random, to a copy of {@code input}. */
    public byte[] mutate(byte[] input) {
        int rounds = 1 + (random.nextInt(10) < 7 ? random.nextInt(2) : random.nextInt(4));
        byte[] out = input;
        for (int i = 0; i < rounds; i++) {
            out = mutateOnce(out);
        }
        return out;
    }

    /** What was done to the input, in order, for a failure message. */
    public String describe() {
        return String.join(" | ", applied);
    }

    private byte[] mutateOnce(byte[] in) {
        int kind = random.nextInt(22);
        return switch (kind) {
            case 0 -> flipBit(in);
            case 1 -> setByte(in);
            case 2 -> deleteRange(in);
            case 3 -> duplicateRange(in);
            case 4 -> truncate(in);
            case 5 -> insert(in, "random bytes", randomBytes(1 + random.nextInt(16)));
            case 6 -> insert(in, "control char", new byte[] {(byte) CONTROLS[random.nextInt(CONTROLS.length)]});
            case 7 -> insert(in, "invalid UTF-8", INVALID_UTF8[random.nextInt(INVALID_UTF8.length)]);
            case 8 -> insert(in, "random UTF-8", utf8(randomText(1 + random.nextInt(12))));
            case 9 -> insert(in, "token", utf8(TOKENS[random.nextInt(TOKENS.length)]));
            case 10 -> insert(in, "number", utf8(NUMBERS[random.nextInt(NUMBERS.length)]));
            case 11 -> insert(in, "deep nesting", utf8(deepNesting()));
            case 12 -> insert(in, "huge string", utf8("\"" + "z".repeat(1000 + random.nextInt(300_000)) + "\""));
            case 13 -> swapRanges(in);
            case 14 -> replaceString(in);
            case 15 -> replaceNumber(in);
            case 16 -> duplicateKeyAfterBrace(in);
            case 17, 18 -> treeEdit(in);
            case 19, 20, 21 -> putEntry(in);
            default -> throw new IllegalStateException();
        };
    }

    private byte[] flipBit(byte[] in) {
        if (in.length == 0) {
            return in;
        }
        byte[] out = in.clone();
        int at = random.nextInt(out.length);
        int bit = random.nextInt(8);
        out[at] ^= (byte) (1 << bit);
        applied.add("flip bit " + bit + " at " + at);
        return out;
    }

    private byte[] setByte(byte[] in) {
        if (in.length == 0) {
            return in;
        }
        byte[] out = in.clone();
        int at = random.nextInt(out.length);
        out[at] = (byte) random.nextInt(256);
        applied.add("set byte at " + at + " to 0x" + Integer.toHexString(out[at] & 0xff));
        return out;
    }

    private byte[] deleteRange(byte[] in) {
        if (in.length == 0) {
            return in;
        }
        int at = random.nextInt(in.length);
        int n = Math.min(in.length - at, 1 + random.nextInt(random.nextBoolean() ? 4 : 64));
        applied.add("delete " + n + " bytes at " + at);
        return concat(Arrays.copyOfRange(in, 0, at), Arrays.copyOfRange(in, at + n, in.length));
    }

    private byte[] duplicateRange(byte[] in) {
        if (in.length == 0) {
            return in;
        }
        int at = random.nextInt(in.length);
        int n = Math.min(in.length - at, 1 + random.nextInt(64));
        applied.add("duplicate " + n + " bytes at " + at);
        return guard(concat(Arrays.copyOfRange(in, 0, at + n), Arrays.copyOfRange(in, at, in.length)), in);
    }

    private byte[] truncate(byte[] in) {
        if (in.length == 0) {
            return in;
        }
        int at = random.nextInt(in.length);
        applied.add("truncate at " + at);
        return Arrays.copyOf(in, at);
    }

    private byte[] swapRanges(byte[] in) {
        if (in.length < 4) {
            return in;
        }
        int a = random.nextInt(in.length / 2);
        int b = in.length / 2 + random.nextInt(in.length - in.length / 2);
        int n = Math.min(Math.min(b - a, in.length - b), 1 + random.nextInt(16));
        byte[] out = in.clone();
        System.arraycopy(in, b, out, a, n);
        System.arraycopy(in, a, out, b, n);
        applied.add("swap " + n + " bytes at " + a + " and " + b);
        return out;
    }

    private byte[] insert(byte[] in, String what, byte[] piece) {
        int at = random.nextInt(in.length + 1);
        applied.add("insert " + what + " (" + piece.length + " bytes) at " + at);
        return guard(concat(Arrays.copyOfRange(in, 0, at), piece, Arrays.copyOfRange(in, at, in.length)), in);
    }

    /** Replaces the contents of a random string literal (a span between two unescaped quotes). */
    private byte[] replaceString(byte[] in) {
        List<int[]> spans = stringSpans(in);
        if (spans.isEmpty()) {
            return insert(in, "string", utf8(jsonString(STRINGS[random.nextInt(STRINGS.length)])));
        }
        int[] span = spans.get(random.nextInt(spans.size()));
        String replacement = jsonString(random.nextInt(4) == 0 ? randomText(1 + random.nextInt(20))
                : STRINGS[random.nextInt(STRINGS.length)]);
        applied.add("replace string at " + span[0] + " with " + abbreviate(replacement));
        return guard(concat(Arrays.copyOfRange(in, 0, span[0]), utf8(replacement),
                Arrays.copyOfRange(in, span[1], in.length)), in);
    }

    /** Replaces a random run of digits with an interesting number. */
    private byte[] replaceNumber(byte[] in) {
        List<int[]> runs = new ArrayList<>();
        for (int i = 0; i < in.length; i++) {
            if (in[i] >= '0' && in[i] <= '9') {
                int start = i;
                while (i < in.length && in[i] >= '0' && in[i] <= '9') {
                    i++;
                }
                runs.add(new int[] {start, i});
            }
        }
        String number = NUMBERS[random.nextInt(NUMBERS.length)];
        if (runs.isEmpty()) {
            return insert(in, "number", utf8(number));
        }
        int[] run = runs.get(random.nextInt(runs.size()));
        applied.add("replace number at " + run[0] + " with " + abbreviate(number));
        return concat(Arrays.copyOfRange(in, 0, run[0]), utf8(number), Arrays.copyOfRange(in, run[1], in.length));
    }

    /** Inserts {@code "field": value,} right after a random '{': often a duplicate key, sometimes a wrong type. */
    private byte[] duplicateKeyAfterBrace(byte[] in) {
        List<Integer> braces = new ArrayList<>();
        for (int i = 0; i < in.length; i++) {
            if (in[i] == '{') {
                braces.add(i + 1);
            }
        }
        String field = FIELDS[random.nextInt(FIELDS.length)];
        String text = "\"" + field + "\":" + randomValueText() + ",";
        if (braces.isEmpty()) {
            return insert(in, "field", utf8(text));
        }
        int at = braces.get(random.nextInt(braces.size()));
        applied.add("insert field " + abbreviate(text) + " at " + at);
        return concat(Arrays.copyOfRange(in, 0, at), utf8(text), Arrays.copyOfRange(in, at, in.length));
    }

    /** Parses the input (when it still parses), edits one node of the tree, and writes it back. */
    private byte[] treeEdit(byte[] in) {
        JsonNode root;
        try {
            root = MAPPER.readTree(in);
        } catch (Exception | StackOverflowError e) {
            return flipBit(in);
        }
        if (root == null || !root.isContainerNode()) {
            return flipBit(in);
        }
        List<JsonNode> containers = new ArrayList<>();
        collect(root, containers, 0);
        JsonNode target = containers.get(random.nextInt(containers.size()));
        String what;
        if (target instanceof ObjectNode object) {
            List<String> names = new ArrayList<>();
            object.fieldNames().forEachRemaining(names::add);
            int op = random.nextInt(5);
            if (op == 0 && !names.isEmpty()) {
                String name = names.get(random.nextInt(names.size()));
                object.remove(name);
                what = "delete field " + name;
            } else if (op == 1 && !names.isEmpty()) {
                String name = names.get(random.nextInt(names.size()));
                JsonNode value = randomValue(0);
                object.set(name, value);
                what = "set field " + name + " to " + abbreviate(value.toString());
            } else if (op == 2 && !names.isEmpty()) {
                String name = names.get(random.nextInt(names.size()));
                JsonNode old = object.get(name);
                object.set(name, NODES.arrayNode().add(old));
                what = "wrap field " + name + " in an array";
            } else if (op == 3) {
                String name = FIELDS[random.nextInt(FIELDS.length)];
                JsonNode value = randomValue(0);
                object.set(name, value);
                what = "set known field " + name + " to " + abbreviate(value.toString());
            } else {
                String name = random.nextBoolean() ? "unknown" + random.nextInt(100) : randomText(3);
                object.set(name, randomValue(0));
                what = "add field " + abbreviate(name);
            }
        } else {
            ArrayNode array = (ArrayNode) target;
            int op = random.nextInt(4);
            if (op == 0 && !array.isEmpty()) {
                int i = random.nextInt(array.size());
                array.remove(i);
                what = "remove element " + i;
            } else if (op == 1 && !array.isEmpty()) {
                int i = random.nextInt(array.size());
                array.insert(i, array.get(i).deepCopy());
                what = "duplicate element " + i;
            } else if (op == 2 && !array.isEmpty()) {
                int i = random.nextInt(array.size());
                JsonNode value = randomValue(0);
                array.set(i, value);
                what = "set element " + i + " to " + abbreviate(value.toString());
            } else {
                JsonNode value = randomValue(0);
                array.add(value);
                what = "append " + abbreviate(value.toString());
            }
        }
        applied.add("tree: " + what);
        try {
            return guard(MAPPER.writeValueAsBytes(root), in);
        } catch (Exception e) {
            return in;
        }
    }

    /** Puts one of {@link #ENTRIES} into a random object, half the time into a map ({@code defines}, {@code env}). */
    private byte[] putEntry(byte[] in) {
        JsonNode root;
        try {
            root = MAPPER.readTree(in);
        } catch (Exception | StackOverflowError e) {
            return flipBit(in);
        }
        if (root == null || !root.isContainerNode()) {
            return flipBit(in);
        }
        List<JsonNode> containers = new ArrayList<>();
        collect(root, containers, 0);
        List<ObjectNode> objects = new ArrayList<>();
        List<ObjectNode> maps = new ArrayList<>();
        for (JsonNode c : containers) {
            if (c instanceof ObjectNode o) {
                objects.add(o);
                for (String map : new String[] {"defines", "env"}) {
                    if (o.get(map) instanceof ObjectNode m) {
                        maps.add(m);
                    }
                }
            }
        }
        if (objects.isEmpty()) {
            return flipBit(in);
        }
        List<ObjectNode> pool = !maps.isEmpty() && random.nextBoolean() ? maps : objects;
        ObjectNode target = pool.get(random.nextInt(pool.size()));
        String[] entry = ENTRIES[random.nextInt(ENTRIES.length)];
        try {
            target.set(entry[0], MAPPER.readTree(entry[1]));
            applied.add("put " + abbreviate(entry[0] + ": " + entry[1]));
            return guard(MAPPER.writeValueAsBytes(root), in);
        } catch (Exception e) {
            return in;
        }
    }

    private static void collect(JsonNode node, List<JsonNode> out, int depth) {
        if (node.isContainerNode() && depth < 100) {
            out.add(node);
            for (Iterator<JsonNode> it = node.elements(); it.hasNext();) {
                collect(it.next(), out, depth + 1);
            }
        }
    }

    private JsonNode randomValue(int depth) {
        int k = random.nextInt(depth > 3 ? 9 : 12);
        return switch (k) {
            case 0, 1, 2 -> NODES.textNode(STRINGS[random.nextInt(STRINGS.length)]);
            case 3 -> NODES.textNode(randomText(1 + random.nextInt(30)));
            case 4 -> NODES.numberNode(random.nextInt(5) - 2);
            case 5 -> NODES.numberNode(random.nextLong());
            case 6 -> NODES.numberNode(new BigInteger(200, random));
            case 7 -> random.nextBoolean() ? NODES.booleanNode(random.nextBoolean()) : NODES.nullNode();
            case 8 -> NODES.numberNode(random.nextDouble() * (random.nextBoolean() ? 1e6 : -1));
            case 9 -> {
                ArrayNode a = NODES.arrayNode();
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    a.add(randomValue(depth + 1));
                }
                yield a;
            }
            default -> {
                ObjectNode o = NODES.objectNode();
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    o.set(FIELDS[random.nextInt(FIELDS.length)], randomValue(depth + 1));
                }
                yield o;
            }
        };
    }

    private String randomValueText() {
        return switch (random.nextInt(6)) {
            case 0 -> NUMBERS[random.nextInt(NUMBERS.length)];
            case 1 -> TOKENS[random.nextInt(TOKENS.length)];
            case 2 -> deepNesting();
            default -> randomValue(0).toString();
        };
    }

    private String deepNesting() {
        int depth = new int[] {50, 999, 1000, 1001, 5000, 10_000}[random.nextInt(6)];
        boolean object = random.nextBoolean();
        boolean closed = random.nextBoolean();
        String open = object ? "{\"a\":" : "[";
        String close = object ? "}" : "]";
        return open.repeat(depth) + (closed ? "1" + close.repeat(depth) : "");
    }

    private String randomText(int codePoints) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < codePoints; i++) {
            int cp = switch (random.nextInt(6)) {
                case 0 -> 0x20 + random.nextInt(0x5f);
                case 1 -> random.nextInt(0x20);
                case 2 -> 0x80 + random.nextInt(0x780);
                case 3 -> 0x800 + random.nextInt(0xd000);
                case 4 -> 0x10000 + random.nextInt(0x100000);
                default -> new int[] {0x2028, 0x2029, 0x202e, 0xfeff, 0xfffd, 0xffff, '"', '\\', '\n'}[random.nextInt(9)];
            };
            if (cp >= 0xd800 && cp <= 0xdfff) {
                cp = 'x';
            }
            s.appendCodePoint(cp);
        }
        return s.toString();
    }

    private byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private static List<int[]> stringSpans(byte[] in) {
        List<int[]> spans = new ArrayList<>();
        int start = -1;
        for (int i = 0; i < in.length; i++) {
            if (in[i] == '\\') {
                i++;
            } else if (in[i] == '"') {
                if (start < 0) {
                    start = i;
                } else {
                    spans.add(new int[] {start, i + 1});
                    start = -1;
                }
            }
        }
        return spans;
    }

    /** {@code s} as a JSON string literal, escaping only what JSON requires (lone surrogates stay as escapes). */
    static String jsonString(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || Character.isSurrogate(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    private static byte[] guard(byte[] mutated, byte[] original) {
        return mutated.length > MAX_BYTES ? original : mutated;
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    static String abbreviate(String s) {
        String flat = s.replace("\n", "\\n").replace("\r", "\\r");
        return flat.length() <= 60 ? flat : flat.substring(0, 60) + "…(" + s.length() + " chars)";
    }

    /** The input as printable text for a failure message: escaped, and cut after {@code max} bytes. */
    public static String show(byte[] input, int max) {
        StringBuilder out = new StringBuilder();
        int n = Math.min(input.length, max);
        for (int i = 0; i < n; i++) {
            int b = input[i] & 0xff;
            if (b >= 0x20 && b < 0x7f && b != '\\') {
                out.append((char) b);
            } else {
                out.append(String.format("\\x%02x", b));
            }
        }
        if (input.length > n) {
            out.append("…(").append(input.length).append(" bytes)");
        }
        return out.toString();
    }
}
