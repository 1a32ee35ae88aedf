package org.archpool.orchestrator.report;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a finished build's files: the JSON report first, then whichever of metrics (Prometheus text), trace
 * (Chrome trace events), JUnit XML and HTML were asked for. Each is written atomically; a file that cannot be
 * written does not stop the others, and the failures are reported together afterwards.
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

    /**
     * @param build    the report
     * @param registry the build's meters; written to {@link #metrics()} when it is a Prometheus registry
     * @throws OutputWriteException naming every file that could not be written
     */
    public void write(BuildReport build, MeterRegistry registry) throws OutputWriteException {
        List<String> failures = new ArrayList<>();
        attempt(failures, "the report", report, () -> new ReportWriter().write(build, report));
        if (metrics != null) {
            attempt(failures, "--metrics", metrics, () -> {
                if (!(registry instanceof PrometheusMeterRegistry prometheus)) {
                    throw new IOException("no Prometheus registry was given to record into");
                }
                PrometheusFile.write(prometheus, metrics);
            });
        }
        if (trace != null) {
            attempt(failures, "--trace", trace, () -> new ChromeTraceWriter().write(build, trace));
        }
        if (junit != null) {
            attempt(failures, "--junit", junit, () -> new JunitXmlWriter().write(build, junit));
        }
        if (html != null) {
            attempt(failures, "--html", html, () -> new HtmlReportWriter().write(build, html));
        }
        if (!failures.isEmpty()) {
            throw new OutputWriteException(String.join("; ", failures)
                    + " (the jobs' results are unaffected; check that the folder exists and is writable)");
        }
    }

    private interface Write {
        void run() throws IOException;
    }

    private static void attempt(List<String> failures, String what, Path file, Write write) {
        try {
            write.run();
        } catch (IOException e) {
            failures.add("cannot write " + what + " " + file + ": " + describe(e));
        }
    }

    /** What went wrong, in words: no exception class names. */
    private static String describe(IOException e) {
        if (e instanceof AccessDeniedException denied) {
            return "permission denied on " + denied.getFile();
        }
        if (e instanceof FileAlreadyExistsException exists) {
            return exists.getFile() + " is in the way: it is a file where a folder is needed";
        }
        if (e instanceof NoSuchFileException missing) {
            return "no such file or folder: " + missing.getFile();
        }
        if (e instanceof FileSystemException fs && fs.getReason() != null) {
            return fs.getReason() + (fs.getFile() == null ? "" : " (" + fs.getFile() + ")");
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }
}
