package org.archpool.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.archpool.testing.MarkedProcesses;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The {@code archpool serve} processes one test starts in its folder, and a marker of its own that the jobs'
 * processes carry (a link to sleep named after it), so that nothing is left running after the test, however it
 * ended. A test class registers one per test: {@code @RegisterExtension final Serves serves = new Serves(() -> dir);}
 * with its {@code @TempDir dir}.
 */
final class Serves implements AfterEachCallback {

    private final Supplier<Path> folder;
    private final String marker = MarkedProcesses.newMarker();
    private final List<Process> started = new ArrayList<>();

    /** @param folder the test's folder, asked for once the test has it */
    Serves(Supplier<Path> folder) {
        this.folder = folder;
    }

    /** The marker the jobs' processes carry. */
    String marker() {
        return marker;
    }

    /** A sleep whose command line carries the marker, in {@code bin/} of the test's folder. */
    Path markedSleep() throws Exception {
        return MarkedProcesses.markedSleep(Files.createDirectories(folder.get().resolve("bin")), marker);
    }

    /** {@code archpool serve ARGS} in the test's folder, its stderr in {@code serve.err}. */
    Process serve(String... args) throws Exception {
        return serveTo(folder.get().resolve("serve.err"), args);
    }

    /** A serve whose stderr goes to {@code err}. */
    Process serveTo(Path err, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Archpool.home().resolve("bin/archpool").toString());
        command.add("serve");
        command.addAll(List.of(args));
        Process p = Archpool.process(command).directory(folder.get().toFile()).redirectError(err.toFile()).start();
        started.add(p);
        return p;
    }

    /** What the serve of {@link #serve} said on stderr. */
    String stderr() throws Exception {
        return Files.readString(folder.get().resolve("serve.err"));
    }

    /** Kills every serve started, what they started, and every process that carries the marker. */
    @Override
    public void afterEach(ExtensionContext context) {
        for (Process p : started) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        MarkedProcesses.killAll(marker);
    }
}
