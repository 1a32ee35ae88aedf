package org.archpool.orchestrator.verify;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.archpool.protocol.Artifact;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;

/**
 * Compares the GPU code found in a job's artifacts with the target it was built for. For CUDA, a requested
 * {@code 90}, {@code 90-real} or {@code 90a} needs real code ({@code sm_90}, {@code sm_90a}) in every artifact
 * that holds GPU code, and {@code 90-virtual} needs PTX ({@code compute_90}); PTX alone where real code was
 * requested does not count. Real code for an architecture nobody asked for is extra. {@code all} and
 * {@code all-major} are not checked. HIP artifacts are checked once their code objects can be read (until
 * then they carry no architectures and pass).
 */
public final class ArtifactVerifier {

    private static final Pattern CUDA = Pattern.compile("(\\d+[af]?)(-real|-virtual)?");

    private final VerifyPolicy policy;

    public ArtifactVerifier(VerifyPolicy policy) {
        this.policy = policy;
    }

    public Verdict check(JobSpec job, Target target, List<Artifact> artifacts) {
        if (policy == VerifyPolicy.OFF || target.platform() != Platform.CUDA
                || target.archs().stream().anyMatch(a -> a.startsWith("all"))) {
            return Verdict.pass();
        }
        Set<String> required = new LinkedHashSet<>();
        Set<String> allowedReal = new LinkedHashSet<>();
        for (String arch : target.archs()) {
            Matcher m = CUDA.matcher(arch);
            if (!m.matches()) {
                continue;
            }
            if ("-virtual".equals(m.group(2))) {
                required.add("compute_" + m.group(1));
            } else {
                required.add("sm_" + m.group(1));
                allowedReal.add("sm_" + m.group(1));
            }
        }
        List<String> missing = new ArrayList<>();
        List<String> extra = new ArrayList<>();
        for (Artifact a : artifacts) {
            if (a.archs().isEmpty()) {
                continue;
            }
            List<String> lacking = required.stream().filter(r -> !a.archs().contains(r)).toList();
            if (!lacking.isEmpty()) {
                missing.add(name(a) + " is built for " + String.join(" ", a.archs()) + " but lacks "
                        + String.join(" ", lacking));
            }
            List<String> more = a.archs().stream().filter(f -> f.startsWith("sm_") && !allowedReal.contains(f)).toList();
            if (!more.isEmpty()) {
                extra.add(name(a) + " also holds " + String.join(" ", more) + ", which was not requested");
            }
        }
        String requested = String.join(";", target.archs());
        String hint = job instanceof CmakeJob
                ? " — does the project set CMAKE_CUDA_ARCHITECTURES (or -arch/-gencode flags) itself?"
                : " — does the command pass {offload-arch-flags} (or its own -arch/-gencode flags)?";
        List<String> warnings = new ArrayList<>();
        String failure = null;
        if (!missing.isEmpty()) {
            String text = "requested " + requested + ", but " + String.join("; ", missing) + hint;
            if (policy == VerifyPolicy.WARN) {
                warnings.add(text);
            } else {
                failure = text;
            }
        }
        if (!extra.isEmpty()) {
            String text = String.join("; ", extra) + " (time spent on targets nobody asked for)";
            if (policy == VerifyPolicy.EXACT && failure == null) {
                failure = "requested exactly " + requested + ", but " + text + hint;
            } else {
                warnings.add(text);
            }
        }
        return new Verdict(failure, warnings);
    }

    private static String name(Artifact a) {
        int slash = a.path().lastIndexOf('/');
        return slash < 0 ? a.path() : a.path().substring(slash + 1);
    }
}
