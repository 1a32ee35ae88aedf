package org.archpool.orchestrator.report;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.archpool.orchestrator.output.AtomicFile;

/**
 * Writes a registry's meters in the Prometheus text exposition format, atomically (a temporary file in the same
 * folder, then a rename), as node_exporter's textfile collector requires: it must never read a half-written file.
 */
public final class PrometheusFile {

    private PrometheusFile() {
    }

    public static void write(PrometheusMeterRegistry registry, Path file) throws IOException {
        AtomicFile.write(file, out -> writeTo(registry, out));
    }

    /** Writes the registry's meters to {@code out}, leaving it open. */
    public static void writeTo(PrometheusMeterRegistry registry, OutputStream out) throws IOException {
        out.write(registry.scrape().getBytes(StandardCharsets.UTF_8));
    }
}
