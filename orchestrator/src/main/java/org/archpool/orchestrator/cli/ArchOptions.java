package org.archpool.orchestrator.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.archpool.orchestrator.arch.ArchResolver;
import org.archpool.orchestrator.arch.PlatformChoice;
import org.archpool.orchestrator.arch.TargetRequest;
import org.archpool.protocol.Platform;
import org.archpool.orchestrator.tool.ProcessToolRunner;
import picocli.CommandLine.Option;

/** Options that choose the target: shared by {@code build} and {@code arch}. */
public final class ArchOptions {

    @Option(names = "--platform", paramLabel = "auto|hip|cuda|all", defaultValue = "auto",
            description = "GPU platform to build for (default: ${DEFAULT-VALUE}: the one whose architecture is"
                    + " given or detected; archpool refuses to guess when both or neither are found). all: a target"
                    + " for each platform whose architectures come from HIPARCHS/CUDAARCHS or detection.")
    PlatformChoice platform;

    @Option(names = "--target", paramLabel = "PLATFORM:ARCHS",
            description = "A platform and its architectures, e.g. cuda:80,90a or hip:gfx90a,gfx942; once per"
                    + " platform, to build every job for several targets in one run. Replaces --platform and"
                    + " --arch.")
    List<String> targets;

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

    /**
     * What a build, a service or {@code archpool arch} is asked to build for: the {@code --platform}/{@code --arch} target, one per
     * {@code --target}, or every platform that resolves ({@code --platform all}).
     *
     * @throws UsageException for a malformed {@code --target}, a platform given twice, or flags that contradict
     */
    TargetRequest targetRequest() throws UsageException {
        if (targets == null) {
            if (platform != PlatformChoice.ALL) {
                return TargetRequest.one(new ArchResolver.Request(platform, arch, fallbackArch));
            }
            if (arch != null || fallbackArch != null) {
                throw new UsageException("--platform all finds each platform's architectures in HIPARCHS/CUDAARCHS"
                        + " or by detection, so " + (arch != null ? "--arch" : "--fallback-arch") + " has no platform"
                        + " to belong to; give each platform its architectures with --target cuda:ARCHS --target"
                        + " hip:ARCHS instead");
            }
            return new TargetRequest(List.of(new ArchResolver.Request(PlatformChoice.CUDA, null, null),
                    new ArchResolver.Request(PlatformChoice.HIP, null, null)), true);
        }
        if (platform != PlatformChoice.AUTO || arch != null || fallbackArch != null) {
            String other = platform != PlatformChoice.AUTO ? "--platform" : arch != null ? "--arch" : "--fallback-arch";
            throw new UsageException("--target names the platform and its architectures itself, so " + other
                    + " cannot be given with it; drop " + other + " (one --target per platform, e.g. --target"
                    + " cuda:80,90a --target hip:gfx942)");
        }
        Map<Platform, ArchResolver.Request> byPlatform = new LinkedHashMap<>(); // in the order given
        for (String target : targets) {
            int colon = target.indexOf(':');
            String name = colon < 0 ? target : target.substring(0, colon);
            String archs = colon < 0 ? "" : target.substring(colon + 1).strip();
            Platform p;
            try {
                p = Platform.fromWire(name.strip());
            } catch (IllegalArgumentException e) {
                p = null;
            }
            if (p == null || archs.isEmpty()) {
                throw new UsageException("--target " + target + " is not PLATFORM:ARCHS: "
                        + (p == null ? "'" + name + "' is not a platform (cuda or hip)" : "it lists no architecture")
                        + "; write it as --target cuda:80,90a or --target hip:gfx90a,gfx942");
            }
            if (byPlatform.containsKey(p)) {
                throw new UsageException("--target is given twice for " + p.wireName() + " ("
                        + byPlatform.get(p).given() + " and --target " + target + "); give one list per platform,"
                        + " e.g. --target " + p.wireName() + ":" + byPlatform.get(p).arch().replace(';', ',') + ","
                        + archs);
            }
            byPlatform.put(p, new ArchResolver.Request(PlatformChoice.of(p), archs.replace(',', ';'), null,
                    "--target " + target));
        }
        return new TargetRequest(new ArrayList<>(byPlatform.values()), false);
    }
}
