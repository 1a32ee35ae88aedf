package org.archpool.orchestrator;

import java.util.ArrayList;
import java.util.List;
import org.archpool.orchestrator.arch.ArchResolutionException;
import org.archpool.orchestrator.arch.ArchResolver;
import org.archpool.orchestrator.arch.ArchSyntaxException;
import org.archpool.orchestrator.arch.Resolution;
import org.archpool.orchestrator.arch.TargetRequest;
import org.archpool.orchestrator.arch.ToolchainCheck;
import org.archpool.orchestrator.metrics.BuildMetrics;
import org.archpool.orchestrator.report.ConsoleOutput;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The target of a build or a service, resolved once: the resolution, what the compiler said of it (null when not
 * asked) and its console line.
 */
record ResolvedTarget(Resolution resolution, ToolchainCheck.Result checked, String line) {

    private static final Logger LOG = LoggerFactory.getLogger(ResolvedTarget.class);

    /**
     * Resolves each target of {@code request} once, in order, each checked as {@link #resolve} does; with
     * {@code --platform all}, a platform whose architecture is neither given nor detected is left out (its reason in
     * the coordinator's log), and only none resolving is an error, which names each platform's reason.
     */
    static List<ResolvedTarget> resolveAll(ArchResolver resolver, ToolchainCheck toolchain, TargetRequest request,
                                           BuildMetrics metrics, ConsoleOutput stderr)
            throws ArchSyntaxException, ArchResolutionException {
        List<ResolvedTarget> targets = new ArrayList<>();
        List<String> unresolved = new ArrayList<>();
        for (ArchResolver.Request one : request.requests()) {
            if (!request.whicheverResolve()) {
                targets.add(resolve(resolver, toolchain, one, metrics, stderr));
                continue;
            }
            Resolution resolution;
            try {
                resolution = resolver.resolve(one);
            } catch (ArchResolutionException e) {
                String platform = one.platform().platform().wireName();
                LOG.info("--platform all: no {} target: {}", platform, e.getMessage());
                unresolved.add(platform + ": " + e.getMessage());
                continue;
            }
            // a platform that resolved but that its compiler cannot build is an error, not one left out
            targets.add(checked(resolution, toolchain, metrics, stderr));
        }
        if (targets.isEmpty()) {
            throw new ArchResolutionException("--platform all found no platform to build for: no architecture is"
                    + " given (HIPARCHS, CUDAARCHS) or detected for any of them.\n" + String.join("\n", unresolved)
                    + "\nFix: set CUDAARCHS or HIPARCHS, or name each target with --target cuda:ARCHS / --target"
                    + " hip:ARCHS.");
        }
        return List.copyOf(targets);
    }

    /**
     * Resolves the architecture once and, unless {@code toolchain} is null, asks the compiler whether it can build
     * it; warnings go to {@code stderr}.
     */
    static ResolvedTarget resolve(ArchResolver resolver, ToolchainCheck toolchain, ArchResolver.Request request,
                                  BuildMetrics metrics, ConsoleOutput stderr)
            throws ArchSyntaxException, ArchResolutionException {
        return checked(resolver.resolve(request), toolchain, metrics, stderr);
    }

    private static ResolvedTarget checked(Resolution resolution, ToolchainCheck toolchain, BuildMetrics metrics,
                                          ConsoleOutput stderr) throws ArchResolutionException {
        metrics.resolved(resolution);
        resolution.warnings().forEach(w -> stderr.line("archpool: warning: " + w));
        ToolchainCheck.Result checked = null;
        if (toolchain != null) {
            checked = toolchain.check(resolution.platform(), resolution.archs());
            ToolchainCheck.requireSupported(checked, resolution.platform());
        }
        String line = "target: " + resolution.platform().wireName() + " " + String.join(";", resolution.archs())
                + " (" + resolution.source() + (resolution.detail() == null ? "" : ", " + resolution.detail()) + ")";
        return new ResolvedTarget(resolution, checked, line);
    }

    /** For CUDA, the concrete architectures the compiler builds ({@code all} stands for them); else empty. */
    List<String> builds() {
        return checked == null ? List.of() : checked.builds();
    }
}
