package org.archpool.orchestrator.verify;

import java.util.ArrayList;
import java.util.List;
import org.archpool.protocol.Artifact;
import org.archpool.protocol.CmakeJob;
import org.archpool.protocol.JobSpec;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;

/**
 * Compares the GPU code found in a job's artifacts with the target it was built for, under the {@code --verify}
 * policy, and applies {@code --forbid-hostcall}.
 *
 * <p>Every artifact that holds GPU code must hold the requested architectures ({@link CudaExpectation},
 * {@link HipExpectation}); one that lacks any fails the job under {@code strict} and {@code exact}. Code for
 * architectures nobody asked for is a warning, and fails the job under {@code exact}. CUDA {@code all} and
 * {@code all-major} are not checked. Artifacts whose GPU code could not be read, globs that matched nothing, and
 * outputs with no GPU code at all are warnings: archpool could not prove anything about them.
 *
 * <p>With {@code --forbid-hostcall}, an AMD kernel that needs a hostcall buffer (device {@code printf} or
 * {@code assert}) fails the job whatever the policy: GPUs on platforms without PCIe atomics refuse to dispatch
 * such kernels.
 */
public final class ArtifactVerifier implements ArtifactJudge {

    private final VerifyPolicy policy;
    private final boolean forbidHostcall;

    public ArtifactVerifier(Verification verification) {
        this.policy = verification.policy();
        this.forbidHostcall = verification.forbidHostcall();
    }

    public ArtifactVerifier(VerifyPolicy policy) {
        this(new Verification(policy, false));
    }

    @Override
    public Verdict judge(JobSpec job, Target target, List<Artifact> artifacts) {
        List<String> failures = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        if (forbidHostcall) {
            hostcalls(artifacts, failures);
        }
        if (policy != VerifyPolicy.OFF) {
            architectures(job, target, artifacts, failures, warnings);
        }
        return new Verdict(failures.isEmpty() ? null : String.join("; ", failures), warnings);
    }

    private void architectures(JobSpec job, Target target, List<Artifact> artifacts, List<String> failures,
                               List<String> warnings) {
        for (Artifact a : artifacts) {
            if (a.problem() != null) {
                warnings.add(name(a) + ": " + a.problem());
            }
        }
        if (!job.artifacts().isEmpty() && artifacts.isEmpty()) {
            warnings.add("the job's artifacts " + job.artifacts() + " matched no file, so nothing was verified");
        }
        boolean cuda = target.platform() == Platform.CUDA;
        if (cuda && target.archs().stream().anyMatch(a -> a.startsWith("all"))) {
            return;
        }
        Expectation expectation = cuda ? new CudaExpectation(target.archs()) : new HipExpectation(target.archs());
        List<String> missing = new ArrayList<>();
        List<String> extra = new ArrayList<>();
        for (Artifact a : artifacts) {
            if (a.archs().isEmpty()) {
                continue;
            }
            List<String> lacking = expectation.missing(a.archs());
            if (!lacking.isEmpty()) {
                missing.add(name(a) + " is built for " + String.join(" ", a.archs()) + " but lacks "
                        + String.join(" ", lacking) + expectation.explain(a.archs(), lacking));
            }
            List<String> more = expectation.extra(a.archs());
            if (!more.isEmpty()) {
                extra.add(name(a) + " also holds " + String.join(" ", more) + ", which was not requested");
            }
        }
        if (!artifacts.isEmpty() && artifacts.stream().allMatch(a -> a.archs().isEmpty() && a.problem() == null)) {
            warnings.add("none of the job's " + artifacts.size() + " output file(s) holds GPU code, so nothing"
                    + " was verified");
        }
        String requested = String.join(";", target.archs());
        String hint = hint(job, cuda);
        if (!missing.isEmpty()) {
            String text = "requested " + requested + ", but " + String.join("; ", missing) + hint;
            if (policy == VerifyPolicy.WARN) {
                warnings.add(text);
            } else {
                failures.add(text);
            }
        }
        if (!extra.isEmpty()) {
            String text = String.join("; ", extra) + " (time spent on targets nobody asked for)";
            if (policy == VerifyPolicy.EXACT && missing.isEmpty()) {
                failures.add("requested exactly " + requested + ", but " + text + hint);
            } else {
                warnings.add(text);
            }
        }
    }

    private static void hostcalls(List<Artifact> artifacts, List<String> failures) {
        List<String> found = new ArrayList<>();
        for (Artifact a : artifacts) {
            if (!a.hostcallKernels().isEmpty()) {
                found.add(name(a) + " (" + String.join(", ", a.hostcallKernels()) + ")");
            }
        }
        if (!found.isEmpty()) {
            failures.add("kernels that need a hostcall buffer, because they call device printf or assert: "
                    + String.join("; ", found) + " — --forbid-hostcall refuses them, as GPUs on platforms without"
                    + " PCIe atomics cannot dispatch them; remove printf/assert from these kernels (assert"
                    + " compiles away with -DNDEBUG)");
        }
    }

    private static String hint(JobSpec job, boolean cuda) {
        if (job instanceof CmakeJob) {
            return cuda ? " — does the project set CMAKE_CUDA_ARCHITECTURES (or -arch/-gencode flags) itself?"
                    : " — does the project set CMAKE_HIP_ARCHITECTURES (or --offload-arch flags) itself?";
        }
        return cuda ? " — does the command pass {offload-arch-flags} (or its own -arch/-gencode flags)?"
                : " — does the command pass {offload-arch-flags} (or its own --offload-arch flags)?";
    }

    private static String name(Artifact a) {
        int slash = a.path().lastIndexOf('/');
        return slash < 0 ? a.path() : a.path().substring(slash + 1);
    }
}
