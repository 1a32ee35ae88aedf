package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CDS archives made at packaging (scripts/cds-archives.sh, run by Maven's package phase): the coordinator
 * and every worker use them, and a distribution whose archives no longer fit (moved, another Java) still works.
 */
class CdsArchiveIT {

    private static final String MANIFEST = "{\"version\":1,\"jobs\":["
            + "{\"id\":\"a\",\"kind\":\"command\",\"argv\":[\"sh\",\"-c\",\"echo built for $CUDAARCHS > a.txt\"]},"
            + "{\"id\":\"b\",\"kind\":\"command\",\"argv\":[\"true\"]}]}";

    @Test
    void theCoordinatorAndItsWorkersStartFromTheArchivesMadeAtPackaging(@TempDir Path dir) throws Exception {
        Path lib = Archpool.home().resolve("lib");
        assertThat(lib.resolve("archpool.jsa")).as("made by mvn package").isNotEmptyFile();
        assertThat(lib.resolve("worker.jsa")).as("made by mvn package").isNotEmptyFile();
        Path manifest = Archpool.manifest(dir, MANIFEST);

        // -Xshare:on: a JVM that cannot map its archives refuses to start instead of starting without them
        Archpool.Run run = new Archpool().in(dir)
                .env("ARCHPOOL_JAVA_OPTS", "-Xshare:on")
                .env("ARCHPOOL_WORKER_JAVA_OPTS", "-Xshare:on -Xlog:class+load=info:file=" + dir.resolve("worker-classes.txt"))
                .run("build", manifest.toString(), "--arch", "90", "-j2", "--no-toolchain-check");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(Files.readString(dir.resolve("a.txt"))).contains("built for 90");
        String loaded = Files.readString(dir.resolve("worker-classes.txt"));
        assertThat(loaded).as("the worker's own classes come from its archive")
                .containsPattern("org\\.archpool\\.worker\\.WorkerMain source: shared objects file \\(top\\)")
                .containsPattern("org\\.archpool\\.protocol\\.codec\\.MessageCodec source: shared objects file \\(top\\)");
        assertThat(loaded).as("a worker loads no logging framework and no object mapper")
                .doesNotContain("ch.qos.logback").doesNotContain("com.fasterxml.jackson.databind");
    }

    @Test
    void aMovedDistributionWhoseArchivesNoLongerFitStillBuildsAndPrintsOnlyItsReport(@TempDir Path dir)
            throws Exception {
        Path moved = Archpool.copyTree(Archpool.home(), dir.resolve("elsewhere/archpool"));
        moved.resolve("bin/archpool").toFile().setExecutable(true);
        assertThat(moved.resolve("lib/worker.jsa")).isNotEmptyFile();
        Path manifest = Archpool.manifest(dir, MANIFEST);

        Path out = dir.resolve("stdout.txt");
        Path err = dir.resolve("stderr.txt");
        ProcessBuilder pb = Archpool.process(List.of(moved.resolve("bin/archpool").toString(), "build",
                manifest.toString(), "--arch", "90", "-j2", "--no-toolchain-check"))
                .directory(dir.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        assertThat(p.waitFor(3, TimeUnit.MINUTES)).isTrue();
        String stdout = Files.readString(out);
        assertThat(p.exitValue()).as(stdout + Files.readString(err)).isZero();
        assertThat(stdout).contains("2 of 2 jobs succeeded").doesNotContain("[warning]").doesNotContain("cds");
        assertThat(Files.readString(dir.resolve("a.txt"))).contains("built for 90");
    }

    @Test
    void withoutArchivesEverythingStillWorks(@TempDir Path dir) throws Exception {
        Path bare = Archpool.copyTree(Archpool.home(), dir.resolve("bare/archpool"));
        bare.resolve("bin/archpool").toFile().setExecutable(true);
        Files.delete(bare.resolve("lib/archpool.jsa"));
        Files.delete(bare.resolve("lib/worker.jsa"));
        Path manifest = Archpool.manifest(dir, MANIFEST);
        Process p = Archpool.process(List.of(bare.resolve("bin/archpool").toString(), "build", manifest.toString(),
                "--arch", "90", "-j2", "--no-toolchain-check")).directory(dir.toFile())
                .redirectErrorStream(true).redirectOutput(dir.resolve("out.txt").toFile()).start();
        assertThat(p.waitFor(3, TimeUnit.MINUTES)).isTrue();
        assertThat(p.exitValue()).as(Files.readString(dir.resolve("out.txt"))).isZero();
        assertThat(Files.readString(dir.resolve("a.txt"))).contains("built for 90");
    }
}
