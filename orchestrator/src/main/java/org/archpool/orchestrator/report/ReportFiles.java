package org.archpool.orchestrator.report;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.archpool.orchestrator.output.AtomicFile;
import org.archpool.orchestrator.output.FileErrors;

/**
 * Writes a finished build's files: the JSON report first, then whichever of metrics (Prometheus text), trace
 * (Chrome trace events), JUnit XML and HTML were asked for. Each is streamed from the outcomes into a temporary
 * file that is then renamed over the target ({@link AtomicFile}); a file that cannot be written (an I/O error, or
 * a heap too small for it) does not stop the others, and the failures are reported together afterwards, with the
 * outputs that were written. An {@link OutputProgress} follows which are done, for the interrupt hook.
 *
 * @param report  the JSON report's path
 * @param metrics {@code --metrics}, or null
 * @param trace   {@code --trace}, or null
 * @param junit   {@code --junit}, or null
 * @param html    {@code --html}, or null
 */
public record ReportFiles(Path report, Path metrics, Path trace, Path junit, Path html) {

    /** The same outputs, with the JSON report at {@code file}. */
    public ReportFiles withReport(Path file) {
        return new ReportFiles(file, metrics, trace, junit, html);
    }

    /** A tracker of these outputs, every one of them not written yet. */
    public OutputProgress progress() {
        return new OutputProgress(outputs().stream().map(Output::name).toList());
    }

    /** One requested output: the option that asked for it (or "the report"), its file and its writer. */
    private record Output(String what, Path file, Writer writer) {
        String name() {
            return OutputProgress.name(what, file);
        }
    }

    /** Writes one output's contents, given the build. */
    private interface Writer {
        void write(BuildReport build, MeterRegistry registry, OutputStream out) throws IOException;
    }

    /** The requested outputs, the report first, in the order they are written. */
    private List<Output> outputs() {
        List<Output> outputs = new ArrayList<>();
        outputs.add(new Output("the report", report, (build, registry, out) -> new ReportWriter().writeTo(build, out)));
        if (metrics != null) {
            outputs.add(new Output("--metrics", metrics, (build, registry, out) -> {
                if (!(registry instanceof PrometheusMeterRegistry prometheus)) {
                    throw new IOException("no Prometheus registry was given to record into");
                }
                PrometheusFile.writeTo(prometheus, out);
            }));
        }
        if (trace != null) {
            outputs.add(new Output("--trace", trace,
                    (build, registry, out) -> new ChromeTraceWriter().writeTo(build, out)));
        }
        if (junit != null) {
            outputs.add(new Output("--junit", junit,
                    (build, registry, out) -> new JunitXmlWriter().writeTo(build, out)));
        }
        if (html != null) {
            outputs.add(new Output("--html", html,
                    (build, registry, out) -> new HtmlReportWriter().writeTo(build, out)));
        }
        return outputs;
    }

    /**
     * @param build    the report
     * @param registry the build's meters; written to {@link #metrics()} when it is a Prometheus registry
     * @throws OutputWriteException naming every file that could not be written, and those that were
     */
    public void write(BuildReport build, MeterRegistry registry) throws OutputWriteException {
        write(build, registry, progress());
    }

    /**
     * As {@link #write(BuildReport, MeterRegistry)}, marking each output in {@code progress} as it is written
     * or fails.
     */
    public void write(BuildReport build, MeterRegistry registry, OutputProgress progress)
            throws OutputWriteException {
        List<String> failures = new ArrayList<>();
        for (Output output : outputs()) {
            String name = output.name();
            try {
                AtomicFile.write(output.file(), out -> output.writer().write(build, registry, out),
                        progress::writing);
                progress.set(name, OutputProgress.State.WRITTEN);
            } catch (IOException e) {
                progress.set(name, OutputProgress.State.FAILED);
                failures.add("cannot write " + name + ": " + FileErrors.describe(e));
            } catch (OutOfMemoryError e) {
                // what the writer held is garbage now: the next output gets the memory back
                progress.set(name, OutputProgress.State.FAILED);
                failures.add("cannot write " + name + ": the coordinator ran out of memory (its heap is "
                        + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB; give it more with, e.g., "
                        + "ARCHPOOL_JAVA_OPTS=-Xmx1g)");
            }
        }
        if (!failures.isEmpty()) {
            List<String> written = progress.written();
            throw new OutputWriteException(String.join("; ", failures)
                    + " (the jobs' results are unaffected; check that the folder exists, is writable and has"
                    + " space)" + (written.isEmpty() ? "; no output was written"
                    : "; written: " + String.join(", ", written)));
        }
    }
}
