package org.archpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The report's JSON Schema, {@code docs/report.schema.json} of this repository, as a validator: the whole report, or
 * one of its {@code $defs} (e.g. {@code resolution}, which is also what {@code archpool arch --json} prints).
 * Formats ({@code date-time}) are asserted, not only annotated.
 */
final class ReportSchema {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
            builder -> builder.schemaRegistryConfig(SchemaRegistryConfig.builder().formatAssertionsEnabled(true).build()));
    private static final Map<String, Schema> CACHE = new ConcurrentHashMap<>();

    private ReportSchema() {
    }

    static Path file() {
        return Archpool.repo().resolve("docs/report.schema.json");
    }

    /** The schema document itself. */
    static JsonNode document() {
        try {
            return JSON.readTree(file().toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What is wrong with {@code report} as a whole report, one line per problem; empty when it is valid. */
    static List<String> problems(JsonNode report) {
        return problems(null, report);
    }

    /**
     * @param definition a name under {@code $defs}, or null for the whole report
     * @return what is wrong with {@code node}, one line per problem (instance location and message); empty when valid
     */
    static synchronized List<String> problems(String definition, JsonNode node) {
        Schema schema = CACHE.computeIfAbsent(definition == null ? "" : definition, ReportSchema::load);
        return schema.validate(node).stream().map(ReportSchema::describe).toList();
    }

    /** What the JSON Schema 2020-12 meta-schema says about {@code docs/report.schema.json}; empty when it is valid. */
    static List<String> metaSchemaProblems() {
        Schema meta = REGISTRY.getSchema(SchemaLocation.of(SpecificationVersion.DRAFT_2020_12.getDialectId()));
        return meta.validate(document()).stream().map(ReportSchema::describe).toList();
    }

    /** Asserts that the report in {@code file} is valid, naming every problem and the file when it is not. */
    static JsonNode assertValid(Path file) throws IOException {
        JsonNode report = Archpool.json(file);
        assertValid(report, file.toString());
        return report;
    }

    static void assertValid(JsonNode report, String what) {
        assertThat(problems(report)).as("%s against %s:\n%s", what, file(), report.toPrettyString()).isEmpty();
        assertConsistent(report, what);
    }

    /**
     * What a schema cannot say: the outcome counts add up to the jobs, and the exit code follows from them (70:
     * no worker could start, every job crashed).
     */
    static void assertConsistent(JsonNode report, String what) {
        Map<String, Integer> counted = new HashMap<>();
        for (JsonNode job : report.path("jobs")) {
            counted.merge(job.path("outcome").asText(), 1, Integer::sum);
        }
        Map<String, Integer> reported = new HashMap<>();
        report.path("outcomes").properties().forEach(e -> reported.put(e.getKey(), e.getValue().asInt()));
        assertThat(reported).as("%s: outcomes vs jobs[].outcome", what).isEqualTo(counted);
        int exit = report.path("exitCode").asInt();
        boolean allSucceeded = counted.keySet().stream().allMatch("succeeded"::equals);
        if (exit == 70) {
            // no worker could start: nothing ran, and no worker ever said hello
            assertThat(counted.keySet()).as("%s: outcomes with exit code 70", what).containsOnly("crashed");
            assertThat(report.path("pool").path("workerEvents").findValuesAsText("event")).as(what)
                    .doesNotContain("started").contains("failed_to_start");
        } else if (exit != 130) {
            assertThat(exit).as("%s: exitCode with outcomes %s", what, counted).isEqualTo(allSucceeded ? 0 : 1);
        }
    }

    private static Schema load(String definition) {
        JsonNode document = document();
        if (definition.isEmpty()) {
            return REGISTRY.getSchema(document);
        }
        assertThat(document.path("$defs").has(definition)).as("$defs/%s in %s", definition, file()).isTrue();
        ObjectNode wrapper = JSON.createObjectNode();
        wrapper.set("$schema", document.get("$schema"));
        wrapper.set("$defs", document.get("$defs"));
        wrapper.put("$ref", "#/$defs/" + definition);
        return REGISTRY.getSchema(wrapper);
    }

    private static String describe(Error e) {
        return e.getInstanceLocation() + ": " + e.getMessage() + " (" + e.getKeyword() + " at " + e.getEvaluationPath()
                + ")";
    }
}
