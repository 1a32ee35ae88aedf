package org.archpool.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.archpool.testing.MarkedProcesses;

/**
 * The {@code archpool serve} processes one test starts in its folder, and a marker of its own that the jobs'
 * processes carry (a link to sleep named after it), so that {@link #close()} leaves nothing running, however the
 * test ended.
 */
final class Serves implements AutoCloseable {

    private final Path dir;
    private final String marker = MarkedProcesses.newMarker();
    private final List<Process> started = new ArrayList<>();

    Serves(Path dir) {
        this.dir = dir;
    }

    /** The marker the jobs' processes carry. */
    String marker() {
        return marker;
    }

    /** A sleep whose command line carries the marker, in {@code bin/} of the test's folder. */
    Path markedSleep() throws Exception {
        return MarkedProcesses.markedSleep(Files.createDirectories(dir.resolve("bin")), marker);
    }

    /** {@code archpool serve ARGS} in the test's folder, its stderr in {@code serve.err}. */
    Process serve(String... args) throws Exception {
        return serveTo(dir.resolve("serve.err"), args);
    }

    /** A serve whose stderr goes to {@code err}. */
    Process serveTo(Path err, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Archpool.home().resolve("bin/archpool").toString());
        command.add("serve");
        command.addAll(List.of(args));
        Process p = Archpool.process(command).directory(dir.toFile()).redirectError(err.toFile()).start();
        started.add(p);
        return p;
    }

    /** What the serve of {@link #serve} said on stderr. */
    String stderr() throws Exception {
        return Files.readString(dir.resolve("serve.err"));
    }

    /** Kills every serve started, what they started, and every process that carries the marker. */
    @Override
    public void close() {
        for (Process p : started) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        MarkedProcesses.killAll(marker);
    }
}
