package org.archpool.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

class RequiredToolTest {

    @TempDir
    Path dir;

    @Test
    void returnsAToolThatWasFound() {
        Path nvcc = dir.resolve("nvcc");

        assertThat(RequiredTool.require(Optional.of(nvcc), "nvcc", "hint", Map.of("CI", "true"))).isEqualTo(nvcc);
    }

    @Test
    void skipsWhenTheToolIsMissingOutsideCi() {
        assertThatThrownBy(() -> RequiredTool.require(Optional.empty(), "nvcc", "install CUDA", Map.of()))
                .isInstanceOf(TestAbortedException.class)
                .hasMessageContaining("nvcc not found (install CUDA)");
        assertThatThrownBy(() -> RequiredTool.require(Optional.empty(), "nvcc", "install CUDA", Map.of("CI", "false")))
                .isInstanceOf(TestAbortedException.class);
    }

    @Test
    void failsWhenTheToolIsMissingOnCi() {
        assertThatThrownBy(() -> RequiredTool.require(Optional.empty(), "nvcc", "install CUDA", Map.of("CI", "true")))
                .isInstanceOf(AssertionFailedError.class)
                .hasMessageContaining("nvcc not found (install CUDA)")
                .hasMessageContaining("CI=true")
                .hasMessageContaining(".ci/run");
    }

    @Test
    void aToolThatIsOnThePathIsFoundThere() {
        RequiredTool.require("sh");
        assertThat(RequiredTool.requireOneOf(List.of("no-such-tool-xyz", "sh"), "hint"))
                .isEqualTo(RequiredTool.findOnPath("sh", System.getenv()).orElseThrow());
    }

    @Test
    void findsOnlyExecutableFilesOnPath() throws IOException {
        Path empty = Files.createDirectory(dir.resolve("empty"));
        Path plain = Files.createDirectory(dir.resolve("plain"));
        Files.createFile(plain.resolve("tool"));
        Path bin = Files.createDirectory(dir.resolve("bin"));
        Path tool = Files.createFile(bin.resolve("tool"));
        Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));
        String path = String.join(File.pathSeparator, empty.toString(), "", plain.toString(), bin.toString());

        assertThat(RequiredTool.findOnPath("tool", Map.of("PATH", path))).contains(tool);
        assertThat(RequiredTool.findOnPath("other", Map.of("PATH", path))).isEmpty();
        assertThat(RequiredTool.findOnPath("tool", Map.of())).isEmpty();
    }
}
