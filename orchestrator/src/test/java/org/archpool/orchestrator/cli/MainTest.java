package org.archpool.orchestrator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every mistake a user can make on the command line: one clear paragraph, an exit code, no stack trace. Runs the
 * CLI in this JVM: a build starts worker JVMs while it resolves, and resolution runs the probe tools.
 */
@Tag("process")
class MainTest {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private Path manifest;

    @BeforeEach
    void manifest() throws Exception {
        manifest = dir.resolve("archpool.json");
        Files.writeString(manifest, "{\"version\":1,\"jobs\":[{\"id\":\"a\",\"kind\":\"command\",\"argv\":[\"true\"]}]}");
    }

    private int run(Map<String, String> env, String... args) {
        return Main.run(args, Main.context(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), env));
    }

    private int run(String... args) {
        return run(Map.of("PATH", dir.resolve("empty-bin").toString()), args);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private void assertNoStackTrace() {
        assertThat(err()).doesNotContain("\tat ").doesNotContain("Exception");
    }

    @Test
    void badUsageExitsTwo() {
        assertThat(run("build", manifest.toString(), "--no-such-flag")).isEqualTo(2);
        assertThat(err()).contains("--no-such-flag").contains("--help");
        assertNoStackTrace();
    }

    @Test
    void zeroJobsIsRefused() {
        assertThat(run("build", manifest.toString(), "-j", "0", "--arch", "90")).isEqualTo(2);
        assertThat(err()).contains("-j/--jobs must be at least 1");
        assertNoStackTrace();
    }

    @Test
    void aBadTimeoutIsRefused() {
        assertThat(run("build", manifest.toString(), "--timeout", "0s", "--arch", "90")).isEqualTo(2);
        assertThat(err()).contains("--timeout").contains("positive");
        assertNoStackTrace();
    }

    @Test
    void aMissingManifestIsNamed() {
        assertThat(run("build", dir.resolve("nope.json").toString(), "--arch", "90")).isEqualTo(2);
        assertThat(err()).contains("nope.json does not exist");
        assertNoStackTrace();
    }

    @Test
    void nativeWithoutADetectableGpuIsRefused() {
        assertThat(run("build", manifest.toString(), "--platform", "cuda", "--arch", "native")).isEqualTo(3);
        assertThat(err()).contains("--arch native asks for the GPUs of this machine");
        assertNoStackTrace();
    }

    @Test
    void anUnresolvableArchitectureExitsThreeAndNamesTheProbes() {
        assertThat(run("build", manifest.toString())).isEqualTo(3);
        assertThat(err()).contains("rocminfo: missing").contains("nvidia-smi").contains("missing").contains("--arch");
        assertNoStackTrace();
    }

    @Test
    void archPrintsTheResolutionAndWhy() {
        assertThat(run(Map.of("CUDAARCHS", "80;90"), "arch")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("platform: cuda").contains("archs:    80;90")
                .contains("CUDAARCHS=80;90");
        out.reset();
        assertThat(run(Map.of(), "arch", "--arch", "gfx942", "--json")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("\"platform\" : \"hip\"").contains("\"gfx942\"");
    }

    @Test
    void outputPathsOfTheWrongKindAreRefusedBeforeAnythingRuns() throws Exception {
        assertThat(run("build", manifest.toString(), "--arch", "90", "--report", dir.toString())).isEqualTo(2);
        assertThat(err()).contains("--report").contains("is a folder");
        err.reset();
        assertThat(run("build", manifest.toString(), "--arch", "90", "--log-dir", manifest.toString())).isEqualTo(2);
        assertThat(err()).contains("--log-dir").contains("is a file");
        assertNoStackTrace();
    }

    @Test
    void aBadFallbackIsReportedEvenWhenNotNeeded() {
        assertThat(run("build", manifest.toString(), "--arch", "90", "--fallback-arch", "bogus")).isEqualTo(2);
        assertThat(err()).contains("bogus");
        assertNoStackTrace();
    }

    @Test
    void noCommandIsBadUsage() {
        assertThat(run()).isEqualTo(2);
        assertThat(err()).contains("archpool build MANIFEST");
    }

    @Test
    void aBuildInThreadModeRunsTheJobAndWritesTheReport() throws Exception {
        Path report = dir.resolve("r.json");
        assertThat(run(Map.of("PATH", System.getenv("PATH")), "build", manifest.toString(), "--mode", "thread",
                "--arch", "90", "--report", report.toString())).as(err()).isZero();
        assertThat(Files.readString(report)).contains("\"outcome\" : \"succeeded\"");
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("1 of 1 jobs succeeded");
    }

    @Test
    void aDefaultCacheFolderThatCannotBeMadeIsWarnedAboutOnceAndTheBuildRunsWithoutACache() throws Exception {
        Path home = Files.writeString(dir.resolve("home-is-a-file"), ""); // root cannot make a folder under a file
        Path report = dir.resolve("r.json");
        assertThat(run(Map.of("PATH", System.getenv("PATH"), "HOME", home.toString()), "build", manifest.toString(),
                "--mode", "thread", "--arch", "90", "--report", report.toString())).as(err()).isZero();
        String folder = home.resolve(".cache").resolve("archpool").toString();
        assertThat(err().lines().filter(l -> l.contains("cache folder")).toList()).singleElement().asString()
                .contains("warning").contains(folder).contains("--cache DIR").contains("ARCHPOOL_CACHE_DIR")
                .contains("--no-cache");
        assertNoStackTrace();
        String json = Files.readString(report);
        assertThat(json).contains("\"outcome\" : \"succeeded\"").doesNotContain("hitRate")
                .doesNotContain("cacheKey");
        assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("cache:");
    }

    @Test
    void aCacheFolderNamedByFlagOrVariableThatCannotBeMadeStopsTheBuild() throws Exception {
        Path file = Files.writeString(dir.resolve("afile"), "");
        String cache = file.resolve("cache").toString();
        assertThat(run(Map.of("PATH", System.getenv("PATH")), "build", manifest.toString(), "--mode", "thread",
                "--arch", "90", "--cache", cache)).isEqualTo(2);
        assertThat(err()).contains("the cache folder " + cache + " cannot be used").doesNotContain("warning");
        assertNoStackTrace();
        err.reset();
        assertThat(run(Map.of("PATH", System.getenv("PATH"), "ARCHPOOL_CACHE_DIR", cache), "build",
                manifest.toString(), "--mode", "thread", "--arch", "90")).isEqualTo(2);
        assertThat(err()).contains("the cache folder " + cache + " cannot be used").doesNotContain("warning");
    }

    @Test
    void platformAllBuildsForEveryPlatformThatResolvesAndRefusesWhenNoneDoes() throws Exception {
        assertThat(run("build", manifest.toString(), "--platform", "all")).isEqualTo(3);
        assertThat(err()).contains("--platform all found no platform to build for").contains("cuda: ")
                .contains("hip: ").contains("--target cuda:ARCHS");
        assertNoStackTrace();

        err.reset();
        Path report = dir.resolve("r.json");
        assertThat(run(Map.of("PATH", System.getenv("PATH"), "CUDAARCHS", "90"), "build", manifest.toString(),
                "--platform", "all", "--mode", "thread", "--no-toolchain-check", "--report", report.toString()))
                .as(err()).isZero();
        String written = Files.readString(report);
        assertThat(written).contains("\"platform\" : \"cuda\"").doesNotContain("\"platform\" : \"hip\"");
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("target: cuda 90 (env:CUDAARCHS");
    }

    @Test
    void aCommandJobThatLeavesItsPlatformOpenInARunOfTwoTargetsStopsTheRunBeforeAnyJob() {
        assertThat(run(Map.of("PATH", System.getenv("PATH")), "build", manifest.toString(), "--mode", "thread",
                "--target", "cuda:90", "--target", "hip:gfx942", "--no-toolchain-check")).isEqualTo(2);
        assertThat(err()).contains("manifest " + manifest.toAbsolutePath()).contains("\"a\"")
                .contains("\"platforms\": [\"cuda\"]");
        assertNoStackTrace();
    }

    @Test
    void archPrintsEachTargetOfARunOfSeveral() {
        assertThat(run(Map.of("CUDAARCHS", "90", "PATH", dir.resolve("empty-bin").toString()), "arch", "--platform",
                "all")).as(err()).isZero();
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("platform: cuda").contains("archs:    90")
                .contains("warning:  --platform all leaves out hip: ").doesNotContain("platform: hip");
        out.reset();
        assertThat(run("arch", "--target", "cuda:80,90", "--target", "hip:gfx942", "--json")).as(err()).isZero();
        String json = out.toString(StandardCharsets.UTF_8).strip();
        assertThat(json).startsWith("[").endsWith("]").contains("\"detail\" : \"--target cuda:80,90\"")
                .contains("\"platform\" : \"hip\"");
    }

    @Test
    void aFileWhereAPlatformsLogFolderGoesStopsARunOfSeveralTargetsBeforeAnyJob() throws Exception {
        Files.writeString(manifest, "{\"version\":1,\"jobs\":[{\"id\":\"a\",\"kind\":\"command\","
                + "\"platforms\":[\"cuda\"],\"argv\":[\"touch\",\"ran\"]}]}");
        Path logs = Files.createDirectories(dir.resolve("logs"));
        Files.writeString(logs.resolve("hip"), "not a folder");
        assertThat(run(Map.of("PATH", System.getenv("PATH")), "build", manifest.toString(), "--mode", "thread",
                "--target", "cuda:90", "--target", "hip:gfx942", "--no-toolchain-check", "--log-dir",
                logs.toString())).as(err()).isEqualTo(2);
        assertThat(err()).contains("cannot make " + logs.resolve("hip")).contains("choose another --log-dir");
        assertThat(dir.resolve("ran")).doesNotExist();
        assertNoStackTrace();
    }

    @Test
    void aJobThatListsItsArchsInARunOfAllWithoutTheCompilersListIsRefusedBeforeAnyJob() throws Exception {
        Files.writeString(manifest, "{\"version\":1,\"jobs\":[{\"id\":\"a\",\"kind\":\"command\","
                + "\"archs\":[\">=90\"],\"argv\":[\"touch\",\"ran\"]}]}");
        assertThat(run(Map.of("PATH", System.getenv("PATH")), "build", manifest.toString(), "--mode", "thread",
                "--platform", "cuda", "--arch", "all-major", "--no-toolchain-check")).as(err()).isEqualTo(2);
        assertThat(err()).contains("job \"a\" lists the architectures it supports").contains("--no-toolchain-check");
        assertThat(dir.resolve("ran")).doesNotExist();
        assertNoStackTrace();
    }
}
