package org.archpool.orchestrator.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ToolVersionsTest {

    @TempDir
    Path dir;

    @Test
    void aToolIsAskedOnceForItsBytesAcrossBuilds() throws Exception {
        Path file = dir.resolve("tool-versions");
        AtomicInteger runs = new AtomicInteger();
        String nvcc = Digests.of("nvcc binary");
        ToolVersions first = new ToolVersions(file);
        assertThat(first.of(nvcc, () -> "release 13.0\nV13.0.88" + runs.incrementAndGet())).isEqualTo("release 13.0 V13.0.881");
        first.save();
        ToolVersions next = new ToolVersions(file);
        assertThat(next.of(nvcc, () -> "asked again " + runs.incrementAndGet())).isEqualTo("release 13.0 V13.0.881");
        assertThat(next.of(Digests.of("another nvcc"), () -> "release 12.8")).isEqualTo("release 12.8");
        assertThat(runs).hasValue(1);
    }

    @Test
    void anUnknownVersionIsAskedAgainNextTime() throws Exception {
        Path file = dir.resolve("tool-versions");
        ToolVersions first = new ToolVersions(file);
        first.of(Digests.of("x"), () -> "version unknown: TIMED_OUT");
        first.save();
        assertThat(new ToolVersions(file).of(Digests.of("x"), () -> "release 1")).isEqualTo("release 1");
    }
}
