package org.archpool.orchestrator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Flag mistakes on {@code archpool build} and {@code serve} (those {@link MainTest} does not cover): exit code 2, one short paragraph
 * that names the flag and the fix, no stack trace, and no job started. {@code MANIFEST} in a case stands for a
 * valid manifest whose one job would create {@code canary-ran}.
 */
class BadFlagsTest {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private Path manifest;

    @BeforeEach
    void manifest() throws IOException {
        manifest = dir.resolve("archpool.json");
        Files.writeString(manifest, "{\"version\": 1, \"jobs\": [{\"id\": \"canary\", \"kind\": \"command\","
                + " \"argv\": [\"touch\", \"canary-ran\"]}]}");
        Files.createDirectories(dir.resolve("empty-bin"));
    }

    private static Arguments flags(String args, String... fragments) {
        return Arguments.of(args, List.of(fragments));
    }

    static Stream<Arguments> mistakes() {
        return Stream.of(
                flags("build MANIFEST -j -3", "-j/--jobs must be at least 1 (got -3)", "-j 1"),
                flags("build MANIFEST --jobs=0", "-j/--jobs must be at least 1 (got 0)"),
                flags("build MANIFEST -j abc", "--jobs", "'abc' is not an int"),
                flags("build MANIFEST -j", "--jobs"),
                flags("build MANIFEST --timeout -5s", "--timeout", "\"-5s\" is not a positive duration", "90s"),
                flags("build MANIFEST --timeout banana", "--timeout", "\"banana\" is not a duration", "1h30m"),
                flags("build MANIFEST --timeout 0", "--timeout", "\"0\" is not a positive duration"),
                // found by the fuzzer: this overflowed a long inside the converter
                flags("build MANIFEST --timeout 99999999999999999999h", "--timeout", "is longer than"),
                flags("build MANIFEST --probe-timeout 0s", "--probe-timeout", "not a positive duration"),
                flags("build MANIFEST --max-log-size 12Q", "--max-log-size 12Q is not valid: it is not a size",
                        "64M", "unlimited"),
                flags("build MANIFEST --max-log-size -1M", "--max-log-size -1M is not valid"),
                flags("build MANIFEST --max-log-size 100", "--max-log-size 100 is not valid", "at least 4K"),
                flags("build MANIFEST --max-log-size 99999999999T", "--max-log-size 99999999999T", "too large"),
                flags("build MANIFEST --retries -1", "--retries must be 0 or more (got -1)"),
                flags("build MANIFEST --retries many", "--retries", "'many' is not an int"),
                flags("build MANIFEST --mode fork", "--mode", "fork"),
                flags("build MANIFEST --platform rocm", "--platform", "rocm"),
                flags("build MANIFEST --arhc 90", "--arhc", "--arch"),
                flags("build MANIFEST --keep-goin", "--keep-goin", "--keep-going"),
                flags("build MANIFEST --arch", "--arch"),
                flags("build MANIFEST --target cuda:80 --target cuda:90", "--target is given twice for cuda",
                        "--target cuda:80,90"),
                flags("build MANIFEST --target rocm:gfx942", "--target rocm:gfx942 is not PLATFORM:ARCHS",
                        "'rocm' is not a platform", "--target hip:gfx90a,gfx942"),
                flags("build MANIFEST --target cuda", "--target cuda is not PLATFORM:ARCHS", "lists no architecture"),
                flags("build MANIFEST --target cuda: ", "lists no architecture"),
                flags("build MANIFEST --target cuda:90 --arch 80", "--arch cannot be given with it", "drop --arch"),
                flags("build MANIFEST --target cuda:90 --platform hip", "--platform cannot be given with it"),
                flags("build MANIFEST --platform all --arch 90", "--platform all", "--target cuda:ARCHS"),
                flags("serve --stdio --target cuda:90 --target cuda:80", "--target is given twice for cuda"),
                flags("build --arch 90", "MANIFEST"),
                flags("build MANIFEST MANIFEST --arch 90", "Unmatched argument"),
                flags("biuld MANIFEST", "biuld", "build"),
                flags("serve --arch 90", "exactly one of --stdio", "--socket PATH"),
                flags("serve --stdio --socket SOCKET --arch 90", "exactly one of --stdio"),
                flags("serve --stdio --stop", "--stop stops the serve on a socket", "--socket PATH"),
                flags("serve --socket SOCKET --stop", "no archpool serve answers on --socket", "nothing to stop"),
                flags("serve --stdio -k --arch 90", "-k/--keep-going does not apply to serve"),
                flags("serve --stdio MANIFEST", "Unmatched argument"),
                flags("serve --stdio -j 0 --arch 90", "-j/--jobs must be at least 1"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mistakes")
    void isRefusedWithOneClearParagraphAndNothingRuns(String args, List<String> fragments) {
        String[] argv = Stream.of(args.split(" "))
                .map(a -> a.equals("MANIFEST") ? manifest.toString()
                        : a.equals("SOCKET") ? dir.resolve("nobody.sock").toString() : a)
                .toArray(String[]::new);
        String[] withThreadMode = args.contains("--mode") ? argv
                : Stream.concat(Stream.of(argv), Stream.of("--mode", "thread")).toArray(String[]::new);
        if (args.endsWith("--arch") || args.endsWith("-j")) {
            withThreadMode = argv; // the flag must stay last: it is missing its value
        }
        int code = Main.run(withThreadMode, Main.context(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of("PATH", dir.resolve("empty-bin").toString())));
        String err = this.err.toString(StandardCharsets.UTF_8);

        assertThat(code).as(err).isEqualTo(ExitCodes.USAGE);
        assertThat(err).startsWith("archpool: ").contains(fragments)
                .doesNotContain("\tat ", "Exception", "internal error").hasSizeLessThan(2048);
        assertThat(err.strip().lines()).as("one paragraph: " + err).hasSizeBetween(1, 4).noneMatch(String::isBlank);
        assertThat(out.toString(StandardCharsets.UTF_8)).as("nothing on stdout").isEmpty();
        assertThat(dir.resolve("canary-ran")).as("a job ran").doesNotExist();
        assertThat(dir.resolve(".archpool")).as("logs or a report were written").doesNotExist();
    }
}
