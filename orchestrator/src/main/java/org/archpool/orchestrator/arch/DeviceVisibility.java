package org.archpool.orchestrator.arch;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.archpool.protocol.Platform;
import org.archpool.protocol.UntrustedText;

/**
 * Applies the coordinator's own device-visibility variables to the devices a probe tool reported, so that
 * archpool builds for the GPUs a program started from the same environment would use. Pure: it reads only its
 * arguments and runs nothing (the {@code nvidia-smi -L} listing needed for {@code MIG-} entries comes from the
 * caller's supplier, asked at most once and only when such an entry is reached).
 *
 * <p><b>The detected list must be unfiltered.</b> rocminfo and amdgpu-arch run on the ROCm runtime and honour
 * {@code ROCR_VISIBLE_DEVICES} themselves (amdgpu-arch's HIP path also honours {@code HIP_VISIBLE_DEVICES} and
 * {@code CUDA_VISIBLE_DEVICES}); applying the variables again to their filtered output would apply them twice. Probe
 * with these variables removed (not set to empty: an empty {@code ROCR_VISIBLE_DEVICES} hides every GPU) from the
 * probe's environment. nvidia-smi ignores {@code CUDA_VISIBLE_DEVICES}.
 *
 * <h2>Syntax shared by every variable</h2>
 * A value is split at commas into entries; ASCII spaces and tabs around an entry are dropped. An entry is
 * <ul>
 *   <li>an index: ASCII digits ({@code 0}, {@code 3}, {@code 01}), an ordinal into the list the variable selects
 *       from;</li>
 *   <li>a GPU UUID or prefix: {@code GPU-} (upper case) and hex digits and dashes ({@code GPU-65af7ae3},
 *       {@code GPU-8d1457e2c20f59d2}); hex digits compare case-insensitively; the prefix must match exactly one
 *       device's UUID;</li>
 *   <li>CUDA only, a MIG device UUID or prefix: {@code MIG-…}, including the old
 *       {@code MIG-GPU-<uuid>/<gi>/<ci>} form, mapped to its parent GPU with {@code nvidia-smi -L}.</li>
 * </ul>
 * Anything else is an invalid entry: empty entries, {@code -1}, signs, non-ASCII digits such as {@code １},
 * control characters, entries over 128 characters. An index past the end of the list, a UUID matching no device or
 * several, and a MIG UUID that cannot be mapped are invalid too. <b>The first invalid entry ends the list</b>: the
 * entries before it apply, it and everything after it are ignored, and a warning quotes the ignored part. (The CUDA
 * documentation says so for CUDA; for ROCm and HIP it is what the runtimes are believed to do: the HIP runtime's
 * parser in clr stops at the first index that is not valid.) Devices whose probe gave no UUID ({@code null}: rocminfo
 * under WSL, old rocminfo, amdgpu-arch) cannot be named by UUID; a UUID entry that matches none of the others is
 * invalid and its warning says how many devices have no UUID.
 *
 * <h2>CUDA ({@code platform == CUDA})</h2>
 * <ul>
 *   <li>{@code CUDA_VISIBLE_DEVICES} unset: every detected device. Set to the empty string, or to anything that
 *       selects nothing ({@code -1}, white space): no device, an {@link ArchResolutionException}.</li>
 *   <li>Indices are positions in {@code detected}, i.e. nvidia-smi's order, which is PCI bus order.</li>
 *   <li>Indices and UUIDs may be mixed; a warning says that the driver may not accept that (PyTorch, which mirrors
 *       the driver's parsing, ends a list at the first entry of another kind than the first). Accepting it can only
 *       add devices, i.e. architectures, to the build.</li>
 *   <li><b>A device listed twice hides every device</b> (an {@link ArchResolutionException}). This is the behaviour
 *       PyTorch reproduces from the driver ({@code torch.cuda._parse_visible_devices}: "Repeated ordinal results in
 *       empty set"); NVIDIA does not document it. Either way the value is a mistake the user should fix. Two different
 *       MIG devices of one GPU are not a repeat; that GPU is returned once.</li>
 *   <li>CUDA 11 and 12 enumerate only one MIG device per process: with several {@code MIG-} entries a warning says
 *       programs may see only one of them, and the GPUs of all of them are returned.</li>
 *   <li><b>Device order.</b> CUDA numbers GPUs fastest first unless {@code CUDA_DEVICE_ORDER=PCI_BUS_ID} (compared
 *       exactly; any other value counts as the default {@code FASTEST_FIRST}), with an undocumented heuristic, so
 *       index {@code 0} need not be nvidia-smi's device 0. That matters only when the GPUs differ in architecture.
 *       When an index entry was applied, the detected GPUs have more than one architecture and the order is not
 *       {@code PCI_BUS_ID}, the index could name any of them; building for the device at that PCI position could
 *       produce a binary with no kernel for the GPU the program actually gets. So the selection is made in PCI order
 *       (for the description and for the validity of each entry) and then <b>widened to every detected device</b>,
 *       with a warning telling the user to set {@code CUDA_DEVICE_ORDER=PCI_BUS_ID} or select by UUID to build for
 *       fewer architectures. Building for a superset of architectures is slower but always runs.</li>
 *   <li>Uncertain and not modelled: the driver is said to read a number the way {@code strtoul} does, so that
 *       {@code 1gpu} means device 1; here it is an invalid entry (with a warning), being a mistake the user should
 *       fix.</li>
 * </ul>
 *
 * <h2>HIP ({@code platform == HIP})</h2>
 * <ol>
 *   <li>{@code ROCR_VISIBLE_DEVICES} (read by the ROCm runtime, ROCr) filters the detected devices, in rocminfo's
 *       order: indices and UUIDs (rocminfo's {@code Uuid:}), mixed freely (ROCm documents
 *       {@code 0,GPU-DEADBEEFDEADBEEF}). Set but empty: no device (ROCm hides every GPU, which is how archpool's
 *       workers hide them).</li>
 *   <li>Then {@code HIP_VISIBLE_DEVICES} indexes the devices ROCr left (index 0 is the first device ROCr left, not
 *       rocminfo's device 0). <b>An empty {@code HIP_VISIBLE_DEVICES} counts as unset</b> (clr tests its first
 *       character), and then HIP reads {@code CUDA_VISIBLE_DEVICES} the same way. A value of only white space is not
 *       empty: it selects nothing.</li>
 *   <li><b>An empty {@code CUDA_VISIBLE_DEVICES} on an AMD machine also counts as unset</b>: the same test in clr
 *       ({@code ordinals[0] != '\0'}) applies to it, so HIP shows every device ROCr left, unlike CUDA, where it hides
 *       all; a warning points the difference out. Were HIP to hide all devices instead, the build would target GPUs a
 *       program cannot use anyway; the reverse mistake would refuse a working setup.</li>
 *   <li>A device repeated in any of these lists is skipped and the list goes on (clr keeps the first occurrence; for
 *       ROCr this is assumed). A warning names the repeats.</li>
 *   <li>UUIDs in {@code HIP_VISIBLE_DEVICES}/{@code CUDA_VISIBLE_DEVICES} are accepted, with a warning: HIP versions
 *       whose parser reads only indices stop at them. {@code MIG-} entries are invalid.</li>
 *   <li>{@code GPU_DEVICE_ORDINAL} is read by ROCm's OpenCL, not by HIP; when set, a warning says it is not
 *       applied.</li>
 * </ol>
 *
 * <p>Values are never trusted: messages quote them with {@link UntrustedText#quote}, cut after
 * {@value #MAX_QUOTED_CHARS} characters.
 */
public final class DeviceVisibility {

    /** Read by the CUDA driver, and by HIP when {@code HIP_VISIBLE_DEVICES} is unset or empty. */
    public static final String CUDA_VISIBLE_DEVICES = "CUDA_VISIBLE_DEVICES";
    /** {@code PCI_BUS_ID} or (the default) {@code FASTEST_FIRST}: how CUDA numbers GPUs. */
    public static final String CUDA_DEVICE_ORDER = "CUDA_DEVICE_ORDER";
    /** Read by the ROCm runtime (ROCr), below HIP; also filters what rocminfo and amdgpu-arch report. */
    public static final String ROCR_VISIBLE_DEVICES = "ROCR_VISIBLE_DEVICES";
    /** Read by the HIP runtime, relative to what ROCr left. */
    public static final String HIP_VISIBLE_DEVICES = "HIP_VISIBLE_DEVICES";
    /** Read by ROCm's OpenCL, not applied here (a warning says so). */
    public static final String GPU_DEVICE_ORDINAL = "GPU_DEVICE_ORDINAL";

    /** The most characters of a user-supplied value that a message quotes. */
    public static final int MAX_QUOTED_CHARS = 100;

    private static final String PCI_BUS_ID = "PCI_BUS_ID";
    private static final int MAX_ENTRY_CHARS = 128;
    private static final int MAX_REPEATS_LISTED = 5;

    private static final Pattern INDEX = Pattern.compile("[0-9]+");
    private static final Pattern GPU_UUID = Pattern.compile("GPU-[0-9A-Fa-f-]*[0-9A-Fa-f][0-9A-Fa-f-]*");
    private static final Pattern MIG_UUID = Pattern.compile("MIG-[0-9A-Za-z/-]*[0-9A-Za-z][0-9A-Za-z/-]*");
    private static final Pattern LEGACY_MIG = Pattern.compile("MIG-(GPU-[0-9A-Fa-f-]+)/[0-9]{1,4}/[0-9]{1,4}");

    /** Who reads a variable, and how. */
    private enum Reader {
        CUDA("the CUDA driver", "nvidia-smi device"),
        ROCR("ROCm", "device"),
        HIP("HIP", "device");

        final String who;
        final String noun;

        Reader(String who, String noun) {
            this.who = who;
            this.noun = noun;
        }
    }

    private enum Kind { INDEX, GPU_UUID, MIG }

    /** An entry resolved to a device, or the reason it is invalid. */
    private record Resolved(GpuDevice device, Object key, Kind kind, String label, String problem) {
        static Resolved invalid(String problem) {
            return new Resolved(null, null, null, null, problem);
        }
    }

    /** One variable applied to a list of candidates. */
    private static final class Step {
        final Reader reader;
        final String variable;
        final String value;
        final List<GpuDevice> candidates;
        final List<GpuDevice> selected = new ArrayList<>();
        final List<String> warnings = new ArrayList<>();
        /** Why the list ended early: "entry 2 "7" is out of range (...)"; null when every entry applied. */
        String stopped;
        /** CUDA only: the repeat that hides every device; null when none. */
        String repeat;
        boolean byIndex;
        boolean byUuid;
        int migEntries;

        Step(Reader reader, String variable, String value, List<GpuDevice> candidates) {
            this.reader = reader;
            this.variable = variable;
            this.value = value;
            this.candidates = candidates;
        }
    }

    /** The caller's {@code nvidia-smi -L} listing, asked for at most once. */
    private static final class MigSource {
        private final Supplier<List<NvidiaSmiGpu>> supplier;
        private List<NvidiaSmiGpu> gpus;

        MigSource(Supplier<List<NvidiaSmiGpu>> supplier) {
            this.supplier = supplier;
        }

        List<NvidiaSmiGpu> get() {
            if (gpus == null) {
                List<NvidiaSmiGpu> listed = supplier.get();
                gpus = listed == null ? List.of() : listed;
            }
            return gpus;
        }
    }

    private DeviceVisibility() {
    }

    /**
     * The devices of {@code detected} that {@code env} leaves visible to programs of {@code platform}.
     *
     * @param platform   which runtime's variables apply
     * @param detected   every device of that platform the probe reported, unfiltered, in the tool's order
     * @param env        the coordinator's environment (only the variables named in this class are read; a
     *                   {@code null} value counts as unset)
     * @param migListing {@code nvidia-smi -L}, parsed; asked at most once, and only when a {@code MIG-} entry of
     *                   {@code CUDA_VISIBLE_DEVICES} has to be mapped to its GPU; a {@code null} answer counts as an
     *                   empty listing; what it throws propagates
     * @return the devices left, in the order selected, with a description and warnings for the report
     * @throws ArchResolutionException when no device is left (or none was detected), naming each variable, its value,
     *                                 what it selected, and the fix
     * @throws IllegalArgumentException when a detected device is not of {@code platform}
     */
    public static VisibleDevices apply(Platform platform, List<GpuDevice> detected, Map<String, String> env,
                                       Supplier<List<NvidiaSmiGpu>> migListing) throws ArchResolutionException {
        Objects.requireNonNull(platform, "platform");
        Objects.requireNonNull(env, "env");
        Objects.requireNonNull(migListing, "migListing");
        List<GpuDevice> devices = List.copyOf(detected);
        for (GpuDevice d : devices) {
            if (d.platform() != platform) {
                throw new IllegalArgumentException("a " + d.platform() + " device among the " + platform + " devices: " + d);
            }
        }
        if (devices.isEmpty()) {
            throw new ArchResolutionException("no " + platform + " device was detected, so there is none for the"
                    + " visibility variables to select. Fix: run where the GPU and its tools are visible, or pass --arch.");
        }
        return platform == Platform.CUDA
                ? applyCuda(devices, env, new MigSource(migListing))
                : applyHip(devices, env);
    }

    private static VisibleDevices applyCuda(List<GpuDevice> detected, Map<String, String> env, MigSource migs)
            throws ArchResolutionException {
        String value = env.get(CUDA_VISIBLE_DEVICES);
        if (value == null) {
            return new VisibleDevices(detected, "none set: all " + count(detected), List.of());
        }
        Step step = select(Reader.CUDA, CUDA_VISIBLE_DEVICES, value, detected, detected,
                "nvidia-smi lists " + count(detected) + " " + range(detected.size()), "", migs);
        if (step.selected.isEmpty()) {
            throw noDevice(Platform.CUDA, detected, List.of(step));
        }
        List<String> warnings = new ArrayList<>(step.warnings);
        if (step.byIndex && step.byUuid) {
            warnings.add(assignment(CUDA_VISIBLE_DEVICES, value) + " mixes indices and UUIDs; the CUDA driver may stop"
                    + " at the first entry of a different kind than the first, so CUDA programs may see fewer GPUs than"
                    + " archpool builds for. Use only indices or only UUIDs.");
        }
        if (step.migEntries > 1) {
            warnings.add(assignment(CUDA_VISIBLE_DEVICES, value) + " lists " + step.migEntries + " MIG devices; CUDA 11"
                    + " and 12 enumerate only one MIG device per process, so CUDA programs may see just one of them;"
                    + " archpool builds for the GPUs of all of them.");
        }
        String applied = assignment(CUDA_VISIBLE_DEVICES, value) + " → " + indices(Reader.CUDA, step.selected);
        List<GpuDevice> devices = step.selected;
        TreeSet<String> archs = detected.stream().map(GpuDevice::arch).collect(Collectors.toCollection(TreeSet::new));
        String order = env.get(CUDA_DEVICE_ORDER);
        if (step.byIndex && archs.size() > 1 && !PCI_BUS_ID.equals(order)) {
            List<GpuDevice> widened = new ArrayList<>(step.selected);
            detected.stream().filter(d -> !widened.contains(d)).forEach(widened::add);
            boolean grew = widened.size() > step.selected.size();
            if (grew) {
                applied += " in PCI order; all " + count(detected) + " kept, as CUDA_DEVICE_ORDER is not PCI_BUS_ID";
            }
            warnings.add(assignment(CUDA_VISIBLE_DEVICES, value) + " selects GPUs by index on a host whose GPUs have"
                    + " different architectures (" + String.join(", ", archs) + "), but CUDA_DEVICE_ORDER is "
                    + (order == null ? "not set" : "set to " + quote(order)) + ": unless it is PCI_BUS_ID, CUDA numbers"
                    + " the fastest GPU first instead of following nvidia-smi's PCI order, so an index may name"
                    + " another GPU than nvidia-smi's device of that number. "
                    + (grew ? "archpool builds for all " + count(detected) + " so that the build runs on whichever"
                            + " GPU CUDA picks. "
                            : "")
                    + "Set CUDA_DEVICE_ORDER=PCI_BUS_ID, or select GPUs by UUID (nvidia-smi -L), to make the selection"
                    + " exact.");
            devices = widened;
        }
        return new VisibleDevices(devices, applied, warnings);
    }

    private static VisibleDevices applyHip(List<GpuDevice> detected, Map<String, String> env)
            throws ArchResolutionException {
        List<Step> steps = new ArrayList<>();
        List<String> applied = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        List<GpuDevice> current = detected;
        String rocr = env.get(ROCR_VISIBLE_DEVICES);
        if (rocr != null) {
            Step step = select(Reader.ROCR, ROCR_VISIBLE_DEVICES, rocr, detected, detected,
                    "there are " + count(detected) + " " + range(detected.size()), "", null);
            steps.add(step);
            if (step.selected.isEmpty()) {
                throw noDevice(Platform.HIP, detected, steps);
            }
            warnings.addAll(step.warnings);
            applied.add(assignment(ROCR_VISIBLE_DEVICES, rocr) + " → " + indices(Reader.ROCR, step.selected));
            current = step.selected;
        }
        String hip = env.get(HIP_VISIBLE_DEVICES);
        String cuda = env.get(CUDA_VISIBLE_DEVICES);
        String variable = null;
        String value = null;
        if (hip != null && !hip.isEmpty()) {
            variable = HIP_VISIBLE_DEVICES;
            value = hip;
            if (cuda != null) {
                warnings.add(assignment(CUDA_VISIBLE_DEVICES, cuda) + " is not applied: HIP reads it only when"
                        + " HIP_VISIBLE_DEVICES is unset or empty, and HIP_VISIBLE_DEVICES is set.");
            }
        } else {
            if (hip != null && (cuda == null || cuda.isEmpty())) {
                applied.add("HIP_VISIBLE_DEVICES=\"\" (empty, so unset for HIP)");
            }
            if (cuda != null && !cuda.isEmpty()) {
                variable = CUDA_VISIBLE_DEVICES;
                value = cuda;
            } else if (cuda != null) {
                applied.add("CUDA_VISIBLE_DEVICES=\"\" (empty, so unset for HIP)");
                warnings.add("CUDA_VISIBLE_DEVICES is set but empty: HIP treats that as unset and shows "
                        + (rocr == null ? "every GPU" : "every GPU ROCR_VISIBLE_DEVICES left")
                        + ", although a CUDA program would see none; archpool builds for those GPUs. Unset it, or use"
                        + " ROCR_VISIBLE_DEVICES=\"\" to hide AMD GPUs.");
            }
        }
        if (variable != null) {
            String rangeText = rocr == null
                    ? "there are " + count(detected) + " " + range(detected.size())
                    : "ROCR_VISIBLE_DEVICES left " + count(current) + ", which HIP numbers " + range(current.size());
            String scope = rocr == null ? "" : " among the " + count(current) + " ROCR_VISIBLE_DEVICES left";
            Step step = select(Reader.HIP, variable, value, current, detected, rangeText, scope, null);
            steps.add(step);
            if (step.selected.isEmpty()) {
                throw noDevice(Platform.HIP, detected, steps);
            }
            warnings.addAll(step.warnings);
            if (step.byUuid) {
                warnings.add(assignment(variable, value) + " names GPUs by UUID; HIP versions that read only indices"
                        + " there stop at the first UUID. ROCR_VISIBLE_DEVICES takes UUIDs on every ROCm version.");
            }
            String via = variable.equals(CUDA_VISIBLE_DEVICES) ? " (read by HIP as HIP_VISIBLE_DEVICES is "
                    + (hip == null ? "unset)" : "empty)") : "";
            applied.add(assignment(variable, value) + via + " → " + indices(Reader.HIP, step.selected));
            current = step.selected;
        }
        String ordinal = env.get(GPU_DEVICE_ORDINAL);
        if (ordinal != null && !ordinal.isEmpty()) {
            warnings.add(assignment(GPU_DEVICE_ORDINAL, ordinal) + " is not applied: it selects GPUs for ROCm's"
                    + " OpenCL, while HIP programs use HIP_VISIBLE_DEVICES (or CUDA_VISIBLE_DEVICES) and"
                    + " ROCR_VISIBLE_DEVICES.");
        }
        String description;
        if (steps.isEmpty()) {
            description = (applied.isEmpty() ? "none set" : String.join("; ", applied)) + ": all " + count(detected);
        } else {
            description = String.join("; ", applied);
        }
        return new VisibleDevices(current, description, warnings);
    }

    /**
     * Applies one variable's value to {@code candidates}. {@code detected} is every device (a MIG entry's GPU is
     * looked up there); {@code rangeText} describes the valid indices; {@code scope} qualifies "no device's UUID".
     */
    private static Step select(Reader reader, String variable, String value, List<GpuDevice> candidates,
                               List<GpuDevice> detected, String rangeText, String scope, MigSource migs) {
        Step step = new Step(reader, variable, value, candidates);
        Map<Object, Integer> seen = new HashMap<>();
        List<String> skipped = new ArrayList<>();
        int skippedCount = 0;
        int start = 0;
        int position = 0;
        while (true) {
            int comma = value.indexOf(',', start);
            int end = comma < 0 ? value.length() : comma;
            String raw = value.substring(start, end);
            position++;
            Resolved r = resolve(reader, strip(raw), candidates, detected, rangeText, scope, migs);
            if (r.problem() != null) {
                step.stopped = "entry " + position + " " + quote(raw) + " " + r.problem();
                step.warnings.add(assignment(variable, value) + ": entry " + position + " " + quote(raw) + " "
                        + r.problem() + ", so " + reader.who + " ignores it and everything after it ("
                        + quote(value.substring(start)) + ").");
                break;
            }
            Integer earlier = seen.putIfAbsent(r.key(), position);
            if (earlier != null) {
                String what = r.kind() == Kind.MIG
                        ? "MIG device " + quote(r.label())
                        : reader.noun + " " + r.device().index();
                if (reader == Reader.CUDA) {
                    step.repeat = "entries " + earlier + " and " + position + " both name " + what
                            + ", and the CUDA driver shows no GPU at all when one is listed twice";
                    step.selected.clear();
                    break;
                }
                skippedCount++;
                if (skipped.size() < MAX_REPEATS_LISTED) {
                    skipped.add(position + " (" + what + ", as entry " + earlier + ")");
                }
            } else {
                switch (r.kind()) {
                    case INDEX -> step.byIndex = true;
                    case GPU_UUID -> step.byUuid = true;
                    case MIG -> {
                        step.byUuid = true;
                        step.migEntries++;
                    }
                }
                if (!step.selected.contains(r.device())) {
                    step.selected.add(r.device());
                }
            }
            if (comma < 0) {
                break;
            }
            start = comma + 1;
        }
        if (skippedCount > 0) {
            step.warnings.add(assignment(variable, value) + " names a GPU more than once; " + reader.who
                    + " skips the repeat" + (skippedCount == 1 ? "" : "s") + ": entr" + (skippedCount == 1 ? "y " : "ies ")
                    + String.join(", ", skipped) + (skippedCount > skipped.size()
                            ? " and " + (skippedCount - skipped.size()) + " more" : "") + ".");
        }
        return step;
    }

    private static Resolved resolve(Reader reader, String entry, List<GpuDevice> candidates, List<GpuDevice> detected,
                                    String rangeText, String scope, MigSource migs) {
        if (entry.isEmpty()) {
            return Resolved.invalid("is empty");
        }
        if (entry.length() > MAX_ENTRY_CHARS) {
            return Resolved.invalid("is too long to be an index or a UUID");
        }
        if (INDEX.matcher(entry).matches()) {
            int index = entry.length() > 9 ? Integer.MAX_VALUE : Integer.parseInt(entry);
            if (index >= candidates.size()) {
                return Resolved.invalid("is out of range (" + rangeText + ")");
            }
            GpuDevice device = candidates.get(index);
            return new Resolved(device, device, Kind.INDEX, null, null);
        }
        if (GPU_UUID.matcher(entry).matches()) {
            return resolveUuid(entry, candidates, scope);
        }
        if (MIG_UUID.matcher(entry).matches()) {
            if (migs == null) {
                return Resolved.invalid("is a MIG device, which only CUDA understands");
            }
            return resolveMig(entry, detected, migs);
        }
        boolean plain = entry.chars().allMatch(c -> c >= 0x20 && c < 0x7f);
        return Resolved.invalid(plain
                ? (reader == Reader.CUDA ? "is not an index, a GPU-… UUID or a MIG-… UUID"
                        : "is not an index or a GPU-… UUID")
                : "is not plain ASCII, so it is not an index or a UUID");
    }

    private static Resolved resolveUuid(String entry, List<GpuDevice> candidates, String scope) {
        List<GpuDevice> matches = candidates.stream()
                .filter(d -> d.uuid() != null && startsWithIgnoreCase(d.uuid(), entry))
                .toList();
        if (matches.size() == 1) {
            return new Resolved(matches.get(0), matches.get(0), Kind.GPU_UUID, null, null);
        }
        if (matches.size() > 1) {
            return Resolved.invalid("matches the UUIDs of " + matches.size() + " devices ("
                    + matches.stream().map(d -> Integer.toString(d.index())).collect(Collectors.joining(", "))
                    + "), so it names none");
        }
        long noUuid = candidates.stream().filter(d -> d.uuid() == null).count();
        String problem = "matches no device's UUID" + scope;
        if (noUuid == candidates.size()) {
            problem += " (the probe gave no UUID for any device, so none can be named by UUID)";
        } else if (noUuid > 0) {
            problem += " (the probe gave no UUID for " + noUuid + " of the " + candidates.size() + " devices, so it"
                    + " cannot be matched against " + (noUuid == 1 ? "that one" : "those") + ")";
        }
        return Resolved.invalid(problem);
    }

    private static Resolved resolveMig(String entry, List<GpuDevice> detected, MigSource migs) {
        List<NvidiaSmiGpu> gpus = migs.get();
        NvidiaSmiGpu parent = null;
        NvidiaSmiMigDevice found = null;
        int matches = 0;
        for (NvidiaSmiGpu gpu : gpus) {
            for (NvidiaSmiMigDevice mig : gpu.migDevices()) {
                if (startsWithIgnoreCase(mig.uuid(), entry)) {
                    matches++;
                    parent = gpu;
                    found = mig;
                }
            }
        }
        if (matches > 1) {
            return Resolved.invalid("matches " + matches + " MIG devices that nvidia-smi -L lists, so it names none");
        }
        if (matches == 1) {
            GpuDevice device = parentOf(parent, detected);
            if (device == null) {
                return Resolved.invalid("is a MIG device of GPU " + quote(parent.uuid())
                        + ", which is not among the detected devices");
            }
            return new Resolved(device, "mig:" + found.uuid().toLowerCase(Locale.ROOT), Kind.MIG, found.uuid(), null);
        }
        Matcher legacy = LEGACY_MIG.matcher(entry);
        if (legacy.matches()) {
            for (GpuDevice d : detected) {
                if (d.uuid() != null && d.uuid().equalsIgnoreCase(legacy.group(1))) {
                    return new Resolved(d, "mig:" + entry.toLowerCase(Locale.ROOT), Kind.MIG, entry, null);
                }
            }
        }
        return Resolved.invalid(gpus.isEmpty()
                ? "is a MIG device, but nvidia-smi -L listed no GPU to map it to"
                : "matches no MIG device that nvidia-smi -L lists");
    }

    /** The detected device that is {@code gpu}: same UUID, or, where the probe gave no UUID, same index. */
    private static GpuDevice parentOf(NvidiaSmiGpu gpu, List<GpuDevice> detected) {
        for (GpuDevice d : detected) {
            if (d.uuid() != null && d.uuid().equalsIgnoreCase(gpu.uuid())) {
                return d;
            }
        }
        for (GpuDevice d : detected) {
            if (d.uuid() == null && d.index() == gpu.index()) {
                return d;
            }
        }
        return null;
    }

    private static ArchResolutionException noDevice(Platform platform, List<GpuDevice> detected, List<Step> steps) {
        StringBuilder sb = new StringBuilder("no ").append(platform).append(" device is visible with this environment"
                + " (").append(count(detected)).append(" detected): ");
        Step last = steps.get(steps.size() - 1);
        for (Step step : steps) {
            if (step != steps.get(0)) {
                sb.append("; then ");
            }
            sb.append(assignment(step.variable, step.value));
            if (step.reader == Reader.HIP && step.variable.equals(CUDA_VISIBLE_DEVICES)) {
                sb.append(" (read by HIP as HIP_VISIBLE_DEVICES is unset or empty)");
            }
            sb.append(" → ");
            if (!step.selected.isEmpty()) {
                sb.append(indices(step.reader, step.selected));
            } else if (step.value.isEmpty()) {
                sb.append("none: it is set but empty, and ").append(step.reader.who).append(" then shows no GPU");
            } else if (step.value.isBlank()) {
                sb.append("none: it holds only white space, which names no GPU");
            } else if (step.repeat != null) {
                sb.append("none: ").append(step.repeat);
            } else {
                sb.append("none: ").append(step.stopped).append(", so ").append(step.reader.who)
                        .append(" ignores it and everything after it");
            }
        }
        String example = last.reader == Reader.CUDA
                ? "indices " + range(last.candidates.size()) + " or UUIDs from nvidia-smi -L"
                : "indices " + range(last.candidates.size()) + " or UUIDs from rocminfo";
        if (last.repeat != null) {
            sb.append(". Fix: list each GPU once, or unset ").append(last.variable).append(", or pass --arch.");
        } else {
            sb.append(". Fix: unset ").append(last.variable).append(" or set it to the GPUs to build for (")
                    .append(example).append("), or pass --arch.");
        }
        return new ArchResolutionException(sb.toString());
    }

    /** {@code 4 devices} or {@code 1 device}. */
    private static String count(List<?> devices) {
        return devices.size() + (devices.size() == 1 ? " device" : " devices");
    }

    /** {@code 0-3}, or {@code 0 only}. */
    private static String range(int size) {
        return size == 1 ? "0 only" : "0-" + (size - 1);
    }

    /** {@code nvidia-smi devices 1, 0} or {@code device 3}: the devices' probe indices. */
    private static String indices(Reader reader, List<GpuDevice> devices) {
        return reader.noun + (devices.size() == 1 ? " " : "s ")
                + devices.stream().map(d -> Integer.toString(d.index())).collect(Collectors.joining(", "));
    }

    /** {@code NAME=value}, the value quoted unless it is short, non-empty, plain ASCII without spaces. */
    private static String assignment(String variable, String value) {
        boolean bare = !value.isEmpty() && value.length() <= MAX_QUOTED_CHARS
                && value.chars().allMatch(c -> c > 0x20 && c < 0x7f && c != '"' && c != '\\');
        return variable + "=" + (bare ? value : quote(value));
    }

    /** {@code text} as {@link UntrustedText#quote} quotes it, cut after {@value #MAX_QUOTED_CHARS} characters. */
    private static String quote(String text) {
        return UntrustedText.quote(text, MAX_QUOTED_CHARS);
    }

    /** {@code text} without the ASCII spaces and tabs around it (no other white space counts). */
    private static String strip(String text) {
        int from = 0;
        int to = text.length();
        while (from < to && (text.charAt(from) == ' ' || text.charAt(from) == '\t')) {
            from++;
        }
        while (to > from && (text.charAt(to - 1) == ' ' || text.charAt(to - 1) == '\t')) {
            to--;
        }
        return text.substring(from, to);
    }

    private static boolean startsWithIgnoreCase(String text, String prefix) {
        return text.regionMatches(true, 0, prefix, 0, prefix.length());
    }
}
