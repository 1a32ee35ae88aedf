package org.archpool.orchestrator.report;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import org.archpool.orchestrator.output.AtomicFile;

/** Writes a report atomically: to a temporary file beside the target, then renamed over it. */
public final class ReportWriter {

    private final ObjectMapper mapper = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT)
            .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET).build();

    public void write(BuildReport report, Path file) throws IOException {
        AtomicFile.write(file, out -> writeTo(report, out));
    }

    /** Writes the report to {@code out}, streamed from its records, leaving {@code out} open. */
    public void writeTo(BuildReport report, OutputStream out) throws IOException {
        mapper.writeValue(out, report);
    }

    /** The report as JSON text. */
    public String toJson(Object value) throws IOException {
        return mapper.writeValueAsString(value);
    }
}
