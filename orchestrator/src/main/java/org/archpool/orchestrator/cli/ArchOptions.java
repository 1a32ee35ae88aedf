package org.archpool.orchestrator.cli;

import java.time.Duration;
import java.util.Map;
import org.archpool.orchestrator.arch.ArchResolver;
import org.archpool.orchestrator.arch.PlatformChoice;
import org.archpool.orchestrator.tool.ProcessToolRunner;
import picocli.CommandLine.Option;

/** Options that choose the target: shared by {@code build} and {@code arch}. */
public final class ArchOptions {

    @Option(names = "--platform", paramLabel = "auto|hip|cuda", defaultValue = "auto",
            description = "GPU platform to build for (default: ${DEFAULT-VALUE}: the one whose architecture is"
                    + " given or detected; archpool refuses to guess when both or neither are found).")
    PlatformChoice platform;

    @Option(names = "--arch", paramLabel = "LIST",
            description = "Architectures to build for, e.g. 90, '80;90', 90a, gfx942, gfx90a:xnack-."
                    + " Without it: HIPARCHS/CUDAARCHS, then detection (rocminfo, nvidia-smi) on this machine.")
    String arch;

    @Option(names = "--fallback-arch", paramLabel = "LIST",
            description = "Architectures to build for when none is given or detected (opt-in; archpool warns and"
                    + " records it in the report). Without it, an unresolved architecture stops the build (exit 3).")
    String fallbackArch;

    @Option(names = "--probe-timeout", paramLabel = "DURATION", defaultValue = "10s",
            converter = DurationConverter.class,
            description = "How long each detection tool may run (default: ${DEFAULT-VALUE}).")
    Duration probeTimeout;

    /** A resolver that probes through the coordinator's environment, each tool at most once. */
    ArchResolver resolver(CliContext context) {
        Map<String, String> env = context.environment();
        return ArchResolver.standard(env, new ProcessToolRunner(env, context.clock()), probeTimeout);
    }

    ArchResolver.Request request() {
        return new ArchResolver.Request(platform, arch, fallbackArch);
    }
}
