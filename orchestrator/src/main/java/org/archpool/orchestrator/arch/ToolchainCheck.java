package org.archpool.orchestrator.arch;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.archpool.orchestrator.tool.ToolOutput;
import org.archpool.orchestrator.tool.ToolRunner;
import org.archpool.protocol.Platform;
import org.archpool.worker.exec.Executables;

/**
 * Asks the compiler, once and before any job starts, whether it can build each resolved architecture, so
 * that an unsupported target (say {@code 70} with CUDA 13) fails once with a clear message instead of
 * failing every job the same way.
 * <ul>
 *   <li>CUDA: {@code $CUDACXX} or {@code nvcc} from the PATH, with {@code --list-gpu-code} (real targets) and
 *       {@code --list-gpu-arch} (virtual targets).</li>
 *   <li>HIP: {@code $HIPCXX}, else {@code hipcc}, else {@code clang++} from the PATH: one driver dry run
 *       ({@code -###}) per target, which rejects a target the compiler does not know.</li>
 * </ul>
 * A compiler that cannot be found is not an error here (the jobs may name their own); the probe report says
 * the check was skipped.
 */
public final class ToolchainCheck {

    private static final Pattern CUDA = Pattern.compile("(\\d+)([af]?)(-real|-virtual)?");

    /**
     * What the check did: its probes, and the targets the compiler refused (empty when all are fine).
     *
     * @param builds for CUDA, the real architectures nvcc builds ({@code 75}, {@code 90}, … from
     *               {@code --list-gpu-code}), which {@code all} and {@code all-major} stand for; empty for HIP or when
     *               nvcc could not be asked
     */
    public record Result(List<ProbeReport> probes, List<String> refused, String compiler,
                         @JsonIgnore List<String> builds) {
        public Result {
            probes = List.copyOf(probes);
            refused = List.copyOf(refused);
            builds = builds == null ? List.of() : List.copyOf(builds);
        }

        public Result(List<ProbeReport> probes, List<String> refused, String compiler) {
            this(probes, refused, compiler, List.of());
        }
    }

    private final ToolRunner runner;
    private final Map<String, String> environment;
    private final Duration timeout;

    public ToolchainCheck(ToolRunner runner, Map<String, String> environment, Duration timeout) {
        this.runner = runner;
        this.environment = Map.copyOf(environment);
        this.timeout = timeout;
    }

    public Result check(Platform platform, List<String> archs) {
        return platform == Platform.CUDA ? checkCuda(archs) : checkHip(archs);
    }

    /** Throws when the compiler refused a target; the message names it, what the compiler said, and the fix. */
    public static void requireSupported(Result result, Platform platform) throws ArchResolutionException {
        if (result.refused().isEmpty()) {
            return;
        }
        String variable = platform == Platform.CUDA ? "CUDACXX" : "HIPCXX";
        throw new ArchResolutionException(result.compiler() + " cannot build " + String.join(", ", result.refused())
                + ".\n" + ArchResolver.describe(result.probes())
                + "Fix: choose architectures this compiler supports (--arch), use a newer or older toolchain, or, if"
                + " your jobs use another compiler, point " + variable + " at it (or skip this check with"
                + " --no-toolchain-check).");
    }

    private Result checkCuda(List<String> archs) {
        String nvcc = environment.getOrDefault("CUDACXX", "nvcc");
        ToolOutput code = runner.run(List.of(nvcc, "--list-gpu-code"), timeout);
        ToolOutput arch = runner.run(List.of(nvcc, "--list-gpu-arch"), timeout);
        List<ProbeReport> probes = List.of(report(code), report(arch));
        if (!ran(code) || !ran(arch)) {
            return new Result(probes, List.of(), nvcc);
        }
        Set<String> real = new HashSet<>(code.stdout().lines().map(String::strip).toList());
        Set<String> virtual = new HashSet<>(arch.stdout().lines().map(String::strip).toList());
        List<String> refused = new ArrayList<>();
        for (String a : archs) {
            Matcher m = CUDA.matcher(a);
            if (!m.matches()) {
                continue;
            }
            String sm = m.group(1);
            boolean needsReal = !"-virtual".equals(m.group(3));
            boolean needsVirtual = !"-real".equals(m.group(3));
            if (needsReal && !real.contains("sm_" + sm) || needsVirtual && !virtual.contains("compute_" + sm)) {
                refused.add(a + " (this nvcc builds " + String.join(" ", code.stdout().strip().split("\\s+")) + ")");
            }
        }
        List<String> builds = code.stdout().lines().map(String::strip).filter(l -> l.startsWith("sm_"))
                .map(l -> l.substring(3)).toList();
        return new Result(probes, refused, nvcc, builds);
    }

    private Result checkHip(List<String> archs) {
        String compiler = environment.get("HIPCXX");
        if (compiler == null) {
            compiler = onPath("hipcc") ? "hipcc" : "clang++";
        }
        List<ProbeReport> probes = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        for (String a : archs) {
            ToolOutput out = runner.run(List.of(compiler, "-###", "-x", "hip", "--offload-arch=" + a, "-nogpulib",
                    "-nogpuinc", "-c", "/dev/null", "-o", "/dev/null"), timeout);
            ProbeReport r = report(out);
            if (out.status() == ToolOutput.Status.EXITED && out.exitCode() != 0) {
                String said = firstErrorLine(out.stderr());
                r = new ProbeReport(r.tool(), r.command(), "refused", r.exitCode(), r.ms(), 0, said);
                refused.add(a + " (" + said + ")");
            }
            probes.add(r);
            if (!ran(out)) {
                break;
            }
        }
        return new Result(probes, refused, compiler);
    }

    private boolean onPath(String program) {
        return Executables.find(program, environment.get("PATH")).isPresent();
    }

    private static boolean ran(ToolOutput out) {
        return out.status() == ToolOutput.Status.EXITED;
    }

    private static ProbeReport report(ToolOutput out) {
        String tool = out.command().get(0);
        return switch (out.status()) {
            case EXITED -> new ProbeReport(tool, out.command(), out.exitCode() == 0 ? "ok" : "failed", out.exitCode(),
                    out.ms(), 0, out.exitCode() == 0 ? null : firstErrorLine(out.stderr() + out.stdout()));
            case MISSING -> new ProbeReport(tool, out.command(), "skipped", null, out.ms(), 0,
                    tool + " is not on the PATH; the toolchain check was skipped");
            default -> new ProbeReport(tool, out.command(), "skipped", null, out.ms(), 0,
                    out.problem() + "; the toolchain check was skipped");
        };
    }

    private static String firstErrorLine(String text) {
        for (String line : text.split("\n")) {
            if (line.contains("error")) {
                return line.strip().length() > 240 ? line.strip().substring(0, 240) + "…" : line.strip();
            }
        }
        String t = text.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl);
    }
}
