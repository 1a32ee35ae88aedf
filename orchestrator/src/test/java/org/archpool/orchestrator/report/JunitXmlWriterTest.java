package org.archpool.orchestrator.report;

import static org.archpool.orchestrator.report.ReportTestData.job;
import static org.archpool.orchestrator.report.ReportTestData.report;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import org.archpool.orchestrator.schedule.JobOutcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

class JunitXmlWriterTest {

    @TempDir
    Path dir;

    private final JunitXmlWriter writer = new JunitXmlWriter();

    /** What CI reporters read (src/test/resources/report/junit.xsd). */
    private static final Schema SCHEMA = loadSchema();

    private static Schema loadSchema() {
        try {
            return SchemaFactory.newDefaultInstance()
                    .newSchema(JunitXmlWriterTest.class.getResource("/report/junit.xsd"));
        } catch (SAXException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Parses with the JDK's DOM parser, as a CI reporter would read the file, and validates the document
     * against the reporters' schema.
     */
    private static Document parse(byte[] xml) {
        Document doc;
        try (InputStream in = new ByteArrayInputStream(xml)) {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newDefaultInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            doc = factory.newDocumentBuilder().parse(in);
        } catch (Exception e) {
            throw new AssertionError("not well-formed XML: " + e + "\n" + new String(xml, StandardCharsets.UTF_8), e);
        }
        try {
            SCHEMA.newValidator().validate(new StreamSource(new ByteArrayInputStream(xml)));
        } catch (Exception e) {
            throw new AssertionError("not valid JUnit XML: " + e + "\n" + new String(xml, StandardCharsets.UTF_8), e);
        }
        return doc;
    }

    private Document xml(BuildReport report) {
        return parse(xml(writer, report).getBytes(StandardCharsets.UTF_8));
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> out = new ArrayList<>();
        NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            if (nodes.item(i) instanceof Element e && (name == null || e.getTagName().equals(name))) {
                out.add(e);
            }
        }
        return out;
    }

    private static Element child(Element parent, String name) {
        List<Element> found = children(parent, name);
        assertThat(found).as("<%s> in <%s>", name, parent.getTagName()).hasSize(1);
        return found.get(0);
    }

    private static Element suite(Document doc) {
        return child(doc.getDocumentElement(), "testsuite");
    }

    private static Map<String, Element> testcases(Document doc) {
        Map<String, Element> byName = new LinkedHashMap<>();
        children(suite(doc), "testcase").forEach(t -> byName.put(t.getAttribute("name"), t));
        return byName;
    }

    private static Map<String, String> properties(Document doc) {
        Map<String, String> props = new LinkedHashMap<>();
        children(child(suite(doc), "properties"), "property")
                .forEach(p -> props.put(p.getAttribute("name"), p.getAttribute("value")));
        return props;
    }

    /** The one result element of a test case (failure, error, skipped), or null when it passed. */
    private static Element result(Element testcase) {
        List<Element> results = children(testcase, null).stream()
                .filter(e -> List.of("failure", "error", "skipped").contains(e.getTagName())).toList();
        assertThat(results).as("results of %s", testcase.getAttribute("name")).hasSizeLessThanOrEqualTo(1);
        return results.isEmpty() ? null : results.get(0);
    }

    private static String systemOut(Element testcase) {
        List<Element> out = children(testcase, "system-out");
        return out.isEmpty() ? null : out.get(0).getTextContent();
    }

    /** Counts and order that every reporter relies on; checked for every document the tests make. */
    private static void assertConsistent(Document doc, BuildReport report) {
        Element suites = doc.getDocumentElement();
        assertThat(suites.getTagName()).isEqualTo("testsuites");
        assertThat(suites.getAttribute("name")).isEqualTo("archpool");
        Element suite = suite(doc);
        List<Element> cases = children(suite, "testcase");
        assertThat(cases).hasSize(report.jobs().size());
        int failures = 0;
        int errors = 0;
        int skipped = 0;
        for (int i = 0; i < cases.size(); i++) {
            Element t = cases.get(i);
            JobOutcome j = report.jobs().get(i);
            assertThat(t.getAttribute("name")).isEqualTo(JunitXmlWriter.xmlSafe(j.id()));
            assertThat(t.getAttribute("classname")).isEqualTo("archpool." + j.kind());
            assertThat(Double.parseDouble(t.getAttribute("time"))).isEqualTo(j.totalMs() / 1000.0);
            Element result = result(t);
            String expected = switch (j.outcome()) {
                case SUCCEEDED -> null;
                case FAILED, TIMED_OUT -> "failure";
                case CRASHED -> "error";
                case CANCELLED, SKIPPED -> "skipped";
            };
            assertThat(result == null ? null : result.getTagName()).as("result of %s", j.id()).isEqualTo(expected);
            if (result != null) {
                failures += result.getTagName().equals("failure") ? 1 : 0;
                errors += result.getTagName().equals("error") ? 1 : 0;
                skipped += result.getTagName().equals("skipped") ? 1 : 0;
                assertThat(result.getAttribute("message")).isNotBlank();
                if (!result.getTagName().equals("skipped")) {
                    assertThat(result.getAttribute("type")).isEqualTo(j.outcome().wireName());
                }
            }
            if (j.logPath() != null) {
                assertThat(systemOut(t)).contains("log: " + j.logPath());
            }
        }
        for (Element e : List.of(suites, suite)) {
            assertThat(e.getAttribute("tests")).isEqualTo(Integer.toString(cases.size()));
            assertThat(e.getAttribute("failures")).isEqualTo(Integer.toString(failures));
            assertThat(e.getAttribute("errors")).isEqualTo(Integer.toString(errors));
            assertThat(e.getAttribute("skipped")).isEqualTo(Integer.toString(skipped));
            assertThat(Double.parseDouble(e.getAttribute("time"))).isEqualTo(report.durationMs() / 1000.0);
        }
    }

    @Test
    void everyOutcomeMapsToItsJunitResult() {
        BuildReport report = ReportTestData.realistic();
        Document doc = xml(report);
        assertConsistent(doc, report);

        Element suites = doc.getDocumentElement();
        assertThat(suites.getAttribute("tests")).isEqualTo("9");
        assertThat(suites.getAttribute("failures")).isEqualTo("2");
        assertThat(suites.getAttribute("errors")).isEqualTo("1");
        assertThat(suites.getAttribute("skipped")).isEqualTo("2");
        assertThat(suites.getAttribute("time")).isEqualTo("94.187");

        Element suite = suite(doc);
        assertThat(suite.getAttribute("name")).isEqualTo("archpool build quickstart/archpool.json");
        assertThat(suite.getAttribute("timestamp")).isEqualTo("2026-11-30T15:26:33");
        assertThat(suite.hasAttribute("hostname")).isFalse();
        assertThat(properties(doc)).containsEntry("platform", "cuda").containsEntry("archs", "80;90")
                .containsEntry("archpool.version", "0.1.0-test")
                .containsEntry("manifest", "/home/user/project/quickstart/archpool.json")
                .containsEntry("startedAt", "2026-11-30T15:26:33.719133762Z").containsEntry("exitCode", "1");

        Map<String, Element> cases = testcases(doc);
        assertThat(cases.keySet()).containsExactly("vector_add", "saxpy", "broken_kernel", "slow_kernel",
                "worker_killer", "retried_ok", "matmul", "histogram", "stencil1d");

        Element vectorAdd = cases.get("vector_add");
        assertThat(vectorAdd.getAttribute("classname")).isEqualTo("archpool.cmake");
        assertThat(vectorAdd.getAttribute("time")).isEqualTo("32.959");
        assertThat(result(vectorAdd)).isNull();
        assertThat(systemOut(vectorAdd)).contains("log: /home/user/project/.archpool/logs/vector_add.log",
                "worker: w1, attempts: 1",
                "phases: configure 16.427s (exit 0), build 10.271s (exit 0), inspect 0.078s",
                "artifact: /home/user/project/build/vector_add/libvector_add_kernels.so [compute_80 sm_80 compute_90 sm_90]");

        Element saxpy = cases.get("saxpy");
        assertThat(result(saxpy)).isNull();
        assertThat(systemOut(saxpy)).contains("warning: libsaxpy.so also holds sm_75, which was not requested");

        Element failure = result(cases.get("broken_kernel"));
        assertThat(failure.getTagName()).isEqualTo("failure");
        assertThat(failure.getAttribute("type")).isEqualTo("failed");
        assertThat(failure.getAttribute("message")).isEqualTo("build (cmake) exited with status 1");
        assertThat(failure.getTextContent())
                .isEqualTo("kernels.cu(3): error: identifier \"undeclared_value\" is undefined");

        Element timedOut = result(cases.get("slow_kernel"));
        assertThat(timedOut.getTagName()).isEqualTo("failure");
        assertThat(timedOut.getAttribute("type")).isEqualTo("timed_out");
        assertThat(timedOut.getAttribute("message")).isEqualTo("timed out in the command phase");
        assertThat(timedOut.getTextContent()).contains("#   pid 3542: /usr/bin/sleep 600");
        assertThat(cases.get("slow_kernel").getAttribute("classname")).isEqualTo("archpool.command");

        Element error = result(cases.get("worker_killer"));
        assertThat(error.getTagName()).isEqualTo("error");
        assertThat(error.getAttribute("type")).isEqualTo("crashed");
        assertThat(error.getAttribute("message")).startsWith("the infrastructure failed 2 time(s)");
        assertThat(error.getTextContent()).isEqualTo("attempt 1: worker w1 (pid 4242): worker closed its output\n"
                + "attempt 2: worker w1.2 (pid 4243): worker closed its output");

        Element retried = cases.get("retried_ok");
        assertThat(result(retried)).isNull();
        assertThat(systemOut(retried)).contains("worker: w10.2, attempts: 2",
                "attempt 1 failed: worker w10 (pid 4300): protocol error: not JSON");

        Element skipped = result(cases.get("histogram"));
        assertThat(skipped.getTagName()).isEqualTo("skipped");
        assertThat(skipped.getAttribute("message"))
                .isEqualTo("not started: the build was interrupted (SIGINT or SIGTERM)");
        assertThat(systemOut(cases.get("histogram"))).isEqualTo("not started (queue wait: 69.990s)");
    }

    @Test
    void logTailsWithMarkupTerminalEscapesAndAstralCharactersStayWellFormed() {
        String tail = "a <b> & c ]]> d ]]]]>>\n"
                + "\u001B[1mkernels.cu(3):\u001B[0m \u001B[31merror\u001B[0m: bad\r\n"
                + "\u001B]0;window title\u0007title gone \u001B(Bkeep\n"
                + "nul\u0000 bell\u0007 vt\u000B ff\u000C del\u007F nel\u0085 \uFFFE\uFFFF lone\uD800 \uDC00x\n"
                + "astral \uD83D\uDE80 \uD834\uDD1E \uDBFF\uDFFF tab\tend";
        String expectedTail = "a <b> & c ]]> d ]]]]>>\n"
                + "kernels.cu(3): error: bad\r\n"
                + "title gone keep\n"
                + "nul bell vt ff del\u007F nel\u0085  lone x\n"
                + "astral \uD83D\uDE80 \uD834\uDD1E \uDBFF\uDFFF tab\tend";
        String message = "exit 1: \"quoted\" 'single' <tag> & amp ]]>\nsecond\tline\r\u001B[31mred\u001B[0m";
        String expectedMessage = "exit 1: \"quoted\" 'single' <tag> & amp ]]>\nsecond\tline\rred";
        JobOutcome j = job("k").kind("command").outcome("failed").on("w1", 0).phase("command", 10, 1).exitCode(1)
                .message(message).logTail(tail).warning("warn <&> \u001B[33m]]>\u001B[0m").build();
        BuildReport report = report(List.of(j));

        String text = xml(writer, report);
        assertThat(text).doesNotContain("\u001B", "\u0000", "\u0007", "\uFFFE");
        Document doc = parse(text.getBytes(StandardCharsets.UTF_8));
        assertConsistent(doc, report);
        Element failure = result(testcases(doc).get("k"));
        assertThat(failure.getTextContent()).isEqualTo(expectedTail);
        assertThat(failure.getAttribute("message")).isEqualTo(expectedMessage); // newlines kept as &#10;
        assertThat(systemOut(testcases(doc).get("k"))).contains("warning: warn <&> ]]>");
    }

    @Test
    void idsWithQuotesAndUnicodeRoundTrip() {
        String id = "kern\"el's <é漢字\uD83D\uDE80> & co";
        JobOutcome j = job(id).outcome("crashed").on("w1", 0).total(5).message("worker w1 hung").build();
        Document doc = xml(report(List.of(j)));
        Element testcase = children(suite(doc), "testcase").get(0);
        assertThat(testcase.getAttribute("name")).isEqualTo(id);
        assertThat(result(testcase).getTextContent()).isEqualTo("worker w1 hung"); // no attempt failures, no log
    }

    @Test
    void xmlSafeStripsWhatXml10Forbids() {
        assertThat(JunitXmlWriter.xmlSafe("\u001B[38;5;196mred\u001B[0m \u001B[2K\u001B[1Gline")).isEqualTo("red line");
        assertThat(JunitXmlWriter.xmlSafe("tab\tlf\ncr\r")).isEqualTo("tab\tlf\ncr\r");
        assertThat(JunitXmlWriter.xmlSafe("a\u0001\u001F\u0000b")).isEqualTo("ab");
        assertThat(JunitXmlWriter.xmlSafe("trailing escape \u001B")).isEqualTo("trailing escape ");
        assertThat(JunitXmlWriter.xmlSafe("\uD83D\uDE80\uD83D")).isEqualTo("\uD83D\uDE80");
        assertThat(JunitXmlWriter.xmlSafe(null)).isEmpty();
    }

    @Test
    void hostnameOnlyWhenGiven() {
        BuildReport report = report(List.of(job("a").on("w1", 0).phase("build", 1, 0).build()));
        Element suite = suite(parse(xml(new JunitXmlWriter("ci-runner-7"), report).getBytes(StandardCharsets.UTF_8)));
        assertThat(suite.getAttribute("hostname")).isEqualTo("ci-runner-7");
    }

    @Test
    void writeIsAtomicUtf8AndReplacesTheFile() throws IOException {
        Path file = dir.resolve("junit.xml");
        Files.writeString(file, "old");
        BuildReport report = ReportTestData.realistic();
        writer.write(report, file);
        byte[] bytes = Files.readAllBytes(file);
        assertThat(new String(bytes, StandardCharsets.UTF_8))
                .startsWith("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites ");
        assertConsistent(parse(bytes), report);
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("junit.xml");
        }
    }

    @Test
    void aBuildWithoutJobsIsAnEmptySuite() {
        BuildReport report = report(List.of());
        Document doc = xml(report);
        assertConsistent(doc, report);
        assertThat(suite(doc).getAttribute("tests")).isEqualTo("0");
    }

    static List<String> realReports() {
        return ReportTestData.REAL;
    }

    /** Reports written by the real tool (see ReportTestData). */
    @ParameterizedTest
    @MethodSource("realReports")
    void realReportsGiveConsistentDocuments(String name) {
        BuildReport report = ReportTestData.load(name);
        assertConsistent(xml(report), report);
    }

    @Test
    void realFailedCompilerOutputLosesItsColoursButNotItsText() {
        BuildReport report = ReportTestData.load(ReportTestData.MIXED);
        assertThat(report.jobs().get(1).logTail()).contains("\u001B[31m"); // what the compiler printed
        Document doc = xml(report);
        Element suites = doc.getDocumentElement();
        assertThat(suites.getAttribute("failures")).isEqualTo("3"); // failed, timed_out, killed by SIGSEGV
        assertThat(suites.getAttribute("errors")).isEqualTo("1");   // the worker killer, after 2 attempts
        Map<String, Element> cases = testcases(doc);
        Element failure = result(cases.get("broken_kernel"));
        // the log echoes the command line (with a literal \033[31m), then the compiler's coloured line, cleaned
        assertThat(failure.getTextContent().lines())
                .contains("kernels.cu(3): error: identifier \"undeclared_value\" is undefined <&> ]]>");
        assertThat(failure.getTextContent()).doesNotContain("\u001B");
        assertThat(result(cases.get("segv_compiler")).getAttribute("message")).contains("SIGSEGV");
        assertThat(result(cases.get("worker_killer")).getTextContent()).startsWith("attempt 1: worker w2 (pid ")
                .contains("\nattempt 2: worker w2.2 (pid ");
        assertThat(result(cases.get("hello_cmd"))).isNull();
    }

    @Test
    void realBuildStoppedByAFailureSkipsTheRest() {
        Document doc = xml(ReportTestData.load(ReportTestData.STOP_ON_FAILURE));
        assertThat(suite(doc).getAttribute("name")).isEqualTo("archpool build stop-on-failure/archpool.json");
        Map<String, Element> cases = testcases(doc);
        assertThat(result(cases.get("never_a")).getAttribute("message"))
                .isEqualTo("not started: job 'broken_kernel' failed and --keep-going is off");
        assertThat(systemOut(cases.get("extra_arch"))).contains("warning: k.o also holds sm_80, which was not requested",
                "artifact: /home/user/stop-on-failure/k.o [compute_90 sm_90 sm_80]");
        assertThat(doc.getDocumentElement().getAttribute("skipped")).isEqualTo("2");
    }

    @Test
    void realQuickstartPassesWithTimesInSeconds() {
        Document doc = xml(ReportTestData.load(ReportTestData.QUICKSTART));
        assertThat(doc.getDocumentElement().getAttribute("failures")).isEqualTo("0");
        assertThat(doc.getDocumentElement().getAttribute("time")).isEqualTo("94.187");
        assertThat(testcases(doc).get("vector_add").getAttribute("time")).isEqualTo("32.959");
        assertThat(properties(doc)).containsEntry("platform", "cuda").containsEntry("archs", "90");
        Node first = suite(doc).getFirstChild();
        while (first != null && !(first instanceof Element)) {
            first = first.getNextSibling();
        }
        assertThat(((Element) first).getTagName()).isEqualTo("properties"); // before the test cases
    }

    /** The XML document as text, as {@link JunitXmlWriter#writeTo} streams it. */
    private static String xml(JunitXmlWriter writer, BuildReport report) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            writer.writeTo(report, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
