package org.archpool.orchestrator.arch;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.archpool.protocol.Platform;

/**
 * Resolves the build's target once, in this order: the {@code --arch} flag; {@code HIPARCHS} /
 * {@code CUDAARCHS}; detection on the coordinator's machine. Anything it cannot settle is an
 * {@link ArchResolutionException} naming every probe tried and the fix: it never guesses.
 */
public final class ArchResolver {

    static final Map<Platform, String> ENV_VARIABLES = Map.of(Platform.HIP, "HIPARCHS", Platform.CUDA, "CUDAARCHS");

    private final Map<String, String> environment;
    private final List<DeviceDetector> detectors;

    public ArchResolver(Map<String, String> environment, List<DeviceDetector> detectors) {
        this.environment = Map.copyOf(environment);
        this.detectors = List.copyOf(detectors);
    }

    public Resolution resolve(PlatformChoice choice, String archFlag) throws ArchSyntaxException, ArchResolutionException {
        if (archFlag != null) {
            return fromFlag(choice, archFlag);
        }
        Resolution fromEnv = fromEnvironment(choice);
        if (fromEnv != null) {
            return fromEnv;
        }
        return fromDetection(choice);
    }

    private Resolution fromFlag(PlatformChoice choice, String archFlag) throws ArchSyntaxException {
        Platform platform = choice.platform();
        if (platform == null) {
            platform = ArchList.guessPlatform(archFlag);
            if (platform == null) {
                throw new ArchSyntaxException("cannot tell the platform of --arch '" + archFlag
                        + "': gfx… names are HIP, compute capabilities such as 90 are CUDA; add --platform hip or --platform cuda");
            }
        }
        return new Resolution(platform, ArchList.parse(platform, archFlag), "flag", "--arch " + archFlag,
                List.of(), List.of());
    }

    private Resolution fromEnvironment(PlatformChoice choice) throws ArchResolutionException {
        List<Platform> candidates = choice.platform() != null ? List.of(choice.platform())
                : List.of(Platform.HIP, Platform.CUDA);
        List<Platform> set = candidates.stream()
                .filter(p -> isSet(ENV_VARIABLES.get(p)))
                .toList();
        if (set.isEmpty()) {
            return null;
        }
        if (set.size() > 1) {
            throw new ArchResolutionException("both HIPARCHS (" + environment.get("HIPARCHS") + ") and CUDAARCHS ("
                    + environment.get("CUDAARCHS") + ") are set, so the platform is ambiguous; pass --platform hip or"
                    + " --platform cuda (or --arch)");
        }
        Platform platform = set.get(0);
        String variable = ENV_VARIABLES.get(platform);
        String value = environment.get(variable);
        try {
            return new Resolution(platform, ArchList.parse(platform, value), "env", variable + "=" + value,
                    List.of(), List.of());
        } catch (ArchSyntaxException e) {
            throw new ArchResolutionException("the environment variable " + variable + " is set to '" + value
                    + "', which is not usable: " + e.getMessage() + ". Fix or unset " + variable + ", or pass --arch.");
        }
    }

    private Resolution fromDetection(PlatformChoice choice) throws ArchResolutionException {
        List<Detection> detections = new ArrayList<>();
        for (DeviceDetector detector : detectors) {
            if (choice.platform() == null || detector.platform() == choice.platform()) {
                detections.add(detector.detect());
            }
        }
        List<ProbeReport> reports = detections.stream().map(Detection::report).toList();
        Set<Platform> found = detections.stream()
                .filter(d -> !d.devices().isEmpty())
                .flatMap(d -> d.devices().stream().map(GpuDevice::platform))
                .collect(Collectors.toCollection(LinkedHashSet::new));
        if (found.isEmpty()) {
            throw new ArchResolutionException("no GPU architecture could be resolved"
                    + (choice.platform() == null ? "" : " for " + choice.platform().wireName())
                    + ": --arch was not given, " + envNames(choice) + " not set, and detection found no device.\n"
                    + describe(reports)
                    + "Fix: pass --arch (e.g. --arch 90 for an H100/H200, --arch gfx942 for an MI300X),"
                    + " set " + envNames(choice) + ", or run where the GPU and its tools are visible.");
        }
        if (found.size() > 1) {
            throw new ArchResolutionException("devices of both platforms were detected, so archpool will not guess"
                    + " which to build for.\n" + describe(reports) + "Fix: pass --platform hip or --platform cuda.");
        }
        Platform platform = found.iterator().next();
        List<GpuDevice> devices = new ArrayList<>();
        List<String> tools = new ArrayList<>();
        for (Detection d : detections) {
            if (!d.devices().isEmpty() && devices.isEmpty()) {
                devices.addAll(d.devices());
                tools.add(d.report().tool());
            }
        }
        List<String> archs = devices.stream().map(GpuDevice::arch).distinct().sorted().toList();
        return new Resolution(platform, archs, "detected", String.join(", ", tools), devices, reports);
    }

    private String envNames(PlatformChoice choice) {
        return choice.platform() == null ? "HIPARCHS/CUDAARCHS" : ENV_VARIABLES.get(choice.platform());
    }

    private boolean isSet(String variable) {
        String value = environment.get(variable);
        return value != null && !value.isBlank();
    }

    private static String describe(List<ProbeReport> reports) {
        StringBuilder out = new StringBuilder();
        for (ProbeReport r : reports) {
            out.append("  - ").append(String.join(" ", r.command())).append(": ").append(r.status());
            if (r.message() != null) {
                out.append(" (").append(r.message()).append(')');
            }
            out.append('\n');
        }
        return out.toString();
    }
}
