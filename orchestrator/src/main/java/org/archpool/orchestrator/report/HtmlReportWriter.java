package org.archpool.orchestrator.report;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.BufferedWriter;
import java.io.FilterWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.archpool.orchestrator.output.AtomicFile;

/**
 * Writes a build report as one self-contained HTML page ({@code archpool build --html FILE}): a summary, a
 * sortable job table, a timeline of jobs on workers and the failures' details. The page loads nothing: its CSS
 * and JavaScript (resources beside this class) are inlined, and the report itself is embedded as JSON in
 * {@code <script type="application/json" id="archpool-report">}, from which the script draws the page. The
 * script inserts data only as text, never as markup, so job ids and log tails cannot inject anything. The page
 * is streamed: the report's JSON goes straight from the outcomes to the file, never held as text.
 */
public final class HtmlReportWriter {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([A-Z]+)}}");

    private final ObjectMapper mapper = JsonMapper.builder()
            .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)
            .build();

    /** Writes the page atomically, readable by everyone ({@link AtomicFile}). */
    public void write(BuildReport report, Path file) throws IOException {
        AtomicFile.write(file, out -> writeTo(report, out));
    }

    /** Writes the page to {@code out} in UTF-8, leaving {@code out} open. */
    public void writeTo(BuildReport report, OutputStream out) throws IOException {
        Writer text = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
        writeTo(report, text);
        text.flush();
    }

    private void writeTo(BuildReport report, Writer out) throws IOException {
        String manifest = report.manifest() == null ? "" : report.manifest();
        String name = manifest.substring(Math.max(manifest.lastIndexOf('/'), manifest.lastIndexOf('\\')) + 1);
        String title = "archpool report" + (name.isEmpty() ? "" : " \u2014 " + name);
        String subtitle = manifest + (report.startedAt() == null ? "" : " \u00b7 started " + report.startedAt());
        Map<String, String> values = Map.of(
                "TITLE", escapeHtml(title),
                "SUBTITLE", escapeHtml(subtitle),
                "VERSION", escapeHtml(String.valueOf(report.archpoolVersion())),
                "CSS", Assets.CSS,
                "JS", Assets.JS);
        // one pass, so that nothing substituted is itself scanned for placeholders
        Matcher m = PLACEHOLDER.matcher(Assets.TEMPLATE);
        int from = 0;
        while (m.find()) {
            out.write(Assets.TEMPLATE, from, m.start() - from);
            from = m.end();
            if (m.group(1).equals("DATA")) {
                mapper.writeValue(new ScriptSafeWriter(out), report);
                continue;
            }
            String value = values.get(m.group(1));
            if (value == null) {
                throw new IllegalStateException("report.html has an unknown placeholder " + m.group());
            }
            out.write(value);
        }
        out.write(Assets.TEMPLATE, from, Assets.TEMPLATE.length() - from);
    }

    /**
     * JSON that can sit inside a {@code <script>} element: {@code <}, {@code >} and {@code &} only occur inside
     * JSON strings, where their {@code \}{@code uXXXX} escapes mean the same, so {@code </script>} and
     * {@code <!--} cannot appear; U+2028/U+2029 are escaped too, for older JavaScript parsers.
     */
    static String scriptSafeJson(String json) {
        StringBuilder out = new StringBuilder(json.length() + 64);
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            switch (c) {
                case '<' -> out.append("\\u003c");
                case '>' -> out.append("\\u003e");
                case '&' -> out.append("\\u0026");
                case '\u2028' -> out.append("\\u2028");
                case '\u2029' -> out.append("\\u2029");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    /** Passes JSON text on with the escapes of {@link #scriptSafeJson}, as it is written. */
    private static final class ScriptSafeWriter extends FilterWriter {

        ScriptSafeWriter(Writer out) {
            super(out);
        }

        @Override
        public void write(int c) throws IOException {
            String escape = escape((char) c);
            if (escape == null) {
                out.write(c);
            } else {
                out.write(escape);
            }
        }

        @Override
        public void write(char[] chars, int off, int len) throws IOException {
            int from = off;
            for (int i = off; i < off + len; i++) {
                String escape = escape(chars[i]);
                if (escape != null) {
                    out.write(chars, from, i - from);
                    out.write(escape);
                    from = i + 1;
                }
            }
            out.write(chars, from, off + len - from);
        }

        @Override
        public void write(String s, int off, int len) throws IOException {
            int from = off;
            for (int i = off; i < off + len; i++) {
                String escape = escape(s.charAt(i));
                if (escape != null) {
                    out.write(s, from, i - from);
                    out.write(escape);
                    from = i + 1;
                }
            }
            out.write(s, from, off + len - from);
        }

        @Override
        public void close() throws IOException {
            flush(); // the page goes on after the data
        }

        private static String escape(char c) {
            return switch (c) {
                case '<' -> "\\u003c";
                case '>' -> "\\u003e";
                case '&' -> "\\u0026";
                case '\u2028' -> "\\u2028";
                case '\u2029' -> "\\u2029";
                default -> null;
            };
        }
    }

    static String escapeHtml(String text) {
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    /** The page's template, style and script, read once from the class path. */
    private static final class Assets {
        static final String TEMPLATE = load("report.html");
        static final String CSS = load("report.css");
        static final String JS = load("report.js");

        private static String load(String name) {
            try (InputStream in = HtmlReportWriter.class.getResourceAsStream(name)) {
                if (in == null) {
                    throw new IllegalStateException("missing resource " + name + " beside "
                            + HtmlReportWriter.class.getName());
                }
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
