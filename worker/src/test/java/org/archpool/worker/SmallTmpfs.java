package org.archpool.worker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.archpool.testing.RequiredTool;

/**
 * A small tmpfs mounted on a test folder: a full disk that a test can make. Mounting needs root, as on CI; where
 * the mount is refused the test is skipped, and fails on CI ({@link RequiredTool}).
 */
final class SmallTmpfs implements AutoCloseable {

    private final Path mountPoint;

    private SmallTmpfs(Path mountPoint) {
        this.mountPoint = mountPoint;
    }

    /** Mounts a tmpfs of {@code size} ({@code 1m}, {@code 64k}) on {@code mountPoint}, made if missing. */
    static SmallTmpfs mount(Path mountPoint, String size) throws IOException, InterruptedException {
        Files.createDirectories(mountPoint);
        String failure = run(List.of("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", mountPoint.toString()));
        if (failure != null) {
            RequiredTool.require(Optional.empty(), "root (to mount a tmpfs: " + failure + ")",
                    "run the test as root, as CI does", System.getenv());
        }
        return new SmallTmpfs(mountPoint);
    }

    Path path() {
        return mountPoint;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        String failure = run(List.of("umount", "-l", mountPoint.toString()));
        if (failure != null) {
            throw new IOException("cannot unmount " + mountPoint + ": " + failure);
        }
    }

    /** Runs a command; null when it succeeded, else what it said. */
    private static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return String.join(" ", command) + " did not finish";
        }
        return p.exitValue() == 0 ? null : String.join(" ", command) + ": " + out;
    }
}
