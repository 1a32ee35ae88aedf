package org.archpool.orchestrator.arch;

import static org.archpool.protocol.UntrustedText.quote;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.archpool.orchestrator.tool.OnceToolRunner;
import org.archpool.orchestrator.tool.ToolRunner;
import org.archpool.protocol.Platform;

/**
 * Resolves the build's target once, in this order: {@code --arch}; {@code HIPARCHS}/{@code CUDAARCHS};
 * detection on the coordinator's machine (rocminfo, then amdgpu-arch; nvidia-smi), narrowed by the
 * coordinator's own visibility variables; {@code --fallback-arch} when the user opted in. Anything else is
 * an {@link ArchResolutionException} naming every probe tried, what it said, and the fix: it never guesses.
 * {@code native}, as a flag or environment value, means "what detection finds here", never a value passed on.
 */
public final class ArchResolver {

    static final Map<Platform, String> ENV_VARIABLES = Map.of(Platform.HIP, "HIPARCHS", Platform.CUDA, "CUDAARCHS");

    /**
     * What the user asked for, for one target.
     *
     * @param given how the user wrote {@code arch} when it was not {@code --arch} (e.g. {@code --target cuda:80,90}),
     *              for the report's {@code detail}; null for {@code --arch}
     */
    public record Request(PlatformChoice platform, String arch, String fallbackArch, String given) {

        public Request(PlatformChoice platform, String arch, String fallbackArch) {
            this(platform, arch, fallbackArch, null);
        }
    }

    private final Map<String, String> environment;
    private final List<DeviceDetector> detectors;
    private final MigListing migListing;

    public ArchResolver(Map<String, String> environment, List<DeviceDetector> detectors, ToolRunner runner,
                        Duration probeTimeout) {
        this.environment = Map.copyOf(environment);
        this.detectors = List.copyOf(detectors);
        this.migListing = new MigListing(runner, probeTimeout);
    }

    /** The standard resolver: every probe through {@code runner}, each tool at most once. */
    public static ArchResolver standard(Map<String, String> environment, ToolRunner runner, Duration probeTimeout) {
        OnceToolRunner once = new OnceToolRunner(runner);
        return new ArchResolver(environment, ToolDetector.standard(once, probeTimeout), once, probeTimeout);
    }

    /**
     * Resolves each request of {@code request}, in order. With {@code --platform all}
     * ({@link TargetRequest#whicheverResolve()}), a platform whose architecture is neither given nor detected is left
     * out, and only none resolving is an error, which names each platform's reason.
     */
    public List<Resolution> resolveAll(TargetRequest request) throws ArchSyntaxException, ArchResolutionException {
        List<Resolution> resolved = new ArrayList<>();
        List<String> unresolved = new ArrayList<>();
        for (Request one : request.requests()) {
            if (!request.whicheverResolve()) {
                resolved.add(resolve(one));
                continue;
            }
            try {
                resolved.add(resolve(one));
            } catch (ArchResolutionException e) {
                unresolved.add(one.platform().name().toLowerCase(Locale.ROOT) + ": " + e.getMessage());
            }
        }
        if (resolved.isEmpty()) {
            throw new ArchResolutionException("--platform all found no platform to build for: no architecture is"
                    + " given (HIPARCHS, CUDAARCHS) or detected for any of them.\n" + String.join("\n", unresolved)
                    + "\nFix: set CUDAARCHS or HIPARCHS, or name each target with --target cuda:ARCHS / --target"
                    + " hip:ARCHS.");
        }
        if (!unresolved.isEmpty()) {
            // said once, with the first target: which platforms --platform all left out, and the first line of why
            Resolution first = resolved.get(0);
            List<String> warnings = new ArrayList<>(first.warnings());
            unresolved.forEach(u -> warnings.add("--platform all leaves out " + u.lines().findFirst().orElse(u)));
            resolved.set(0, new Resolution(first.platform(), first.archs(), first.source(), first.detail(),
                    first.devices(), first.visibility(), warnings, first.probes()));
        }
        return List.copyOf(resolved);
    }

    public Resolution resolve(Request request) throws ArchSyntaxException, ArchResolutionException {
        if (request.fallbackArch() != null) {
            // a mistake in the fallback is reported now, not only on the day it is needed
            Platform platform = platformOf(request.platform(), request.fallbackArch(), "--fallback-arch");
            ArchList.parse(platform, request.fallbackArch());
        }
        if (request.arch() != null) {
            if (ArchList.isNative(request.arch())) {
                return detect(request, "--arch native");
            }
            Platform platform = platformOf(request.platform(), request.arch(), "--arch");
            return explicit(platform, ArchList.parse(platform, request.arch()), "flag",
                    request.given() != null ? request.given() : "--arch " + request.arch());
        }
        Resolution fromEnv = fromEnvironment(request);
        if (fromEnv != null) {
            return fromEnv;
        }
        return detect(request, null);
    }

    private Resolution fromEnvironment(Request request) throws ArchResolutionException, ArchSyntaxException {
        List<Platform> candidates = request.platform().platform() != null ? List.of(request.platform().platform())
                : List.of(Platform.HIP, Platform.CUDA);
        List<Platform> set = candidates.stream().filter(p -> isSet(ENV_VARIABLES.get(p))).toList();
        if (set.isEmpty()) {
            return null;
        }
        if (set.size() > 1) {
            throw new ArchResolutionException("both HIPARCHS and CUDAARCHS are set, so the platform is ambiguous;"
                    + " pass --platform hip or --platform cuda (or --arch)");
        }
        Platform platform = set.get(0);
        String variable = ENV_VARIABLES.get(platform);
        String value = environment.get(variable);
        if (ArchList.isNative(value)) {
            return detect(new Request(PlatformChoice.of(platform), null, request.fallbackArch()), variable + "=native");
        }
        try {
            return explicit(platform, ArchList.parse(platform, value), "env:" + variable, variable + "=" + value);
        } catch (ArchSyntaxException e) {
            throw new ArchResolutionException("the environment variable " + variable + " holds an architecture list"
                    + " archpool cannot use: " + e.getMessage() + " Fix or unset " + variable + ", or pass --arch.");
        }
    }

    private Resolution detect(Request request, String nativeFrom) throws ArchResolutionException, ArchSyntaxException {
        List<ProbeReport> reports = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        Map<Platform, List<GpuDevice>> seen = new LinkedHashMap<>();
        Map<Platform, VisibleDevices> visible = new LinkedHashMap<>();
        List<String> hiddenProblems = new ArrayList<>();
        for (Platform platform : Platform.values()) {
            if (request.platform().platform() != null && request.platform().platform() != platform) {
                continue;
            }
            List<GpuDevice> devices = List.of();
            for (DeviceDetector detector : detectors) {
                if (detector.platform() != platform || !devices.isEmpty()) {
                    continue;
                }
                Detection d = detector.detect();
                reports.add(d.report());
                devices = d.devices();
            }
            if (devices.isEmpty()) {
                continue;
            }
            seen.put(platform, devices);
            try {
                VisibleDevices v = DeviceVisibility.apply(platform, devices, environment, migListing);
                visible.put(platform, v);
                warnings.addAll(v.warnings());
            } catch (ArchResolutionException e) {
                hiddenProblems.add(e.getMessage());
            }
        }
        reports.addAll(migListing.reports());
        List<GpuDevice> allSeen = seen.values().stream().flatMap(List::stream).toList();
        if (visible.size() > 1) {
            throw new ArchResolutionException("devices of both platforms are visible ("
                    + describeDevices(allSeen) + "), so archpool will not guess which to build for.\n"
                    + describe(reports) + "Fix: pass --platform hip or --platform cuda.");
        }
        if (visible.size() == 1) {
            Map.Entry<Platform, VisibleDevices> only = visible.entrySet().iterator().next();
            Platform platform = only.getKey();
            List<GpuDevice> chosen = only.getValue().devices();
            List<String> archs = chosen.stream().map(ArchList::fromDevice).map(GpuArch::cmakeName).distinct().sorted()
                    .toList();
            String tool = reports.stream().filter(ProbeReport::detected).map(ProbeReport::tool)
                    .filter(t -> !t.equals("nvidia-smi") || platform == Platform.CUDA).findFirst().orElse("?");
            Visibility visibility = new Visibility(only.getValue().applied(),
                    chosen.stream().map(GpuDevice::index).toList());
            return new Resolution(platform, archs, "detected:" + tool, nativeFrom, seen.get(platform), visibility,
                    warnings, reports);
        }
        return fallback(request, nativeFrom, reports, allSeen, hiddenProblems, warnings);
    }

    private Resolution fallback(Request request, String nativeFrom, List<ProbeReport> reports, List<GpuDevice> seen,
                                List<String> hiddenProblems, List<String> warnings)
            throws ArchResolutionException, ArchSyntaxException {
        String why = hiddenProblems.isEmpty() ? "detection found no device" : String.join("\n", hiddenProblems);
        if (request.fallbackArch() != null) {
            Platform platform = platformOf(request.platform(), request.fallbackArch(), "--fallback-arch");
            List<GpuArch> archs = ArchList.parse(platform, request.fallbackArch());
            List<String> w = new ArrayList<>(warnings);
            w.add("no architecture was given or detected (" + firstLine(why) + "); building for the fallback "
                    + String.join(";", ArchList.cmakeNames(archs)) + " from --fallback-arch: binaries will crash on"
                    + " any other GPU");
            return new Resolution(platform, ArchList.cmakeNames(archs), "fallback",
                    "--fallback-arch " + request.fallbackArch(), seen, null, w, reports);
        }
        String scope = request.platform().platform() == null ? "" : " for " + request.platform().platform().wireName();
        String env = request.platform().platform() == null ? "HIPARCHS/CUDAARCHS"
                : ENV_VARIABLES.get(request.platform().platform());
        String start = nativeFrom != null
                ? nativeFrom + " asks for the GPUs of this machine, but " + why
                : "no GPU architecture could be resolved" + scope + ": --arch was not given, " + env
                        + " is not set, and " + why;
        throw new ArchResolutionException(start + ".\n" + describe(reports)
                + "Fix: pass --arch (e.g. --arch 90 for an H100/H200, --arch gfx942 for an MI300X), set " + env
                + ", run where the GPU and its tools are visible, or accept a default knowingly with --fallback-arch.");
    }

    private Resolution explicit(Platform platform, List<GpuArch> archs, String source, String detail) {
        return new Resolution(platform, ArchList.cmakeNames(archs), source, detail, List.of(), null, List.of(),
                List.of());
    }

    private static Platform platformOf(PlatformChoice choice, String text, String flag) throws ArchSyntaxException {
        if (choice.platform() != null) {
            return choice.platform();
        }
        Platform guessed = ArchList.guessPlatform(text);
        if (guessed == null) {
            throw new ArchSyntaxException("cannot tell the platform of " + flag + " " + quote(text)
                    + ": gfx… names are HIP, compute capabilities such as 90 are CUDA; add --platform hip or --platform cuda");
        }
        return guessed;
    }

    private boolean isSet(String variable) {
        String value = environment.get(variable);
        return value != null && !value.isBlank();
    }

    private static String describeDevices(List<GpuDevice> devices) {
        return devices.stream().map(d -> d.platform().wireName() + " " + d.arch()).distinct()
                .collect(Collectors.joining(", "));
    }

    private static String firstLine(String text) {
        int nl = text.indexOf('\n');
        return nl < 0 ? text : text.substring(0, nl);
    }

    /** One line per probe: the command, its status, what it said, how long it took. */
    static String describe(List<ProbeReport> reports) {
        StringBuilder out = new StringBuilder();
        for (ProbeReport r : reports) {
            out.append("  - ").append(String.join(" ", r.command())).append(": ").append(r.status());
            if (r.message() != null) {
                out.append(" (").append(r.message()).append(')');
            }
            out.append(" [").append(r.ms()).append(" ms]\n");
        }
        return out.toString();
    }
}
