package org.archpool.orchestrator;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.archpool.orchestrator.arch.ArchResolutionException;
import org.archpool.orchestrator.arch.ArchResolver;
import org.archpool.orchestrator.arch.ArchSyntaxException;
import org.archpool.orchestrator.arch.Resolution;
import org.archpool.orchestrator.arch.TargetRequest;
import org.archpool.orchestrator.arch.ToolchainCheck;
import org.archpool.orchestrator.metrics.BuildMetrics;
import org.archpool.orchestrator.report.ConsoleOutput;
import org.archpool.protocol.Platform;

/**
 * The target of a build or a service, resolved once: the resolution, what the compiler said of it (null when not
 * asked) and its console line.
 */
record ResolvedTarget(Resolution resolution, ToolchainCheck.Result checked, String line) {

    /**
     * Resolves each target of {@code request} once ({@link ArchResolver#resolveAll}), in order, and, unless
     * {@code toolchain} is null, asks the compiler whether it can build each: a platform that resolved but that its
     * compiler cannot build is an error, also under {@code --platform all}. Warnings go to {@code stderr}.
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

    /**
     * For each platform of {@code targets}, the concrete architectures its compiler builds, which {@code all} stands
     * for (CUDA, when the compiler was asked); else empty.
     */
    static Function<Platform, List<String>> builds(List<ResolvedTarget> targets) {
        return platform -> targets.stream().filter(t -> t.resolution().platform() == platform && t.checked() != null)
                .map(t -> t.checked().builds()).findFirst().orElse(List.of());
    }
}
