package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.archpool.testing.RequiredTool;

/** A tmpfs mounted over a test folder (which needs root), unmounted at the end. */
record Tmpfs(Path at) implements AutoCloseable {
    // close() may throw InterruptedException: it waits for umount

    static Tmpfs mount(Path at, String options) throws Exception {
        boolean root = "0".equals(new String(new ProcessBuilder("id", "-u").start().getInputStream()
                .readAllBytes()).strip());
        RequiredTool.require(root ? Optional.of(at) : Optional.empty(), "root (to mount a small tmpfs)",
                "run the test as root, as CI does", Map.copyOf(System.getenv()));
        run("mount", "-t", "tmpfs", "-o", options, "tmpfs", at.toString());
        return new Tmpfs(at);
    }

    void remountReadOnly() throws Exception {
        run("mount", "-o", "remount,ro", at.toString());
    }

    @Override
    public void close() throws Exception {
        run("umount", at.toString());
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(String.join(" ", command) + ": " + said).isZero();
    }
}
