package org.archpool.it;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Waits for an archpool process that was told to end (Ctrl-C, SIGTERM, the end of its input) and, when it does not
 * end in time, fails with what it said on stderr and where each of its threads waits ({@code jcmd PID
 * Thread.print}), so that a hang seen once can be understood from the test's report alone.
 */
final class Exits {

    private static final Duration DUMP_TIMEOUT = Duration.ofSeconds(20);
    /** SIGINT (2) in the signal masks of /proc/PID/status. */
    private static final long SIGINT_BIT = 1L << (2 - 1);

    private Exits() {
    }

    /**
     * Asserts that {@code process} ends within {@code within}.
     *
     * @param stderr the file its stderr goes to, quoted in the failure; null when there is none
     */
    static void within(Process process, Duration within, Path stderr) throws InterruptedException {
        if (process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
            return;
        }
        fail("process " + process.pid() + " did not end within " + within.toMillis() + " ms." + ignoresSigint(process)
                + "\nIts stderr:\n" + read(stderr) + "\nIts threads:\n" + threads(process));
    }

    /**
     * A process started with SIGINT ignored (as everything a shell starts in the background is, and what it starts
     * in turn) never hears Ctrl-C: a JVM then installs no handler for it. Named, since the test cannot pass so.
     */
    private static String ignoresSigint(Process process) {
        try {
            String ignored = Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status")).stream()
                    .filter(l -> l.startsWith("SigIgn:")).map(l -> l.substring("SigIgn:".length()).strip())
                    .findFirst().orElse("0");
            if ((Long.parseUnsignedLong(ignored, 16) & SIGINT_BIT) == 0) {
                return "";
            }
            return " It ignores SIGINT, as it inherited from the tests' JVM: the tests were started by a shell that"
                    + " ignores it (a job in the background, nohup under sh). Run them through scripts/test.sh, which"
                    + " sets SIGINT back to its default.";
        } catch (IOException | RuntimeException e) {
            return " (cannot tell whether it ignores SIGINT: " + e + ")";
        }
    }

    private static String read(Path file) {
        if (file == null) {
            return "(not kept)";
        }
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }

    /** The thread dump of a live JVM, through the jcmd beside this JVM's java. */
    private static String threads(Process process) throws InterruptedException {
        Path jcmd = ProcessHandle.current().info().command().map(Path::of).map(java -> java.resolveSibling("jcmd"))
                .filter(Files::isExecutable).orElse(null);
        if (jcmd == null) {
            return "(no jcmd beside this JVM's java)";
        }
        try {
            Process dump = new ProcessBuilder(jcmd.toString(), Long.toString(process.pid()), "Thread.print")
                    .redirectErrorStream(true).start();
            byte[] out = dump.getInputStream().readAllBytes();
            if (!dump.waitFor(DUMP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                dump.destroyForcibly();
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(jcmd failed: " + e + ")";
        }
    }
}
