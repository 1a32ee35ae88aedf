package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Longest first against the distribution: a long job listed last runs first once its duration is known, the report
 * says what the order was and how well the slots were filled, and the order changes no outcome and no file.
 */
// it asserts how long its jobs took and how well they filled the slot: never beside a compile
@Isolated
class JobOrderIT {

    @TempDir
    Path dir;

    /** Four jobs, each writing its id's file after sleeping; the last one sleeps longest. */
    private Path manifest() throws Exception {
        StringBuilder jobs = new StringBuilder();
        String[][] specs = {{"a", "0.2"}, {"b", "0.2"}, {"c", "0.2"}, {"long", "1.5"}};
        for (int i = 0; i < specs.length; i++) {
            jobs.append(i == 0 ? "" : ",").append("{\"id\": \"").append(specs[i][0])
                    .append("\", \"kind\": \"command\", \"argv\": [\"sh\", \"-c\", \"sleep ").append(specs[i][1])
                    .append(" && echo ").append(specs[i][0]).append(" > ").append(specs[i][0])
                    .append(".out\"], \"artifacts\": [\"").append(specs[i][0]).append(".out\"]}");
        }
        return Archpool.manifest(Files.createDirectories(dir.resolve("p")), "{\"version\": 1, \"jobs\": [" + jobs
                + "]}");
    }

    private static Archpool.Run build(Path manifest, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("build", manifest.toString(), "--platform", "cuda", "--arch",
                "90", "--no-toolchain-check", "--verify", "off", "-j1", "--no-cache"));
        args.addAll(List.of(more));
        return new Archpool().in(manifest.getParent()).run(args.toArray(String[]::new));
    }

    private static JsonNode report(Path manifest) throws Exception {
        return ReportSchema.assertValid(manifest.getParent().resolve(".archpool/report.json"));
    }

    /** The job ids in the order the one slot started them. */
    private static List<String> started(JsonNode report) {
        List<JsonNode> jobs = new ArrayList<>();
        report.path("jobs").forEach(jobs::add);
        jobs.sort(Comparator.comparingLong(j -> j.path("startMs").asLong()));
        return jobs.stream().map(j -> j.path("id").asText()).toList();
    }

    private static Map<String, String> outputs(Path folder) throws Exception {
        Map<String, String> files = new HashMap<>();
        for (String id : List.of("a", "b", "c", "long")) {
            files.put(id, Files.readString(folder.resolve(id + ".out")));
        }
        return files;
    }

    @Test
    void aLongJobListedLastRunsFirstOnceItsDurationIsKnown() throws Exception {
        Path manifest = manifest();
        Archpool.Run first = build(manifest);
        assertThat(first.exitCode()).as(first.toString()).isZero();
        JsonNode r1 = report(manifest);
        assertThat(started(r1)).containsExactly("a", "b", "c", "long");
        r1.path("jobs").forEach(j -> assertThat(j.has("expectedMs")).as(j.toString()).isFalse());
        assertThat(manifest.getParent().resolve(".archpool/durations")).isRegularFile();
        Map<String, String> firstOutputs = outputs(manifest.getParent());

        Archpool.Run second = build(manifest);
        assertThat(second.exitCode()).as(second.toString()).isZero();
        JsonNode r2 = report(manifest);
        assertThat(started(r2)).first().isEqualTo("long");
        assertThat(r2.path("jobs").get(3).path("expectedMs").asLong()).isGreaterThanOrEqualTo(1500);
        assertThat(r2.path("jobs").get(0).path("expectedMs").asLong()).isBetween(150L, 1400L);
        JsonNode schedule = r2.path("schedule");
        assertThat(schedule.path("order").asText()).isEqualTo("longest-first");
        assertThat(schedule.path("slots").asInt()).isEqualTo(1);
        assertThat(schedule.path("jobs").asInt()).isEqualTo(4);
        long sum = 0;
        for (JsonNode j : r2.path("jobs")) {
            sum += j.path("totalMs").asLong();
        }
        assertThat(schedule.path("jobTimeMs").asLong()).isEqualTo(sum);
        assertThat(schedule.path("idealMakespanMs").asLong()).isEqualTo(sum);
        assertThat(schedule.path("parallelism").asDouble()).isBetween(0.5, 1.0);
        assertThat(second.stdout()).contains("schedule: longest-first, 1 slot; parallelism");
        assertThat(outputs(manifest.getParent())).isEqualTo(firstOutputs);
        assertThat(r2.path("outcomes").toString()).isEqualTo("{\"succeeded\":4}");

        Archpool.Run fifo = build(manifest, "--order", "fifo");
        assertThat(fifo.exitCode()).as(fifo.toString()).isZero();
        assertThat(started(report(manifest))).containsExactly("a", "b", "c", "long");
        assertThat(report(manifest).path("schedule").path("order").asText()).isEqualTo("fifo");
        assertThat(outputs(manifest.getParent())).isEqualTo(firstOutputs);
    }

    @Test
    void aWrongOrderIsAUsageErrorNamingTheChoices() throws Exception {
        Archpool.Run bad = build(manifest(), "--order", "random");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.stderr()).contains("'random' is no order; use one of fifo, longest-first")
                .doesNotContain("Exception");
    }
}
