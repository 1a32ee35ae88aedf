package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Text passes through: argv, environment values and paths that are valid UTF-8 reach jobs byte for byte whatever
 * the locale, jobs get the user's locale back, bytes that are not UTF-8 are refused (exit 2), and a JVM that
 * cannot start ends the build with exit code 70 and its reason. Scripts are ASCII, and make their non-ASCII bytes
 * with printf, so that nothing depends on the locale of this test's own JVM.
 */
class TextIT {

    /** Zoë мир 😀 and a real U+FFFD, as UTF-8 in printf's octal escapes. */
    private static final String TEXT_PRINTF = "Zo\\303\\253 \\320\\274\\320\\270\\321\\200 \\360\\237\\230\\200 \\357\\277\\275";
    private static final byte[] TEXT = "Zoë мир 😀 \ufffd".getBytes(StandardCharsets.UTF_8);
    /** größe, the folder of the manifest. */
    private static final String FOLDER_PRINTF = "gr\\303\\266\\303\\237e";

    private record Run(int exitCode, String stdout, String stderr) {
    }

    /** Runs {@code script} with sh in {@code dir}, {@code $ARCHPOOL} naming the distribution's launcher. */
    private static Run sh(Path dir, Map<String, String> env, String script) throws Exception {
        Files.writeString(dir.resolve("run.sh"), script, StandardCharsets.US_ASCII);
        ProcessBuilder pb = Archpool.process(List.of("sh", "run.sh")).directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile());
        Map<String, String> environment = pb.environment();
        environment.keySet().removeIf(n -> n.equals("LANG") || n.startsWith("LC_"));
        environment.put("ARCHPOOL", Archpool.home().resolve("bin/archpool").toString());
        environment.putAll(env);
        Process p = pb.start();
        assertThat(p.waitFor(3, TimeUnit.MINUTES)).isTrue();
        return new Run(p.exitValue(), Files.readString(dir.resolve("out.txt"), StandardCharsets.UTF_8),
                Files.readString(dir.resolve("err.txt"), StandardCharsets.UTF_8));
    }

    /** The job: writes its argument, an inherited and a manifest variable, and its locale to files. */
    private static String manifest() {
        return "{\"version\":1,\"jobs\":[{\"id\":\"text\",\"kind\":\"command\",\"argv\":[\"sh\",\"-c\","
                + "\"printf %s \\\"$1\\\" > argv.out; printf %s \\\"$VALUE\\\" > env.out;"
                + " printf %s \\\"$FROM_MANIFEST\\\" > manifest-env.out;"
                + " printf %s \\\"${LC_ALL-unset}|${LANG-unset}|${LC_CTYPE-unset}\\\" > locale.out;"
                + " env | grep -c ^ARCHPOOL_USER > records.out || true\","
                + "\"sh\",\"Zo\\u00eb \\u043c\\u0438\\u0440 \\ud83d\\ude00 \\ufffd\"],"
                + "\"env\":{\"FROM_MANIFEST\":\"Zo\\u00eb \\u043c\\u0438\\u0440 \\ud83d\\ude00 \\ufffd\"}}]}";
    }

    @ParameterizedTest(name = "{0}, --mode {1}")
    @CsvSource({
            "LC_ALL=C, process", "LC_ALL=C, thread",
            "LANG=en_US.ISO-8859-1, process", "LANG=en_US.ISO-8859-1, thread",
            "LC_CTYPE=POSIX, process",
            "no locale variable, process", "no locale variable, thread"})
    void utf8TextReachesJobsUnchangedAndJobsGetTheUsersLocale(String locale, String mode, @TempDir Path dir)
            throws Exception {
        Files.writeString(dir.resolve("archpool.json"), manifest(), StandardCharsets.US_ASCII);
        Map<String, String> env = new HashMap<>();
        if (locale.contains("=")) {
            env.put(locale.substring(0, locale.indexOf('=')), locale.substring(locale.indexOf('=') + 1));
        }
        Run run = sh(dir, env, "d=\"$(printf '" + FOLDER_PRINTF + "')\"; mkdir \"$d\"; cp archpool.json \"$d/\"\n"
                + "VALUE=\"$(printf '" + TEXT_PRINTF + "')\" \"$ARCHPOOL\" build \"$d/archpool.json\" --arch 90 -j1"
                + " --mode " + mode + " --no-toolchain-check --report r.json; s=$?\n"
                + "cp \"$d\"/*.out . ; exit $s\n");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(Files.readAllBytes(dir.resolve("argv.out"))).isEqualTo(TEXT);
        assertThat(Files.readAllBytes(dir.resolve("env.out"))).isEqualTo(TEXT);
        assertThat(Files.readAllBytes(dir.resolve("manifest-env.out"))).isEqualTo(TEXT);
        String expected = switch (locale) {
            case "LC_ALL=C" -> "C|unset|unset";
            case "LANG=en_US.ISO-8859-1" -> "unset|en_US.ISO-8859-1|unset";
            case "LC_CTYPE=POSIX" -> "unset|unset|POSIX";
            default -> "unset|unset|unset";
        };
        assertThat(Files.readString(dir.resolve("locale.out"))).isEqualTo(expected);
        assertThat(Files.readString(dir.resolve("records.out")).strip()).isEqualTo("0");
        JsonNode report = Archpool.json(dir.resolve("r.json"));
        assertThat(report.path("manifest").asText()).endsWith("/größe/archpool.json");
    }

    @Test
    void anArgumentThatIsNotUtf8IsRefused(@TempDir Path dir) throws Exception {
        Run run = sh(dir, Map.of("LC_ALL", "C"), "\"$ARCHPOOL\" build \"$(printf 'caf\\351.json')\" --arch 90\n");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.stderr()).startsWith("archpool: argument 2 of archpool, \"caf\\xe9.json\", is not valid UTF-8")
                .doesNotContain("Exception").doesNotContain("\tat ");
    }

    @Test
    void anEnvironmentVariableThatIsNotUtf8IsRefused(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("archpool.json"), manifest(), StandardCharsets.US_ASCII);
        Run run = sh(dir, Map.of(), "LANG=\"$(printf 'de_DE.\\377')\" NOT_TEXT=\"$(printf 'a\\351')\""
                + " \"$ARCHPOOL\" build archpool.json --arch 90\n");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.stderr()).startsWith("archpool: the environment variable ")
                .containsAnyOf("\"LANG\"", "\"NOT_TEXT\"").contains("is not valid UTF-8")
                .doesNotContain("Exception");
        assertThat(dir.resolve(".archpool")).doesNotExist();
    }

    @Test
    void aFolderWhosePathIsNotUtf8IsRefused(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("archpool.json"), manifest(), StandardCharsets.US_ASCII);
        Run run = sh(dir, Map.of(), "d=\"$(printf 'caf\\351')\"; mkdir \"$d\"; cd \"$d\";"
                + " \"$ARCHPOOL\" build ../archpool.json --arch 90\n");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.stderr()).startsWith("archpool: the path of the current folder").contains("not valid UTF-8");
    }

    @Test
    void aManifestThatIsNotUtf8IsRefused(@TempDir Path dir) throws Exception {
        byte[] json = "{\"version\":1,\"jobs\":[{\"id\":\"a\",\"kind\":\"command\",\"argv\":[\"echo\",\"caf?\"]}]}"
                .getBytes(StandardCharsets.US_ASCII);
        json[new String(json, StandardCharsets.US_ASCII).indexOf('?')] = (byte) 0xe9;
        Files.write(dir.resolve("archpool.json"), json);
        Run run = sh(dir, Map.of(), "\"$ARCHPOOL\" build archpool.json --arch 90\n");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.stderr()).contains("archpool.json").containsIgnoringCase("UTF-8").doesNotContain("\tat ");
    }

    @ParameterizedTest
    @ValueSource(strings = {"-XX:+NoSuchOptionForArchpool|Unrecognized VM option 'NoSuchOptionForArchpool'",
            "-Xmx1k|Initial heap size set to a larger value than the maximum heap size"})
    void aWorkerJvmThatCannotStartEndsTheBuildWithExit70AndItsReason(String option, @TempDir Path dir)
            throws Exception {
        String[] parts = option.split("\\|");
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[{\"id\":\"a\",\"kind\":\"command\",\"argv\":[\"true\"]},"
                + "{\"id\":\"b\",\"kind\":\"command\",\"argv\":[\"true\"]},"
                + "{\"id\":\"c\",\"kind\":\"command\",\"argv\":[\"true\"]}]}");
        Archpool.Run run = new Archpool().in(dir).env("ARCHPOOL_WORKER_JAVA_OPTS", parts[0])
                .run("build", "archpool.json", "--arch", "90", "-j2", "-k", "--no-toolchain-check", "--report", "r.json");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(70);
        assertThat(run.stderr()).contains("archpool: no worker could start").contains(parts[1])
                .doesNotContain("Exception").doesNotContain("\tat ");
        JsonNode report = Archpool.json(dir.resolve("r.json"));
        assertThat(report.path("exitCode").asInt()).isEqualTo(70);
        assertThat(report.path("jobs").findValuesAsText("outcome")).containsOnly("crashed");
        assertThat(report.path("jobs").findValuesAsText("message")).allMatch(m -> m.contains(parts[1]));
        // two tries per slot, then the pool stops launching doomed JVMs (one more when a start was already under way)
        assertThat(report.path("pool").path("workerEvents").findValuesAsText("event"))
                .containsOnly("failed_to_start").hasSizeBetween(4, 5);
    }

    @Test
    void aCoordinatorJvmThatCannotStartExits70AndSaysWhy(@TempDir Path dir) throws Exception {
        Archpool.Run run = new Archpool().in(dir).env("ARCHPOOL_JAVA_OPTS", "-XX:+NoSuchOptionForArchpool")
                .run("build", "archpool.json");
        assertThat(run.exitCode()).isEqualTo(70);
        assertThat(run.stderr()).startsWith("archpool: the Java runtime ")
                .contains("cannot start with ARCHPOOL_JAVA_OPTS=\"-XX:+NoSuchOptionForArchpool\"")
                .contains("Unrecognized VM option 'NoSuchOptionForArchpool'");
    }
}
