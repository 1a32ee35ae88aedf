package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.archpool.testing.RequiredTool;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/bundle-runtime.sh, on a copy of the distribution: the jlink'd runtime with its CDS archive is what
 * bin/archpool then runs on, with no Java on the PATH and no JAVA_HOME, and it can build.
 */
class BundleRuntimeIT {

    @BeforeAll
    static void tools() {
        RequiredTool.require("jlink");
    }

    private static String run(Path dir, List<String> command, Map<String, String> env) throws Exception {
        Path output = dir.resolve("out-" + System.nanoTime() + ".txt");
        ProcessBuilder builder = Archpool.process(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(output.toFile());
        builder.environment().putAll(env);
        Process p = builder.start();
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).as("finished: " + command).isTrue();
        String text = Files.readString(output);
        assertThat(p.exitValue()).as(command + "\n" + text).isZero();
        return text;
    }

    @Test
    void theBundledRuntimeRunsArchpoolWithoutAnyOtherJava(@TempDir Path dir) throws Exception {
        Path dist = Archpool.copyTree(Archpool.home(), dir.resolve("archpool"));
        dist.resolve("bin/archpool").toFile().setExecutable(true);
        String said = run(dir, List.of("bash", Archpool.repo().resolve("scripts/bundle-runtime.sh").toString(),
                dist.toString()), Map.of());
        assertThat(said).contains("bundle-runtime: " + dist.resolve("runtime"));
        assertThat(dist.resolve("runtime/bin/java")).isExecutable();
        assertThat(dist.resolve("runtime/lib/server/classes.jsa")).isRegularFile();
        assertThat(run(dir, List.of(dist.resolve("runtime/bin/java").toString(), "-Xshare:on", "-version"),
                Map.of())).contains("sharing");

        // bin/archpool prefers the bundled runtime over JAVA_HOME and the PATH; workers run on it too
        Files.writeString(dir.resolve("archpool.json"), "{\"version\":1,\"jobs\":[{\"id\":\"k\",\"kind\":\"command\","
                + "\"cwd\":\".\",\"argv\":[\"sh\",\"-c\",\"echo built for $CUDAARCHS > out.txt\"]}]}");
        String built = run(dir, List.of(dist.resolve("bin/archpool").toString(), "build", "archpool.json",
                "--platform", "cuda", "--arch", "90", "--no-toolchain-check"),
                Map.of("ARCHPOOL_JAVA_OPTS", "-XshowSettings:properties", "JAVA_HOME", "/nonexistent"));
        assertThat(built).contains("java.home = " + dist.resolve("runtime")).contains("1 of 1 jobs succeeded");
        assertThat(Files.readString(dir.resolve("out.txt"))).contains("built for 90");
    }
}
