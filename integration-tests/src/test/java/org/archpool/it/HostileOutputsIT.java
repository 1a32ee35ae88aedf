package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Outputs own only what they create, against a careless or hostile user (as root, as CI runs): device nodes, pipes,
 * folders and links where an output goes, the manifest as an output, two outputs on one path, links planted among
 * the logs, job ids that look like archpool's own files, two builds on one log folder, read-only folders and a
 * manifest read from a pipe. Every refusal is exit 2 and one paragraph without a stack trace, before anything runs,
 * and leaves what was there untouched.
 */
class HostileOutputsIT {

    private static final String MANIFEST = "{\"version\":1,\"jobs\":["
            + "{\"id\":\"a\",\"kind\":\"command\",\"argv\":[\"sh\",\"-c\",\"echo job a\"]},"
            + "{\"id\":\"archpool\",\"kind\":\"command\",\"argv\":[\"sh\",\"-c\",\"echo job archpool\"]},"
            + "{\"id\":\"x.attempt2\",\"kind\":\"command\",\"argv\":[\"sh\",\"-c\",\"echo job x.attempt2\"]}"
            + "]}";

    @TempDir
    Path dir;

    private Archpool.Run build(String... extra) throws Exception {
        Archpool.manifest(dir, MANIFEST);
        return new Archpool().in(dir).run(args("archpool.json", extra));
    }

    private static String[] args(String manifest, String... extra) {
        List<String> args = new ArrayList<>(List.of("build", manifest, "--platform", "cuda", "--arch", "90",
                "--no-toolchain-check", "-j2"));
        args.addAll(List.of(extra));
        return args.toArray(String[]::new);
    }

    /** Exit 2, one paragraph, no stack trace, nothing run; returns the paragraph. */
    private static String refused(Archpool.Run run) {
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
        String err = run.stderr().strip();
        assertThat(err).as(run.toString()).startsWith("archpool: ").doesNotContain("\n").doesNotContain("at org.")
                .doesNotContain("Exception").doesNotContain("internal error");
        assertThat(run.stdout()).as("nothing ran").doesNotContain("target:");
        return err;
    }

    private static String stat(Path path) throws Exception {
        Process p = new ProcessBuilder("stat", "-c", "%F %t:%T %i", path.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        return out;
    }

    private static void sh(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", command) + " (needs root, as CI has): " + out).isZero();
    }

    @Test
    void aDeviceNodeAPipeAFolderOrALinkIsNeverReplaced() throws Exception {
        Path device = dir.resolve("null");
        sh("mknod", device.toString(), "c", "1", "3");
        Path fifo = dir.resolve("fifo");
        sh("mkfifo", fifo.toString());
        Files.createDirectories(dir.resolve("folder"));
        Path link = Files.createSymbolicLink(dir.resolve("link"), device);
        String deviceBefore = stat(device);

        assertThat(refused(build("--report", "null"))).contains("--report null is a character device, not a regular"
                + " file");
        assertThat(refused(build("--metrics", "fifo"))).contains("--metrics fifo is a named pipe (FIFO)");
        assertThat(refused(build("--trace", "folder"))).contains("--trace folder is a folder");
        assertThat(refused(build("--junit", "link"))).contains("--junit link is a symbolic link to " + device
                + " (a character device)");
        assertThat(refused(build("--html", "link"))).contains("--html link is a symbolic link");

        assertThat(stat(device)).isEqualTo(deviceBefore).startsWith("character special file 1:3");
        assertThat(stat(fifo)).startsWith("fifo");
        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(dir.resolve(".archpool")).as("nothing was created").doesNotExist();
    }

    @Test
    void theManifestIsNeverAnOutput() throws Exception {
        Archpool.manifest(dir, MANIFEST);
        Files.createLink(dir.resolve("hard.json"), dir.resolve("archpool.json"));
        Files.createSymbolicLink(dir.resolve("soft.json"), dir.resolve("archpool.json"));
        for (String spelling : List.of("archpool.json", "./archpool.json", dir.resolve("archpool.json").toString(),
                "hard.json", "soft.json")) {
            assertThat(refused(build("--report", spelling))).as(spelling).containsAnyOf("is the manifest itself",
                    "is a symbolic link to " + dir.resolve("archpool.json"));
        }
        assertThat(refused(build("--trace", "archpool.json"))).contains("--trace archpool.json is the manifest itself");
        assertThat(Files.readString(dir.resolve("archpool.json"))).isEqualTo(MANIFEST);
    }

    @Test
    void twoOutputsOnOnePathAreRefused() throws Exception {
        assertThat(refused(build("--report", "x", "--trace", "x"))).contains("--report x and --trace x are one path");
        assertThat(refused(build("--junit", "out/j.xml", "--html", "./out/../out/j.xml"))).contains("are one path");
        assertThat(refused(build("--report", ".archpool/logs/a.log")))
                .contains("is where the build writes the log of job 'a'");
        assertThat(refused(build("--report", "r.json", "--log-dir", "r.json/logs"))).contains("is inside --report");
        assertThat(dir.resolve("x")).doesNotExist();
    }

    @Test
    void jobIdsThatLookLikeArchpoolsFilesGetLogsOfTheirOwn() throws Exception {
        Archpool.Run run = build();
        assertThat(run.exitCode()).as(run.toString()).isZero();
        Path logs = dir.resolve(".archpool/logs");
        byte[] coordinator = Files.readAllBytes(logs.resolve("@archpool.log"));
        assertThat(new String(coordinator, StandardCharsets.UTF_8)).contains("target: cuda 90")
                .contains("job archpool succeeded").doesNotContain("\0");
        assertThat(Files.readString(logs.resolve("archpool.log"))).contains("job archpool\n")
                .doesNotContain("target: cuda 90 (").doesNotContain("\0");
        assertThat(Files.readString(logs.resolve("x.attempt2.log"))).contains("job x.attempt2");
        assertThat(Archpool.json(dir.resolve(".archpool/report.json")).path("jobs").findValuesAsText("logPath"))
                .containsExactly(logs.resolve("a.log").toString(), logs.resolve("archpool.log").toString(),
                        logs.resolve("x.attempt2.log").toString());
    }

    @Test
    void aLinkPlantedAmongTheLogsIsRefusedAndItsTargetKept() throws Exception {
        Path logs = Files.createDirectories(dir.resolve(".archpool/logs"));
        Path victim = Files.writeString(dir.resolve("victim"), "precious");
        for (String name : List.of("a.log", "@archpool.log", "@archpool.lock")) {
            Files.createSymbolicLink(logs.resolve(name), victim);
            assertThat(refused(build())).as(name).contains(logs.resolve(name) + " is a symbolic link to " + victim)
                    .contains("--log-dir");
            Files.delete(logs.resolve(name));
        }
        assertThat(Files.readString(victim)).isEqualTo("precious");
    }

    @Test
    void aSecondBuildOnTheSameLogFolderIsRefusedNamingTheFirst() throws Exception {
        Path ready = dir.resolve("ready");
        Path gate = dir.resolve("gate");
        sh("mkfifo", ready.toString(), gate.toString());
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[{\"id\":\"held\",\"kind\":\"command\",\"argv\":[\"sh\",\"-c\","
                + "\"echo first build; echo up > ready; read line < gate; echo released\"],"
                // bounds a second build that was let in: its job would wait for a reader of ready forever
                + "\"timeout\":\"60s\"}]}");
        List<String> command = new ArrayList<>(List.of(Archpool.home().resolve("bin/archpool").toString()));
        command.addAll(List.of(args("archpool.json")));
        Process first = Archpool.process(command).directory(dir.toFile())
                .redirectOutput(dir.resolve("first.out").toFile()).redirectError(dir.resolve("first.err").toFile())
                .start();
        try {
            try (BufferedReader r = Files.newBufferedReader(ready)) {
                assertThat(r.readLine()).isEqualTo("up"); // the first build's job runs, so it holds the folder
            }
            Archpool.Run second = new Archpool().in(dir).run(args("archpool.json", "--report", "second.json"));
            assertThat(refused(second)).contains("the log folder " + dir.resolve(".archpool/logs")
                    + " is in use by another archpool build: pid " + first.pid() + " on ")
                    .contains("building " + dir.resolve("archpool.json")).contains("--log-dir DIR");
            try (OutputStream w = Files.newOutputStream(gate)) {
                w.write("go\n".getBytes(StandardCharsets.UTF_8));
            }
            assertThat(first.waitFor(2, TimeUnit.MINUTES)).isTrue();
            assertThat(first.exitValue()).as(Files.readString(dir.resolve("first.err"))).isZero();
            assertThat(Files.readString(dir.resolve(".archpool/logs/held.log"))).contains("first build")
                    .contains("released");
            assertThat(dir.resolve("second.json")).doesNotExist();
            Files.writeString(dir.resolve("quick.json"), MANIFEST);
            Archpool.Run third = new Archpool().in(dir).run(args("quick.json", "--report", "third.json"));
            assertThat(third.exitCode()).as("the lock went with the first build: " + third).isZero();
        } finally {
            first.destroyForcibly();
        }
    }

    /** Runs {@code script} in bash, in a mount namespace of its own, with {@code $AP} the distribution's archpool. */
    private Archpool.Run bash(String script) throws IOException, InterruptedException {
        Process p = Archpool.process(List.of("unshare", "--mount", "bash", "-c", script)).directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(dir.resolve("bash.out").toFile()).redirectError(dir.resolve("bash.err").toFile())
                .start();
        assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
        return new Archpool.Run(p.exitValue(), Files.readString(dir.resolve("bash.out")),
                Files.readString(dir.resolve("bash.err")));
    }

    private static String ap(String manifest, String... extra) {
        StringBuilder line = new StringBuilder(Archpool.home().resolve("bin/archpool").toString());
        for (String a : args(manifest, extra)) {
            line.append(" '").append(a).append('\'');
        }
        return line.toString();
    }

    @Test
    void readOnlyFoldersAreRefusedWithTheFlagsToGive() throws Exception {
        Archpool.manifest(dir, MANIFEST);
        Files.createDirectories(dir.resolve("ro"));
        Files.createDirectories(dir.resolve("src"));
        Archpool.manifest(dir.resolve("src"), MANIFEST);
        Archpool.Run logDir = bash("mount -t tmpfs -o ro,size=1m none ro && " + ap("archpool.json", "--log-dir", "ro/logs"));
        assertThat(refused(logDir)).contains("cannot write --log-dir ro/logs: the folder " + dir.resolve("ro")
                + " is on a read-only file system").contains("give --log-dir a path in a folder you can write");

        Archpool.Run manifestFolder = bash("mount --bind src src && mount -o remount,ro,bind src && "
                + ap("src/archpool.json"));
        assertThat(refused(manifestFolder)).contains("beside the manifest").contains("read-only file system")
                .contains("give --report FILE and --log-dir DIR");
        Archpool.Run elsewhere = bash("mount --bind src src && mount -o remount,ro,bind src && "
                + ap("src/archpool.json", "--report", "r.json", "--log-dir", "logs"));
        assertThat(elsewhere.exitCode()).as(elsewhere.toString()).isZero();
    }

    @Test
    void aManifestFromAPipeIsReadButItsDefaultOutputsNeedFlags() throws Exception {
        String json = MANIFEST.replace("\"kind\":\"command\"", "\"kind\":\"command\",\"cwd\":\"" + dir + "\"");
        Files.writeString(dir.resolve("m.src"), json);
        Archpool.Run defaults = bash(ap("<(cat m.src)").replace("'<(cat m.src)'", "<(cat m.src)"));
        assertThat(refused(defaults)).contains("the manifest /dev/fd/").contains("is a named pipe (FIFO)")
                .contains("give --report FILE and --log-dir DIR");
        Archpool.Run given = bash(ap("<(cat m.src)", "--report", "r.json", "--log-dir", "logs")
                .replace("'<(cat m.src)'", "<(cat m.src)"));
        assertThat(given.exitCode()).as(given.toString()).isZero();
        assertThat(dir.resolve("logs/a.log")).isRegularFile();
        assertThat(Files.exists(dir.resolve("r.json"), LinkOption.NOFOLLOW_LINKS)).isTrue();
    }

    @Test
    void aJobTooLargeForTheProtocolIsRefusedWhenTheManifestIsRead() throws Exception {
        String big = "y".repeat(5 * 1024 * 1024);
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[{\"id\":\"ok\",\"kind\":\"command\",\"argv\":[\"true\"]},"
                + "{\"id\":\"huge\",\"kind\":\"command\",\"argv\":[\"echo\",\"" + big + "\"]}]}");
        Archpool.Run run = new Archpool().in(dir).run(args("archpool.json"));
        assertThat(refused(run)).contains("job \"huge\" is too large to send to a worker")
                .contains("the protocol's limit of 4.00 MiB");
        assertThat(dir.resolve(".archpool")).doesNotExist();
    }
}
