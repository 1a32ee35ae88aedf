package org.archpool.protocol.codec;

import java.util.Arrays;
import java.util.function.Function;
import org.archpool.protocol.Artifact;
import org.archpool.protocol.BuildRequest;
import org.archpool.protocol.BuildResult;
import org.archpool.protocol.Cancel;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.CommandJob;
import org.archpool.protocol.Hello;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Message;
import org.archpool.protocol.Outcome;
import org.archpool.protocol.Phase;
import org.archpool.protocol.PhaseTiming;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Progress;
import org.archpool.protocol.Shutdown;
import org.archpool.protocol.Step;
import org.archpool.protocol.Target;

/**
 * Turns the fields of one line into its message, field by field as docs/protocol.md lists them. The
 * messages' own constructors check what each value may be; this class checks the JSON types.
 */
final class MessageDecoder {

    /** The outcomes a worker may answer: {@code skipped} is the coordinator's alone. */
    private static final Outcome[] ANSWERS = Arrays.stream(Outcome.values()).filter(o -> o != Outcome.SKIPPED)
            .toArray(Outcome[]::new);

    /** Thrown for a {@code type} that is missing or names no message. */
    static final class UnknownTypeException extends IllegalArgumentException {
        UnknownTypeException(String message) {
            super(message);
        }
    }

    Message decode(WireObject line) {
        String type = line.string("type");
        if (type == null) {
            throw new UnknownTypeException("unknown or missing message type");
        }
        WireObject m = line.named(type);
        return switch (type) {
            case "hello" -> new Hello(m.intNumber("protocolVersion", 0), m.string("workerId"), m.number("pid", 0),
                    m.string("host"), m.string("javaVersion"));
            case "build" -> new BuildRequest(m.string("requestId"), job(m.object("job")), target(m.object("target")),
                    m.objects("steps", MessageDecoder::step), m.number("timeoutMs", 0), m.string("logPath"),
                    m.optionalNumber("maxLogBytes"));
            case "progress" -> new Progress(m.string("requestId"), phase(m.string("phase")));
            case "result" -> new BuildResult(m.string("requestId"), outcome(m.string("outcome")),
                    m.optionalInt("exitCode"), m.string("signal"), m.objects("phases", MessageDecoder::phaseTiming),
                    m.objects("artifacts", MessageDecoder::artifact), m.string("logPath"), m.string("logTail"),
                    m.string("message"));
            case "cancel" -> new Cancel(m.string("requestId"));
            case "shutdown" -> new Shutdown();
            default -> throw new UnknownTypeException("unknown or missing message type");
        };
    }

    private static JobSpec job(WireObject job) {
        if (job == null) {
            return null;
        }
        String kind = job.string("kind");
        if ("cmake".equals(kind)) {
            return new CmakeJob(job.string("id"), job.string("sourceDir"), job.string("buildDir"),
                    job.string("generator"), job.string("buildType"), job.stringMap("defines"),
                    job.strings("configureArgs"), job.strings("buildArgs"), job.strings("targets"),
                    job.stringMap("env"), job.optionalNumber("timeoutMs"), job.strings("artifacts"));
        }
        if ("command".equals(kind)) {
            return new CommandJob(job.string("id"), job.strings("argv"), job.string("cwd"), job.stringMap("env"),
                    job.optionalNumber("timeoutMs"), job.strings("artifacts"), job.strings("inputs"));
        }
        throw new IllegalArgumentException("build.job.kind must be cmake or command, not "
                + (kind == null ? "missing" : "'" + kind + "'"));
    }

    private static Target target(WireObject target) {
        if (target == null) {
            return null;
        }
        String platform = target.string("platform");
        return new Target(platform == null ? null : Platform.fromWire(platform), target.strings("archs"));
    }

    private static Step step(WireObject s) {
        return new Step(phase(s.string("phase")), s.strings("argv"), s.string("cwd"), s.stringMap("env"));
    }

    private static PhaseTiming phaseTiming(WireObject p) {
        return new PhaseTiming(phase(p.string("name")), p.number("ms", 0), p.optionalInt("exitCode"));
    }

    private static Artifact artifact(WireObject a) {
        return new Artifact(a.string("path"), a.strings("archs"), a.string("problem"), a.strings("hostcallKernels"));
    }

    private static Phase phase(String name) {
        return name == null ? null : byWireName(Phase.values(), name, "phase", Phase::wireName);
    }

    private static Outcome outcome(String name) {
        return name == null ? null : byWireName(ANSWERS, name, "outcome", Outcome::wireName);
    }

    private static <E extends Enum<E>> E byWireName(E[] values, String name, String what,
                                                    Function<E, String> wire) {
        for (E e : values) {
            if (wire.apply(e).equals(name)) {
                return e;
            }
        }
        throw new IllegalArgumentException("unknown " + what + " '" + name + "'");
    }
}
