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

/**
 * The target of a build or a service, resolved once: the resolution, what the compiler said of it (null when not
 * asked) and its console line.
 */
record ResolvedTarget(Resolution resolution, ToolchainCheck.Result checked, String line) {

    /**
     * Resolves each target of {@code request} once ({@link ArchResolver#resolveAll}), in order, each checked as
     * {@link #resolve} does: a platform that resolved but that its compiler cannot build is an error, also under
     * {@code --platform all}.
     */
    static List<ResolvedTarget> resolveAll(ArchResolver resolver, ToolchainCheck toolchain, TargetRequest request,
                                           BuildMetrics metrics, ConsoleOutput stderr)
            throws ArchSyntaxException, ArchResolutionException {
        List<ResolvedTarget> targets = new ArrayList<>();
        for (Resolution resolution : resolver.resolveAll(request)) {
            targets.add(checked(resolution, toolchain, metrics, stderr));
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
