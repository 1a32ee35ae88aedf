package org.archpool.orchestrator.report;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.archpool.orchestrator.output.AtomicFile;
import org.archpool.orchestrator.schedule.JobOutcome;
import org.archpool.protocol.Artifact;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.PhaseTiming;

/**
 * Writes a build as JUnit XML ({@code --junit}), the dialect the Jenkins JUnit plugin, GitLab's {@code
 * artifacts:reports:junit} and GitHub test-report actions read: one {@code <testsuites name="archpool">} holding
 * one {@code <testsuite name="archpool build <folder>/<manifest file>">} with {@code tests}, {@code failures},
 * {@code errors}, {@code skipped}, {@code time} (seconds), {@code timestamp} (the build's start, UTC, to the
 * second, without a zone as the schema wants it) and, when given, {@code hostname}; its {@code <properties>}
 * (platform, archs, archpool.version, manifest, startedAt, exitCode, …); and one {@code <testcase name="<job id>"
 * classname="archpool.<kind>" time="<totalMs/1000>">} per job, in report order:
 * <ul>
 *   <li>{@code failed} and {@code timed_out}: {@code <failure message="<message>" type="failed|timed_out">}
 *       with the log tail as text;</li>
 *   <li>{@code crashed}: {@code <error message="<message>" type="crashed">} with each attempt's failure and the
 *       log tail, if any;</li>
 *   <li>{@code cancelled} and {@code skipped}: {@code <skipped message="<message>"/>};</li>
 *   <li>every job: a {@code <system-out>} with the log path, worker and attempts, phase timings, artifacts and
 *       their architectures, warnings and earlier attempts' failures.</li>
 * </ul>
 * The document is streamed element by element ({@link XmlStream}), never held whole, so markup in ids, messages
 * and logs is escaped (and newlines in attributes kept as {@code &#10;}) and 100,000 jobs take no more memory
 * than one. Text is first made legal XML 1.0: terminal
 * escape sequences (colours from compiler output, e.g. {@code ESC[31m}) are removed, then every character XML
 * 1.0 forbids (control characters other than tab, CR and LF; unpaired surrogates; U+FFFE, U+FFFF).
 */
public final class JunitXmlWriter {

    /** CSI ({@code ESC [ … final}), OSC ({@code ESC ] … BEL|ESC \}) and two-character escape sequences. */
    private static final Pattern TERMINAL_ESCAPES = Pattern.compile(
            "\u001B\\[[0-?]*[ -/]*[@-~]|\u001B\\][^\u0007\u001B\n]*(?:\u0007|\u001B\\\\)?|\u001B[ -/]*[0-~]");

    private final String hostname;

    /** A writer that leaves out {@code hostname} (the report does not record where the build ran). */
    public JunitXmlWriter() {
        this(null);
    }

    /** @param hostname the {@code testsuite}'s {@code hostname} attribute, or null to leave it out */
    public JunitXmlWriter(String hostname) {
        this.hostname = hostname;
    }

    /** Writes the JUnit XML of {@code report} to {@code file} atomically ({@link AtomicFile}), in UTF-8. */
    public void write(BuildReport report, Path file) throws IOException {
        AtomicFile.write(file, out -> writeTo(report, out));
    }

    /** Writes the JUnit XML of {@code report} to {@code out} in UTF-8, leaving {@code out} open. */
    public void writeTo(BuildReport report, OutputStream out) throws IOException {
        Writer text = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
        writeTo(report, text);
        text.flush();
    }

    private void writeTo(BuildReport report, Writer text) throws IOException {
        XmlStream xml = new XmlStream(text);
        List<JobOutcome> jobs = report.jobs() == null ? List.of() : report.jobs();
        int failures = count(jobs, Outcome.FAILED) + count(jobs, Outcome.TIMED_OUT);
        int errors = count(jobs, Outcome.CRASHED);
        int skipped = count(jobs, Outcome.CANCELLED) + count(jobs, Outcome.SKIPPED);
        String time = seconds(report.durationMs());

        xml.start("testsuites");
        attr(xml, "name", "archpool");
        counts(xml, jobs.size(), failures, errors, skipped, time);

        xml.start("testsuite");
        attr(xml, "name", "archpool build " + manifestName(report.manifest()));
        counts(xml, jobs.size(), failures, errors, skipped, time);
        String timestamp = timestamp(report.startedAt());
        if (timestamp != null) {
            attr(xml, "timestamp", timestamp);
        }
        if (hostname != null) {
            attr(xml, "hostname", hostname);
        }

        xml.start("properties");
        boolean several = report.gpuTargets().size() > 1;
        if (!several && report.resolution() != null) {
            if (report.resolution().platform() != null) {
                property(xml, "platform", report.resolution().platform().wireName());
            }
            property(xml, "archs", String.join(";", report.resolution().archs()));
            property(xml, "archs.source", report.resolution().source());
        }
        if (several) {
            // one set per target, named by its platform
            for (BuildReport.TargetEntry t : report.gpuTargets()) {
                String platform = t.resolution().platform().wireName();
                property(xml, "archs." + platform, String.join(";", t.resolution().archs()));
                property(xml, "archs." + platform + ".source", t.resolution().source());
            }
        }
        property(xml, "archpool.version", report.archpoolVersion());
        property(xml, "manifest", report.manifest());
        property(xml, "startedAt", report.startedAt());
        property(xml, "exitCode", Integer.toString(report.exitCode()));
        if (report.pool() != null) {
            property(xml, "pool.mode", report.pool().mode());
            property(xml, "pool.launcher", report.pool().launcher());
            property(xml, "pool.workers", Integer.toString(report.pool().workers()));
        }
        xml.end();

        for (JobOutcome j : jobs) {
            testcase(xml, j, several);
        }
        xml.end();
        xml.end();
        xml.finish();
    }

    /** @param several whether the run has several targets: each case is then named {@code id[platform]} */
    private static void testcase(XmlStream xml, JobOutcome j, boolean several) throws IOException {
        xml.start("testcase");
        attr(xml, "name", several && j.target() != null
                ? j.id() + "[" + j.target().platform().wireName() + "]" : j.id());
        attr(xml, "classname", "archpool." + (j.kind() == null ? "job" : j.kind()));
        attr(xml, "time", seconds(j.totalMs()));
        Outcome outcome = j.outcome() == null ? Outcome.CRASHED : j.outcome();
        String message = j.message() != null ? j.message() : "job " + j.id() + " " + outcome.wireName();
        switch (outcome) {
            case FAILED, TIMED_OUT -> {
                xml.start("failure");
                attr(xml, "message", message);
                attr(xml, "type", outcome.wireName());
                text(xml, j.logTail() != null && !j.logTail().isBlank() ? j.logTail() : message);
            }
            case CRASHED -> {
                xml.start("error");
                attr(xml, "message", message);
                attr(xml, "type", outcome.wireName());
                List<String> body = new ArrayList<>();
                for (int i = 0; i < j.attemptFailures().size(); i++) {
                    body.add("attempt " + (i + 1) + ": " + j.attemptFailures().get(i));
                }
                if (j.logTail() != null && !j.logTail().isBlank()) {
                    body.add(j.logTail());
                }
                text(xml, body.isEmpty() ? message : String.join("\n", body));
            }
            case CANCELLED, SKIPPED -> {
                xml.start("skipped");
                attr(xml, "message", message);
                xml.end();
            }
            case SUCCEEDED -> {
                // passed: nothing but system-out
            }
        }
        String out = systemOut(j, outcome);
        if (!out.isEmpty()) {
            xml.start("system-out");
            text(xml, out);
        }
        xml.end();
    }

    private static String systemOut(JobOutcome j, Outcome outcome) {
        List<String> lines = new ArrayList<>();
        if (j.logPath() != null) {
            lines.add("log: " + j.logPath());
        }
        if (j.worker() != null) {
            lines.add("worker: " + j.worker() + ", attempts: " + j.attempts() + ", queue wait: "
                    + seconds(j.queueWaitMs()) + "s");
        } else {
            lines.add("not started (queue wait: " + seconds(j.queueWaitMs()) + "s)");
        }
        if (!j.phases().isEmpty()) {
            lines.add("phases: " + j.phases().stream().map(JunitXmlWriter::phase).collect(Collectors.joining(", ")));
        }
        for (Artifact a : j.artifacts()) {
            lines.add("artifact: " + a.path() + " [" + String.join(" ", a.archs()) + "]"
                    + (a.problem() == null ? "" : " (" + a.problem() + ")"));
        }
        j.warnings().forEach(w -> lines.add("warning: " + w));
        if (outcome != Outcome.CRASHED) { // a crashed job's error already lists them
            for (int i = 0; i < j.attemptFailures().size(); i++) {
                lines.add("attempt " + (i + 1) + " failed: " + j.attemptFailures().get(i));
            }
        }
        return String.join("\n", lines);
    }

    private static String phase(PhaseTiming p) {
        return p.name().wireName() + " " + seconds(p.ms()) + "s" + (p.exitCode() == null ? "" : " (exit " + p.exitCode() + ")");
    }

    private static int count(List<JobOutcome> jobs, Outcome outcome) {
        return (int) jobs.stream().filter(j -> j.outcome() == outcome).count();
    }

    private static void counts(XmlStream xml, int tests, int failures, int errors, int skipped, String time) {
        attr(xml, "tests", Integer.toString(tests));
        attr(xml, "failures", Integer.toString(failures));
        attr(xml, "errors", Integer.toString(errors));
        attr(xml, "skipped", Integer.toString(skipped));
        attr(xml, "time", time);
    }

    private static void property(XmlStream xml, String name, String value) throws IOException {
        if (value == null) {
            return;
        }
        xml.start("property");
        attr(xml, "name", name);
        attr(xml, "value", value);
        xml.end();
    }

    private static void attr(XmlStream xml, String name, String value) {
        xml.attr(name, xmlSafe(value));
    }

    /** The element just started gets {@code value} as its text, and ends. */
    private static void text(XmlStream xml, String value) throws IOException {
        xml.textElement(xmlSafe(value));
    }

    /** Seconds with millisecond precision, e.g. {@code 32.959}. */
    static String seconds(long ms) {
        return String.format(Locale.ROOT, "%.3f", Math.max(0, ms) / 1000.0);
    }

    /** {@code <parent folder>/<file>} of the manifest path, e.g. {@code quickstart/archpool.json}. */
    static String manifestName(String manifest) {
        if (manifest == null || manifest.isBlank()) {
            return "(unknown manifest)";
        }
        String[] parts = manifest.split("[/\\\\]+");
        List<String> named = new ArrayList<>();
        for (String part : parts) {
            if (!part.isEmpty()) {
                named.add(part);
            }
        }
        if (named.isEmpty()) {
            return manifest;
        }
        return named.size() == 1 ? named.get(0) : named.get(named.size() - 2) + "/" + named.get(named.size() - 1);
    }

    /** The report's ISO-8601 instant as the JUnit schema's zone-less {@code xs:dateTime} in UTC, or null. */
    static String timestamp(String startedAt) {
        if (startedAt == null) {
            return null;
        }
        try {
            return LocalDateTime.ofInstant(Instant.parse(startedAt).truncatedTo(ChronoUnit.SECONDS), ZoneOffset.UTC)
                    .toString();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /**
     * {@code s} as legal XML 1.0 character data: terminal escape sequences removed, then every character XML 1.0
     * does not allow (controls other than tab, LF and CR, unpaired surrogates, U+FFFE and U+FFFF).
     */
    static String xmlSafe(String s) {
        if (s == null) {
            return "";
        }
        String noEscapes = s.indexOf('\u001B') < 0 ? s : TERMINAL_ESCAPES.matcher(s).replaceAll("");
        StringBuilder out = new StringBuilder(noEscapes.length());
        noEscapes.codePoints().filter(JunitXmlWriter::legalXml10).forEach(out::appendCodePoint);
        return out.toString();
    }

    private static boolean legalXml10(int c) {
        return c == 0x9 || c == 0xA || c == 0xD
                || (c >= 0x20 && c <= 0xD7FF)
                || (c >= 0xE000 && c <= 0xFFFD)
                || (c >= 0x10000 && c <= 0x10FFFF);
    }
}
