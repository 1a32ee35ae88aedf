package org.archpool.orchestrator.arch;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
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
 *
 * <p>This class checks its arguments and hands over to {@link CudaVisibility} or {@link HipVisibility}, which
 * apply each variable as a {@link VisibilityStep} (the list of entries, each a {@link VisibilityEntry}, MIG entries
 * mapped by {@link MigMatcher}) and describe the outcome with {@link VisibilityText}.
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
                ? CudaVisibility.apply(devices, env, new MigMatcher(migListing))
                : HipVisibility.apply(devices, env);
    }
}
