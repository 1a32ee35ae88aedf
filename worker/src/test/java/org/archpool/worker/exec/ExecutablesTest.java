package org.archpool.worker.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real files and folders on a PATH of the test's own. */
class ExecutablesTest {

    @TempDir
    Path root;

    private Path dir(String name) throws IOException {
        return Files.createDirectories(root.resolve(name));
    }

    private static Path file(Path dir, String name, String mode) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, "#!/bin/sh\nexit 0\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
        return f;
    }

    private static String path(Path... dirs) {
        StringBuilder sb = new StringBuilder();
        for (Path d : dirs) {
            sb.append(sb.isEmpty() ? "" : ":").append(d);
        }
        return sb.toString();
    }

    @Test
    void findsTheFirstExecutableOnThePath() throws IOException {
        Path a = dir("a");
        Path b = dir("b");
        Path c = dir("c");
        Path inB = file(b, "tool", "rwxr-xr-x");
        file(c, "tool", "rwxr-xr-x");
        assertThat(Executables.find("tool", path(a, b, c))).contains(inB);
        assertThat(Executables.find("tool", path(c, b))).contains(c.resolve("tool"));
    }

    @Test
    void passesOverAFileThatMayNotBeExecuted() throws IOException {
        Path a = dir("a");
        Path b = dir("b");
        Path plain = file(a, "tool", "rw-r--r--");
        assertThat(Executables.find("tool", path(a, b))).isEmpty();
        assertThat(Executables.findNotExecutable("tool", path(a, b))).contains(plain);
        Path runnable = file(b, "tool", "rwxr-xr-x");
        assertThat(Executables.find("tool", path(a, b))).contains(runnable);
    }

    @Test
    void passesOverAFolderOfThatName() throws IOException {
        Path a = dir("a");
        Path b = dir("b");
        Files.createDirectories(a.resolve("tool"));
        assertThat(Executables.find("tool", path(a, b))).isEmpty();
        assertThat(Executables.findNotExecutable("tool", path(a, b))).isEmpty();
        Path runnable = file(b, "tool", "rwxr-xr-x");
        assertThat(Executables.find("tool", path(a, b))).contains(runnable);
    }

    @Test
    void followsALinkToAnExecutable() throws IOException {
        Path a = dir("a");
        Path target = file(dir("real"), "tool-1.0", "rwxr-xr-x");
        Path link = Files.createSymbolicLink(a.resolve("tool"), target);
        assertThat(Executables.find("tool", path(a))).contains(link);
        Files.delete(target);
        assertThat(Executables.find("tool", path(a))).as("a dangling link").isEmpty();
    }

    @Test
    void takesANameWithASlashAsAPathAndDoesNotSearch() throws IOException {
        Path a = dir("a");
        Path runnable = file(a, "tool", "rwxr-xr-x");
        file(dir("b"), "tool", "rwxr-xr-x");
        assertThat(Executables.find(runnable.toString(), "")).contains(runnable);
        assertThat(Executables.find(root.resolve("b/tool").toString(), path(a))).contains(root.resolve("b/tool"));
        assertThat(Executables.find(root.resolve("c/tool").toString(), path(a))).as("no such file").isEmpty();
        assertThat(Executables.find(a.toString() + "/", path(a))).as("a folder").isEmpty();
        Path plain = file(dir("d"), "tool", "rw-r--r--");
        assertThat(Executables.find(plain.toString(), path(a))).isEmpty();
        assertThat(Executables.findNotExecutable(plain.toString(), path(a))).contains(plain);
    }

    @Test
    void skipsEmptyEntriesAndAnEmptyOrMissingPath() throws IOException {
        Path a = dir("a");
        Path runnable = file(a, "tool", "rwxr-xr-x");
        assertThat(Executables.find("tool", "::" + a + ":")).contains(runnable);
        assertThat(Executables.find("tool", "")).isEmpty();
        assertThat(Executables.find("tool", null)).isEmpty();
        assertThat(Executables.find("tool", ":")).isEmpty();
    }

    @Test
    void anEmptyEntryIsNotTheWorkingFolder() throws IOException {
        Path here = Path.of("").toAbsolutePath();
        Path inHere = file(here, "archpool-executables-test-" + ProcessHandle.current().pid(), "rwxr-xr-x");
        try {
            String name = inHere.getFileName().toString();
            assertThat(Executables.find(name, here.toString())).as("the folder named").isPresent();
            assertThat(Executables.find(name, ":" + dir("a"))).isEmpty();
            assertThat(Executables.find(name, "")).isEmpty();
        } finally {
            Files.delete(inHere);
        }
    }
}
