package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import org.archpool.testing.RequiredTool;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A job whose compiler fails is reported failed, with its log tail, and does not take the others down. */
class FailingJobIT {

    @BeforeAll
    static void tools() {
        RequiredTool.require("cmake", "ninja", "nvcc");
    }

    private static Path setUp(Path dir, String jobs) throws Exception {
        Archpool.copyTree(Archpool.repo().resolve("examples/quickstart/vector_add"), dir.resolve("vector_add"));
        Archpool.copyTree(Archpool.repo().resolve("examples/quickstart/saxpy"), dir.resolve("saxpy"));
        Archpool.copyTree(Path.of(FailingJobIT.class.getResource("/projects/broken_kernel").toURI()),
                dir.resolve("broken_kernel"));
        return Archpool.manifest(dir, "{\"version\":1,\"jobs\":[" + jobs + "]}");
    }

    private static String job(String id) {
        return "{\"id\":\"" + id + "\",\"kind\":\"cmake\",\"sourceDir\":\"" + id + "\"}";
    }

    private static JsonNode byId(JsonNode report, String id) {
        for (JsonNode j : report.path("jobs")) {
            if (j.path("id").asText().equals(id)) {
                return j;
            }
        }
        throw new AssertionError("no job " + id + " in " + report);
    }

    @Test
    void withKeepGoingTheOthersSucceed(@TempDir Path dir) throws Exception {
        Path manifest = setUp(dir, job("vector_add") + "," + job("broken_kernel") + "," + job("saxpy"));
        Path report = dir.resolve("report.json");

        Archpool.Run run = new Archpool().in(dir).run("build", manifest.toString(), "--arch", "90", "-j2", "-k",
                "--report", report.toString());

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
        JsonNode r = Archpool.json(report);
        JsonNode broken = byId(r, "broken_kernel");
        assertThat(broken.path("outcome").asText()).isEqualTo("failed");
        assertThat(broken.path("exitCode").asInt()).isNotZero();
        assertThat(broken.path("message").asText()).contains("build (cmake) exited with status");
        assertThat(broken.path("logTail").asText()).contains("kernels.cu").contains("error");
        assertThat(byId(r, "vector_add").path("outcome").asText()).isEqualTo("succeeded");
        assertThat(byId(r, "saxpy").path("outcome").asText()).isEqualTo("succeeded");
        assertThat(r.path("outcomes").path("failed").asInt()).isEqualTo(1);
        assertThat(run.stdout()).contains("broken_kernel failed").contains("2 of 3 jobs succeeded");
    }

    @Test
    void withoutKeepGoingLaterJobsAreReportedNotStarted(@TempDir Path dir) throws Exception {
        Path manifest = setUp(dir, job("broken_kernel") + "," + job("vector_add") + "," + job("saxpy"));
        Path report = dir.resolve("report.json");

        Archpool.Run run = new Archpool().in(dir).run("build", manifest.toString(), "--arch", "90", "-j1",
                "--report", report.toString());

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
        JsonNode r = Archpool.json(report);
        assertThat(r.path("jobs")).hasSize(3);
        assertThat(byId(r, "broken_kernel").path("outcome").asText()).isEqualTo("failed");
        for (String id : new String[] {"vector_add", "saxpy"}) {
            assertThat(byId(r, id).path("outcome").asText()).isEqualTo("cancelled");
            assertThat(byId(r, id).path("message").asText()).contains("not started").contains("--keep-going");
        }
    }
}
