package org.archpool.orchestrator.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.archpool.orchestrator.output.OutputPaths.Output;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The check of every output path before a build, on real files, links, device nodes and pipes. */
class OutputPathsTest {

    private static final Set<String> IDS = Set.of("a", "archpool", "x.attempt2");

    @TempDir
    Path dir;

    private Path manifest;
    private Path logs;

    @BeforeEach
    void manifest() throws IOException {
        manifest = Files.writeString(dir.resolve("m.json"), "{\"version\": 1}");
        logs = dir.resolve(".archpool/logs");
    }

    /** The defaults beside the manifest, plus the given file outputs. */
    private OutputPaths paths(Output... given) {
        List<Output> files = new ArrayList<>();
        files.add(Output.byDefault("--report", "report", dir.resolve(".archpool/report.json")));
        files.addAll(List.of(given));
        return new OutputPaths(manifest, files, Output.byDefault("--log-dir", "log folder", logs));
    }

    private static Output flag(String flag, Path path) {
        return Output.given(flag, flag.substring(2), path);
    }

    private void check(OutputPaths paths) throws OutputPathException {
        paths.check(IDS, 2);
    }

    private String refusal(OutputPaths paths) {
        Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> check(paths));
        assertThat(t).as("refused").isInstanceOf(OutputPathException.class);
        assertThat(t.getMessage()).doesNotContain("\n").doesNotContain("Exception");
        return t.getMessage();
    }

    @Test
    void freshPathsAndEarlierOutputsAreAccepted() throws Exception {
        assertThatCode(() -> check(paths(flag("--trace", dir.resolve("out/t.json"))))).doesNotThrowAnyException();
        Files.createDirectories(logs);
        Files.writeString(logs.resolve("a.log"), "from an earlier build");
        Files.writeString(dir.resolve("t.json"), "{}");
        assertThatCode(() -> check(paths(flag("--trace", dir.resolve("t.json"))))).doesNotThrowAnyException();
    }

    @Test
    void aFolderIsRefusedWithTheFileToGiveInstead() throws Exception {
        Files.createDirectories(dir.resolve("html"));
        assertThat(refusal(paths(flag("--html", dir.resolve("html")))))
                .contains("--html " + dir.resolve("html") + " is a folder").contains("html/archpool.html");
    }

    @Test
    @Tag("process")
    void aDeviceNodeIsNeverAnOutput() throws Exception {
        Path device = dir.resolve("null");
        Shell.run("mknod", device.toString(), "c", "1", "3");
        assertThat(refusal(paths(flag("--metrics", device))))
                .contains("--metrics " + device + " is a character device, not a regular file")
                .contains("would replace the character device for everyone who uses it");
        assertThat(PathKind.of(device)).isEqualTo(PathKind.CHARACTER_DEVICE);
    }

    @Test
    @Tag("process")
    void aFifoIsNeverAnOutput() throws Exception {
        Path fifo = dir.resolve("fifo");
        Shell.run("mkfifo", fifo.toString());
        assertThat(refusal(paths(flag("--junit", fifo)))).contains("--junit " + fifo + " is a named pipe (FIFO)");
    }

    @Test
    @Tag("process")
    void aLinkToADeviceIsRefusedNamingWhereItLeads() throws Exception {
        Path device = dir.resolve("null");
        Shell.run("mknod", device.toString(), "c", "1", "3");
        Path link = Files.createSymbolicLink(dir.resolve("r.json"), device);
        assertThat(refusal(paths(flag("--report", link)))).contains("--report " + link + " is a symbolic link to "
                + device + " (a character device)");
    }

    @Test
    void anyLinkIsRefused() throws Exception {
        Path file = Files.writeString(dir.resolve("real.json"), "{}");
        Path link = Files.createSymbolicLink(dir.resolve("r.json"), file);
        Path dangling = Files.createSymbolicLink(dir.resolve("d.json"), dir.resolve("nowhere"));
        assertThat(refusal(paths(flag("--trace", link)))).contains("is a symbolic link to " + file
                + " (a regular file)").contains("give the path of the file itself");
        assertThat(refusal(paths(flag("--trace", dangling)))).contains("which does not exist");
    }

    @Test
    void theManifestIsNeverAnOutputHoweverItIsSpelled() throws Exception {
        assertThat(refusal(paths(flag("--report", manifest)))).contains("--report " + manifest
                + " is the manifest itself");
        Path dotted = dir.resolve(".").resolve("m.json");
        assertThat(refusal(paths(flag("--trace", dotted)))).contains("is the manifest itself");
        Path viaLinkedFolder = Files.createSymbolicLink(dir.resolve("here"), dir).resolve("m.json");
        assertThat(refusal(paths(flag("--trace", viaLinkedFolder)))).contains("is the manifest itself");
        Path hard = Files.createLink(dir.resolve("hard.json"), manifest);
        assertThat(refusal(paths(flag("--junit", hard)))).contains("is the manifest itself")
                .contains("under another name: a hard link");
        Path link = Files.createSymbolicLink(dir.resolve("link.json"), manifest);
        assertThat(refusal(paths(flag("--html", link)))).contains("is a symbolic link to " + manifest);
    }

    @Test
    void twoOutputsOnOnePathAreRefused() throws Exception {
        Path x = dir.resolve("x");
        assertThat(refusal(new OutputPaths(manifest, List.of(flag("--report", x), flag("--trace", dir.resolve("./x"))),
                Output.byDefault("--log-dir", "log folder", logs))))
                .contains("--report " + x + " and --trace " + dir.resolve("./x") + " are one path");
        assertThat(refusal(paths(flag("--html", logs)))).contains("--html " + logs + " and the default log folder "
                + logs.toAbsolutePath() + " (beside the manifest) are one path");
        assertThat(refusal(new OutputPaths(manifest, List.of(flag("--report", x)),
                Output.given("--log-dir", "log folder", x.resolve("logs")))))
                .contains("--log-dir " + x.resolve("logs") + " is inside --report " + x);
    }

    @Test
    void aFileOutputCannotTakeTheNameOfALog() throws Exception {
        assertThat(refusal(paths(flag("--report", logs.resolve("a.log")))))
                .contains("is where the build writes the log of job 'a'");
        assertThat(refusal(paths(flag("--report", logs.resolve("a@attempt2.log")))))
                .contains("the log of attempt 2 of job 'a'");
        assertThat(refusal(paths(flag("--report", logs.resolve(LogLayout.COORDINATOR_LOG)))))
                .contains("the coordinator's log");
        assertThat(refusal(paths(flag("--report", logs.resolve("workers/w1.stderr.log")))))
                .contains("where the workers' stderr files go");
        assertThatCode(() -> check(paths(flag("--report", logs.resolve("report.json"))))).doesNotThrowAnyException();
    }

    @Test
    void aLinkPlantedWhereTheBuildWritesALogIsRefused() throws Exception {
        Files.createDirectories(logs.resolve("workers"));
        Path victim = Files.writeString(dir.resolve("victim"), "precious");
        Files.createSymbolicLink(logs.resolve("a.log"), victim);
        assertThat(refusal(paths())).contains(logs.resolve("a.log") + " is a symbolic link to " + victim
                + " where the build writes the log of job 'a'").contains("--log-dir");
        Files.delete(logs.resolve("a.log"));
        Files.createSymbolicLink(logs.resolve(LogLayout.COORDINATOR_LOG), victim);
        assertThat(refusal(paths())).contains("the coordinator's log");
        Files.delete(logs.resolve(LogLayout.COORDINATOR_LOG));
        Files.createSymbolicLink(logs.resolve("workers/w1.stderr.log"), victim);
        assertThat(refusal(paths())).contains("a worker's stderr file");
        Files.delete(logs.resolve("workers/w1.stderr.log"));
        Files.createLink(logs.resolve("archpool.log"), victim);
        assertThat(refusal(paths())).contains("has 2 names (hard links)").contains("the log of job 'archpool'");
        Files.delete(logs.resolve("archpool.log"));
        Files.createSymbolicLink(logs.resolve("unrelated.log"), victim);
        assertThatCode(() -> check(paths())).as("a name no log of this build takes").doesNotThrowAnyException();
        assertThat(Files.readString(victim)).isEqualTo("precious");
    }

    @Test
    void aLogFolderThatIsAFileIsRefused() throws Exception {
        assertThat(refusal(new OutputPaths(manifest, List.of(), Output.given("--log-dir", "log folder", manifest))))
                .contains("--log-dir " + manifest + " is a file, not a folder");
    }

    @Test
    void aFileInTheWayOfAFolderIsRefused() throws Exception {
        Path blocker = Files.writeString(dir.resolve("blocker"), "a file");
        assertThat(refusal(paths(flag("--junit", blocker.resolve("junit.xml")))))
                .contains("cannot write --junit " + blocker.resolve("junit.xml") + ": " + blocker
                        + " is in the way: it is a regular file where a folder is needed");
    }

    @Test
    @Tag("process")
    void defaultOutputsNeedAManifestInAFolder() throws Exception {
        Path pipe = dir.resolve("63");
        Shell.run("mkfifo", pipe.toString());
        Output report = Output.byDefault("--report", "report", dir.resolve(".archpool/report.json"));
        Output folder = Output.byDefault("--log-dir", "log folder", logs);
        assertThat(refusal(new OutputPaths(pipe, List.of(report), folder)))
                .contains("the manifest " + pipe + " is a named pipe (FIFO), not a file in a folder")
                .contains("give --report FILE and --log-dir DIR");
        assertThat(refusal(new OutputPaths(pipe, List.of(flag("--report", dir.resolve("r.json"))), folder)))
                .contains("the log folder go beside the manifest").contains("give --log-dir DIR")
                .doesNotContain("--report FILE");
        assertThatCode(() -> new OutputPaths(pipe, List.of(flag("--report", dir.resolve("r.json"))),
                Output.given("--log-dir", "log folder", dir.resolve("l"))).check(IDS, 2)).doesNotThrowAnyException();
    }

    /** Runs a command that must succeed (mknod needs root, as CI has). */
    static final class Shell {
        static void run(String... command) throws IOException, InterruptedException {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as(String.join(" ", command) + " (needs root, as CI runs): " + output).isZero();
        }
    }
}
