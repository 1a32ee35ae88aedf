package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every job ends, through the distribution: under a worker heap of 32 MiB, a job whose artifact is a sparse ELF
 * file claiming 30 million sections fails naming the file, a job that floods its log is cut to
 * {@code --max-log-size}, and the same worker runs every job.
 */
class JobEndsIT {

    private static String commandJob(String id, String script, String artifacts) {
        // a job without named artifacts has as its default ones the files written under its cwd since the second
        // it began, so it runs apart from the folder where the sparse file was just made
        return "{\"id\":\"" + id + "\",\"kind\":\"command\",\"argv\":[\"sh\",\"-c\",\"" + script + "\"]"
                + (artifacts == null ? ",\"cwd\":\"others\"" : ",\"cwd\":\"" + id + "\",\"artifacts\":[\"" + artifacts + "\"]")
                + "}";
    }

    private static JsonNode job(JsonNode report, String id) {
        for (JsonNode j : report.path("jobs")) {
            if (j.path("id").asText().equals(id)) {
                return j;
            }
        }
        throw new AssertionError("no job " + id);
    }

    /** A 1.9 GB ELF file that holds 128 bytes: its header claims 30 million section headers. */
    private static Path sparseElf(Path file) throws Exception {
        long count = 30_000_000;
        ByteBuffer header = ByteBuffer.allocate(128).order(ByteOrder.LITTLE_ENDIAN);
        header.putInt(0, 0x464c457f).put(4, (byte) 2).put(5, (byte) 1).put(6, (byte) 1);
        header.putShort(16, (short) 3).putShort(18, (short) 62);
        header.putLong(40, 64).putShort(52, (short) 64).putShort(58, (short) 64).putShort(60, (short) 0);
        header.putLong(64 + 32, count);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.write(header.array());
            raf.setLength(64 + count * 64);
        }
        return file;
    }

    @Test
    void anUninspectableArtifactAndAFloodedLogEndTheirJobsAndTheWorkerRunsOn(@TempDir Path dir) throws Exception {
        // in a folder of its own: the other jobs' default artifacts are the files written in their cwd since they began
        Path sparse = sparseElf(Files.createDirectory(dir.resolve("sparse")).resolve("libsparse.so"));
        Files.createDirectory(dir.resolve("others"));
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":["
                + commandJob("sparse", "true", "libsparse.so") + ","
                + commandJob("flood", "yes | head -c 20000000; echo last line", null) + ","
                + commandJob("after", "echo fine", null) + "]}");
        Path report = dir.resolve("r.json");
        Archpool.Run run = new Archpool().in(dir).env("ARCHPOOL_WORKER_JAVA_OPTS", "-Xmx32m")
                .run("build", "archpool.json", "--arch", "90", "-j1", "-k", "--max-log-size", "1M",
                        "--report", report.toString());
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
        JsonNode r = Archpool.json(report);
        JsonNode failed = job(r, "sparse");
        assertThat(failed.path("outcome").asText()).as(run.toString()).isEqualTo("failed");
        assertThat(failed.path("attempts").asInt()).isEqualTo(1);
        assertThat(failed.path("message").asText()).startsWith("cannot inspect the artifact " + sparse
                + ": too large to inspect").contains("claims 30000000 sections");
        assertThat(job(r, "flood").path("outcome").asText()).isEqualTo("succeeded");
        Path floodLog = Path.of(job(r, "flood").path("logPath").asText());
        assertThat(Files.size(floodLog)).isEqualTo(1 << 20);
        assertThat(Files.readString(floodLog)).contains(" bytes of output cut here").endsWith("last line\n");
        assertThat(job(r, "after").path("outcome").asText()).isEqualTo("succeeded");
        assertThat(r.path("pool").path("workerEvents").findValuesAsText("event")).containsExactly("started");
    }

    @Test
    void aBadLogSizeIsRefusedBeforeAnythingRuns(@TempDir Path dir) throws Exception {
        Files.createDirectory(dir.resolve("others"));
        Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + commandJob("canary", "touch ran", null) + "]}");
        Archpool.Run run = new Archpool().in(dir).run("build", "archpool.json", "--arch", "90",
                "--max-log-size", "lots");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
        assertThat(run.stderr()).contains("--max-log-size lots is not valid").doesNotContain("\tat ");
        assertThat(dir.resolve("others/ran")).doesNotExist();
    }
}
