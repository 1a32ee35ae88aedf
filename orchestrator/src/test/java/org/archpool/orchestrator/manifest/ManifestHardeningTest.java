package org.archpool.orchestrator.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regressions for the bugs the fuzzers found in the manifest reader and {@link Durations}: each input once escaped
 * as a runtime exception, produced an unbounded or multi-line message, or was accepted when it must not be.
 */
class ManifestHardeningTest {

    @TempDir
    Path dir;

    private final ManifestReader reader = new ManifestReader();

    private String refusal(String json) throws Exception {
        return refusal(json.getBytes(StandardCharsets.UTF_8));
    }

    private String refusal(byte[] bytes) throws Exception {
        Path file = dir.resolve("m.json");
        Files.write(file, bytes);
        try {
            reader.read(file);
        } catch (ManifestException e) {
            assertThat(ManifestFuzzTest.checkRefusal(e)).as(e.getMessage()).isNull();
            return e.getMessage();
        }
        throw new AssertionError("accepted: " + new String(bytes, StandardCharsets.UTF_8));
    }

    private static String job(String fields) {
        return "{\"version\": 1, \"jobs\": [{\"id\": \"a\", \"kind\": \"command\", \"argv\": [\"true\"]" + fields + "}]}";
    }

    @Test
    void aDurationTooLongForALongIsRefusedNotOverflowed() throws Exception {
        // was: ArithmeticException: long overflow
        assertThat(refusal(job(", \"timeout\": \"99999999999999999999h1h\""))).contains("longer than");
        assertThat(refusal(job(", \"timeout\": \"1" + "0".repeat(400) + "\""))).contains("longer than");
        assertThatThrownBy(() -> Durations.parse("9".repeat(400) + "ms")).isInstanceOf(IllegalArgumentException.class);
        assertThat(Durations.parse("8760h")).isEqualTo(Durations.MAX);
        assertThatThrownBy(() -> Durations.parse("8760h1ms")).hasMessageContaining("longer than");
    }

    @Test
    void zeroAndNegativeDurationsSayPositive() {
        for (String bad : new String[] {"0", "0s", "-5s", "-5", "0.0001"}) {
            assertThatThrownBy(() -> Durations.parse(bad)).as(bad).hasMessageContaining("is not a positive duration")
                    .hasMessageContaining("90s");
        }
    }

    @Test
    void messagesQuoteHugeValuesShortAndEscapeControlCharacters() throws Exception {
        String id = refusal("{\"version\": 1, \"jobs\": [{\"id\": \"" + "x".repeat(100_000) + "\", \"kind\": \"cmake\"}]}");
        assertThat(id).contains("(100000 characters in all)").hasSizeLessThan(500);
        String kind = refusal("{\"version\": 1, \"jobs\": [{\"id\": \"a\", \"kind\": \"\\u001b[2J" + "k".repeat(50_000) + "\"}]}");
        assertThat(kind).contains("\"\\u001b[2Jkkk").doesNotContain("\u001b").hasSizeLessThan(500);
        String value = refusal("{\"version\": 1, \"jobs\": [{\"id\": [" + "1,".repeat(50_000) + "1]}]}");
        assertThat(value).contains("\"id\" must be a string, not [1,1,").hasSizeLessThan(500);
        String timeout = refusal(job(", \"timeout\": \"" + "x".repeat(10_000) + "\""));
        assertThat(timeout).hasSizeLessThan(500);
    }

    @Test
    void jsonErrorsHaveALocationAndNoJacksonInternals() throws Exception {
        assertThat(refusal("{\"version\": 1,\n \"jobs\": [{\"id\": \"a\""))
                .contains("at line 2, column").contains("start marker at line 2, column 11").doesNotContain("REDACTED");
        assertThat(refusal("[".repeat(5000))).contains("at line 1, column").contains("nesting depth")
                .doesNotContain("StreamReadConstraints");
    }

    @Test
    void whatFollowsTheTopLevelObjectIsRefused() throws Exception {
        // was: silently ignored, so two manifests pasted into one file ran the first one
        assertThat(refusal(job("") + "\n{\"version\": 1, \"jobs\": []}")).contains("goes on after its top-level value, at line 2, column 1");
        assertThat(refusal(job("") + "}")).contains("line 1");
        Path ok = dir.resolve("ok.json");
        Files.writeString(ok, job("") + " \n\t\n");
        assertThat(reader.read(ok).jobs()).hasSize(1);
    }

    @Test
    void anEmptyFileSaysSo() throws Exception {
        assertThat(refusal("")).contains("is empty");
        assertThat(refusal(" \n ")).contains("is empty");
    }

    @Test
    void aFileOverTheLimitIsNotRead() throws Exception {
        byte[] big = new byte[ManifestReader.MAX_BYTES + 1];
        java.util.Arrays.fill(big, (byte) ' ');
        assertThat(refusal(big)).contains("is larger than 16 MiB");
    }

    @Test
    void textNoProcessCanTakeIsRefused() throws Exception {
        // was: accepted, then the job failed when the worker started it
        assertThat(refusal(job("").replace("[\"true\"]", "[\"tr\\u0000ue\"]"))).contains("\"argv\"[0] holds a NUL");
        assertThat(refusal(job(", \"env\": {\"A\\u0000\": \"1\"}"))).contains("\"env\" holds a NUL");
        assertThat(refusal(job(", \"cwd\": \"a\\u0000b\""))).contains("\"cwd\" holds a NUL");
        assertThat(refusal(job(", \"env\": {\"A\": \"\\udc00\"}"))).contains("unpaired surrogate (\\udc00)");
        assertThat(refusal(job("").replace("[\"true\"]", "[\" \"]"))).contains("\"argv\"[0] is blank");
    }

    @Test
    void anIdOfDotsCannotNameABuildFolder() throws Exception {
        // was: accepted; the build folder build/.. is the manifest's own folder
        Files.createDirectories(dir.resolve("proj"));
        Files.writeString(dir.resolve("proj/CMakeLists.txt"), "project(p)\n");
        assertThat(refusal("{\"version\": 1, \"jobs\": [{\"id\": \"..\", \"kind\": \"cmake\", \"sourceDir\": \"proj\"}]}"))
                .contains("must not be '.' or '..'");
        assertThat(refusal("{\"version\": 1, \"jobs\": [{\"id\": \".\", \"kind\": \"command\", \"argv\": [\"true\"]}]}"))
                .contains("must not be '.' or '..'");
        Path ok = dir.resolve("ok.json");
        Files.writeString(ok, "{\"version\": 1, \"jobs\": [{\"id\": \"...\", \"kind\": \"command\", \"argv\": [\"true\"]}]}");
        assertThat(reader.read(ok).jobs()).hasSize(1);
    }
}
