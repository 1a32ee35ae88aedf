package org.archpool.orchestrator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.archpool.orchestrator.manifest.Manifest;
import org.archpool.orchestrator.manifest.ManifestException;
import org.archpool.orchestrator.manifest.ManifestReader;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The corpus of bad manifests ({@code src/test/resources/bad-manifests}, one file per mistake): each one is refused
 * by {@link ManifestReader} and by {@code archpool build} before anything runs, with exit code 2 and one line that
 * names the file, the place and the fix, and no stack trace. Most files start with a valid job that would create
 * the file {@code canary-ran}: a build that started any job before finishing validation would leave it behind.
 * To add a case: add the file and its line to {@link #EXPECTED}.
 */
class BadManifestCorpusTest {

    /** Each file of the corpus and what its message must say besides the file's name. */
    static final Map<String, List<String>> EXPECTED = new LinkedHashMap<>();

    private static void expect(String file, String... fragments) {
        EXPECTED.put(file, List.of(fragments));
    }

    static {
        // not JSON: the message has the line and the column
        expect("invalid-json-trailing-comma.json", "is not valid JSON at line 5, column 3", "expected a value",
                "Fix the JSON syntax there");
        expect("invalid-json-missing-comma.json", "is not valid JSON at line 3, column 3", "comma");
        expect("invalid-json-single-quotes.json", "is not valid JSON at line 2, column 3", "double-quote");
        expect("invalid-json-unquoted-name.json", "is not valid JSON at line 2, column 3", "double-quote");
        expect("invalid-json-comment.json", "is not valid JSON at line 1, column 1", "comment");
        expect("raw-newline-in-string.json", "is not valid JSON at line 3, column", "has to be escaped");
        expect("not-utf8.json", "is not valid JSON at line 3, column", "UTF-8", "Save the file as UTF-8");
        expect("truncated.json", "is not valid JSON at line 5, column 38", "end-of-input");
        expect("duplicate-key.json", "is not valid JSON at line 5, column", "Duplicate field 'id'", "remove one");
        expect("binary-garbage.json", "is not valid JSON at line 1, column", "Illegal character");
        expect("trailing-garbage.json", "goes on after its top-level value, at line 7, column 1", "remove what follows");
        expect("deep-nesting.json", "is too large to read at line 1, column", "nesting depth (1001)",
                "check that this is the right file");
        expect("huge-number.json", "is too large to read at line 1, column", "Number value length");
        expect("empty.json", "is empty", "{\"version\": 1, \"jobs\": [...]}");
        expect("whitespace-only.json", "is empty");
        // the top level
        expect("top-level-array.json", "the top level must be a JSON object");
        expect("top-level-string.json", "the top level must be a JSON object");
        expect("missing-version.json", "\"version\" is missing; add \"version\": 1");
        expect("unknown-version.json", "\"version\" is 2 but this archpool reads version 1 only");
        expect("version-as-string.json", "\"version\" is \"1\" but", "write \"version\": 1");
        expect("version-fraction.json", "\"version\" is 1.5 but");
        expect("missing-jobs.json", "\"jobs\" must be an array of job objects");
        expect("jobs-not-array.json", "\"jobs\" must be an array of job objects");
        expect("empty-jobs.json", "\"jobs\" is empty; add at least one job");
        expect("defaults-not-object.json", "\"defaults\" must be an object such as");
        expect("defaults-zero-timeout.json", "defaults: \"timeout\" \"0\" is not a positive duration", "90s");
        expect("reserved-arch-define-in-defaults.json", "job 'vector_add'", "CMAKE_HIP_ARCHITECTURES", "--arch");
        // ids: the index until the id is known
        expect("job-not-object.json", "jobs[1] must be an object with \"id\" and \"kind\"");
        expect("missing-id.json", "jobs[1]: \"id\" is missing");
        expect("id-not-string.json", "jobs[1]: \"id\" must be a string, not 7", "double quotes");
        expect("ill-formed-id.json", "jobs[1] has the id \"vector add\", which is not allowed", "A-Z a-z 0-9 . _ -");
        expect("id-too-long.json", "jobs[1] has the id \"kkkk", "(129 characters in all)", "1 to 128 characters");
        expect("dot-dot-id.json", "jobs[1] has the id \"..\"", "must not be '.' or '..'");
        expect("escape-sequence-in-id.json", "jobs[1] has the id \"\\u001b[31mred\"");
        expect("duplicate-id.json", "jobs[2] repeats the id \"vector_add\"", "rename one");
        // jobs: the id
        expect("missing-kind.json", "job 'vector_add': \"kind\" is missing");
        expect("unknown-kind.json", "job 'vector_add' has the unknown kind \"make\"", "\"cmake\" or \"command\"");
        expect("missing-source-dir.json", "job 'vector_add': sourceDir", "no-such-dir is not a folder", "fix the path");
        expect("source-dir-not-given.json", "job 'vector_add': \"sourceDir\" is missing");
        expect("source-dir-without-cmakelists.json", "job 'vector_add': sourceDir", "empty-src has no CMakeLists.txt");
        expect("missing-cwd.json", "job 'direct': cwd", "nowhere is not a folder");
        expect("argv-empty.json", "job 'direct': \"argv\" is missing or empty", "JSON array of strings");
        expect("argv-blank-program.json", "job 'direct': \"argv\"[0] is blank", "the program to run");
        expect("argv-not-array.json", "job 'direct': \"argv\" must be an array of strings", "not \"nvcc -c k.cu\"");
        expect("argv-not-strings.json", "job 'direct': \"argv\"[1] must be a string, not 90", "\"90\"");
        expect("argv-nul-character.json", "job 'direct': \"argv\"[2] holds a NUL character", "remove it");
        expect("unpaired-surrogate.json", "job 'direct': \"argv\"[2] holds an unpaired surrogate (\\ud800)");
        expect("env-value-object.json", "job 'direct': \"env\".CC must be a string, number or boolean");
        expect("define-name-with-equals.json", "job 'vector_add': \"defines\" has the name \"A=B\"", "NAME");
        expect("reserved-arch-define.json", "job 'vector_add'", "CMAKE_CUDA_ARCHITECTURES", "remove it", "--arch");
        expect("zero-timeout.json", "job 'vector_add': \"timeout\" \"0s\" is not a positive duration", "90s");
        expect("negative-timeout.json", "job 'vector_add': \"timeout\" \"-5s\" is not a positive duration");
        expect("negative-timeout-number.json", "job 'vector_add': \"timeout\" \"-5\" is not a positive duration");
        expect("bad-duration.json", "job 'vector_add': \"timeout\" \"10 minutes\" is not a duration", "1h30m");
        expect("timeout-not-a-duration.json", "job 'vector_add': \"timeout\" must be a duration", "not [90]");
        // found by the fuzzer: the duration overflowed a long and an ArithmeticException escaped
        expect("huge-timeout.json", "job 'vector_add': \"timeout\" \"99999999999999999999h1h\" is longer than");
    }

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private Set<String> before;

    @BeforeEach
    void projectLayout() throws IOException {
        Files.createDirectories(dir.resolve("proj"));
        Files.writeString(dir.resolve("proj/CMakeLists.txt"), "cmake_minimum_required(VERSION 3.18)\nproject(p CXX)\n");
        Files.createDirectories(dir.resolve("empty-src"));
        Files.createDirectories(dir.resolve("empty-bin"));
    }

    static Stream<String> corpus() {
        return EXPECTED.keySet().stream();
    }

    private static Path corpusFolder() throws URISyntaxException {
        return Path.of(BadManifestCorpusTest.class.getResource("/bad-manifests").toURI());
    }

    private Path copy(String name) throws Exception {
        Path file = dir.resolve(name);
        try (InputStream in = BadManifestCorpusTest.class.getResourceAsStream("/bad-manifests/" + name)) {
            assertThat(in).as(name).isNotNull();
            Files.write(file, in.readAllBytes());
        }
        before = tree();
        return file;
    }

    @Test
    void everyFileOfTheCorpusSaysWhatItMustProduce() throws Exception {
        Set<String> files;
        try (Stream<Path> list = Files.list(corpusFolder())) {
            files = list.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
        }
        assertThat(files).as("files without expectations, or expectations without files")
                .isEqualTo(new TreeSet<>(EXPECTED.keySet()));
        assertThat(files).hasSizeGreaterThanOrEqualTo(50);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpus")
    void theReaderRefusesIt(String name) throws Exception {
        Path file = copy(name);
        assertThatThrownBy(() -> new ManifestReader().read(file)).isInstanceOf(ManifestException.class)
                .satisfies(e -> assertClearMessage(e.getMessage(), name));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpus")
    void archpoolBuildRefusesItBeforeAnythingRuns(String name) throws Exception {
        Path file = copy(name);
        int code = build(file.toString(), "--arch", "90", "--mode", "thread");
        assertThat(code).as(err()).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).startsWith("archpool: manifest ");
        assertClearMessage(err().strip(), name);
        assertNothingRan();
    }

    @Test
    void aHugeValueIsQuotedShort() throws Exception {
        Path file = dir.resolve("huge-id.json");
        Files.writeString(file, "{\"version\": 1, \"jobs\": [{\"id\": \"" + "x".repeat(1_000_000)
                + "\", \"kind\": \"command\", \"argv\": [\"true\"]}]}");
        before = tree();
        assertThat(build(file.toString(), "--arch", "90", "--mode", "thread")).isEqualTo(ExitCodes.USAGE);
        assertClearMessage(err().strip(), "huge-id.json", "(1000000 characters in all)");
        assertNothingRan();
    }

    @Test
    void aFileTooLargeForAManifestIsRefusedUnread() throws Exception {
        Path file = dir.resolve("huge.json");
        byte[] spaces = new byte[ManifestReader.MAX_BYTES + 1];
        java.util.Arrays.fill(spaces, (byte) ' ');
        Files.write(file, spaces);
        before = tree();
        assertThat(build(file.toString(), "--arch", "90", "--mode", "thread")).isEqualTo(ExitCodes.USAGE);
        assertClearMessage(err().strip(), "huge.json", "is larger than 16 MiB", "check that this is the right file");
        assertNothingRan();
    }

    @Test
    void aFolderIsNotAManifest() throws Exception {
        before = tree();
        assertThat(build(dir.resolve("proj").toString(), "--arch", "90", "--mode", "thread")).isEqualTo(ExitCodes.USAGE);
        assertClearMessage(err().strip(), "proj", "is a folder; give the path of its JSON file");
        assertNothingRan();
    }

    @Test
    void aByteOrderMarkIsTolerated() throws Exception {
        Path file = dir.resolve("bom.json");
        Files.write(file, ("\ufeff{\"version\": 1, \"jobs\": [{\"id\": \"a\", \"kind\": \"command\", \"argv\": [\"true\"]}]}")
                .getBytes(StandardCharsets.UTF_8));
        Manifest m = new ManifestReader().read(file);
        assertThat(m.jobs()).hasSize(1);
    }

    /** The control: the same manifest without its mistake does run the canary, so the corpus runs would see it. */
    @Test
    @Tag("process")
    void theCanaryRunsWhenTheManifestIsGood() throws Exception {
        Path file = dir.resolve("good.json");
        Files.writeString(file, "{\"version\": 1, \"jobs\": [{\"id\": \"canary\", \"kind\": \"command\","
                + " \"argv\": [\"touch\", \"canary-ran\"]}]}");
        assertThat(build(file.toString(), "--arch", "90", "--mode", "thread", "--no-toolchain-check")).as(err()).isZero();
        assertThat(dir.resolve("canary-ran")).exists();
        assertThat(dir.resolve(".archpool/report.json")).exists();
    }

    private int build(String manifest, String... flags) {
        String[] args = Stream.concat(Stream.of("build", manifest), Stream.of(flags)).toArray(String[]::new);
        return Main.run(args, Main.context(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of("PATH", dir.resolve("empty-bin").toString())));
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** One line that names the file and says each fragment; no stack trace, no internals, nothing unprintable. */
    static void assertClearMessage(String message, String file, String... extra) {
        List<String> fragments = new java.util.ArrayList<>(EXPECTED.getOrDefault(file, List.of()));
        fragments.addAll(List.of(extra));
        fragments.add(file);
        assertThat(message).as("the message for " + file)
                .contains(fragments)
                .doesNotContain("\tat ", "Exception", "com.fasterxml", "REDACTED", "StreamReadConstraints", "null")
                .hasSizeLessThan(2048);
        assertThat(message.lines()).as("one line: " + message).hasSize(1);
        assertThat(message.chars().filter(c -> c < 0x20 || c == 0x7f)).as("control characters").isEmpty();
    }

    private void assertNothingRan() throws IOException {
        assertThat(out.toString(StandardCharsets.UTF_8)).as("nothing on stdout: no target line, no summary").isEmpty();
        assertThat(dir.resolve("canary-ran")).as("a job ran").doesNotExist();
        assertThat(dir.resolve(".archpool")).as("logs or a report were written").doesNotExist();
        assertThat(tree()).as("files created").isEqualTo(before);
    }

    private Set<String> tree() throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            return all.map(p -> dir.relativize(p).toString()).collect(Collectors.toCollection(TreeSet::new));
        }
    }
}
