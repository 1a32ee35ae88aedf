package org.archpool.orchestrator.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.file.Path;

/** Writes a report atomically: to a temporary file beside the target, then renamed over it. */
public final class ReportWriter {

    private final ObjectMapper mapper = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    public void write(BuildReport report, Path file) throws IOException {
        AtomicFile.write(file, out -> mapper.writeValue(out, report));
    }

    /** The report as JSON text. */
    public String toJson(Object value) throws IOException {
        return mapper.writeValueAsString(value);
    }
}
