package org.archpool.protocol.codec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.archpool.protocol.Artifact;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.Cancel;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.Hello;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Message;
import org.archpool.protocol.PhaseTiming;
import org.archpool.protocol.Progress;
import org.archpool.protocol.Shutdown;
import org.archpool.protocol.Step;
import org.archpool.protocol.Target;

/**
 * Writes a message as one JSON object with Jackson's streaming generator: {@code type} first, then the
 * fields in the order docs/protocol.md lists them; absent (null) values are left out, and so is an empty
 * {@code hostcallKernels}.
 */
final class MessageEncoder {

    private final JsonFactory json;

    MessageEncoder(JsonFactory json) {
        this.json = json;
    }

    byte[] encode(Message message) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (JsonGenerator g = json.createGenerator(bytes)) {
            g.writeStartObject();
            if (message instanceof Hello h) {
                g.writeStringField("type", "hello");
                g.writeNumberField("protocolVersion", h.protocolVersion());
                g.writeStringField("workerId", h.workerId());
                g.writeNumberField("pid", h.pid());
                optional(g, "host", h.host());
                optional(g, "javaVersion", h.javaVersion());
            } else if (message instanceof BuildRequest b) {
                g.writeStringField("type", "build");
                g.writeStringField("requestId", b.requestId());
                g.writeFieldName("job");
                job(g, b.job());
                g.writeFieldName("target");
                target(g, b.target());
                g.writeArrayFieldStart("steps");
                for (Step step : b.steps()) {
                    step(g, step);
                }
                g.writeEndArray();
                g.writeNumberField("timeoutMs", b.timeoutMs());
                g.writeStringField("logPath", b.logPath());
                if (b.maxLogBytes() != null) {
                    g.writeNumberField("maxLogBytes", b.maxLogBytes());
                }
            } else if (message instanceof Progress p) {
                g.writeStringField("type", "progress");
                g.writeStringField("requestId", p.requestId());
                g.writeStringField("phase", p.phase().wireName());
            } else if (message instanceof BuildResult r) {
                result(g, r);
            } else if (message instanceof Cancel c) {
                g.writeStringField("type", "cancel");
                g.writeStringField("requestId", c.requestId());
            } else if (message instanceof Shutdown) {
                g.writeStringField("type", "shutdown");
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode " + message.getClass().getSimpleName(), e);
        }
        return bytes.toByteArray();
    }

    private static void result(JsonGenerator g, BuildResult r) throws IOException {
        g.writeStringField("type", "result");
        g.writeStringField("requestId", r.requestId());
        g.writeStringField("outcome", r.outcome().wireName());
        if (r.exitCode() != null) {
            g.writeNumberField("exitCode", r.exitCode());
        }
        optional(g, "signal", r.signal());
        g.writeArrayFieldStart("phases");
        for (PhaseTiming p : r.phases()) {
            g.writeStartObject();
            g.writeStringField("name", p.name().wireName());
            g.writeNumberField("ms", p.ms());
            if (p.exitCode() != null) {
                g.writeNumberField("exitCode", p.exitCode());
            }
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("artifacts");
        for (Artifact a : r.artifacts()) {
            g.writeStartObject();
            g.writeStringField("path", a.path());
            strings(g, "archs", a.archs());
            optional(g, "problem", a.problem());
            if (!a.hostcallKernels().isEmpty()) {
                strings(g, "hostcallKernels", a.hostcallKernels());
            }
            g.writeEndObject();
        }
        g.writeEndArray();
        optional(g, "logPath", r.logPath());
        optional(g, "logTail", r.logTail());
        optional(g, "message", r.message());
    }

    private static void job(JsonGenerator g, JobSpec job) throws IOException {
        g.writeStartObject();
        g.writeStringField("kind", job.kind());
        if (job instanceof CmakeJob c) {
            g.writeStringField("id", c.id());
            g.writeStringField("sourceDir", c.sourceDir());
            g.writeStringField("buildDir", c.buildDir());
            g.writeStringField("generator", c.generator());
            optional(g, "buildType", c.buildType());
            stringMap(g, "defines", c.defines());
            strings(g, "configureArgs", c.configureArgs());
            strings(g, "buildArgs", c.buildArgs());
            strings(g, "targets", c.targets());
        } else if (job instanceof CommandJob c) {
            g.writeStringField("id", c.id());
            strings(g, "argv", c.argv());
            g.writeStringField("cwd", c.cwd());
        }
        stringMap(g, "env", job.env());
        if (job.timeoutMs() != null) {
            g.writeNumberField("timeoutMs", job.timeoutMs());
        }
        strings(g, "artifacts", job.artifacts());
        if (job instanceof CommandJob c && c.inputs() != null) {
            strings(g, "inputs", c.inputs());
        }
        g.writeEndObject();
    }

    private static void step(JsonGenerator g, Step step) throws IOException {
        g.writeStartObject();
        g.writeStringField("phase", step.phase().wireName());
        strings(g, "argv", step.argv());
        g.writeStringField("cwd", step.cwd());
        stringMap(g, "env", step.env());
        g.writeEndObject();
    }

    private static void target(JsonGenerator g, Target target) throws IOException {
        g.writeStartObject();
        g.writeStringField("platform", target.platform().wireName());
        strings(g, "archs", target.archs());
        g.writeEndObject();
    }

    private static void optional(JsonGenerator g, String name, String value) throws IOException {
        if (value != null) {
            g.writeStringField(name, value);
        }
    }

    private static void strings(JsonGenerator g, String name, List<String> values) throws IOException {
        g.writeArrayFieldStart(name);
        for (String v : values) {
            g.writeString(v);
        }
        g.writeEndArray();
    }

    private static void stringMap(JsonGenerator g, String name, Map<String, String> values) throws IOException {
        g.writeObjectFieldStart(name);
        for (Map.Entry<String, String> e : values.entrySet()) {
            g.writeStringField(e.getKey(), e.getValue());
        }
        g.writeEndObject();
    }
}
