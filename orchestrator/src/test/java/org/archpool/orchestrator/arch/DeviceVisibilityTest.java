package org.archpool.orchestrator.arch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.archpool.protocol.Platform;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class DeviceVisibilityTest {

    private static final String CVD = DeviceVisibility.CUDA_VISIBLE_DEVICES;
    private static final String ORDER = DeviceVisibility.CUDA_DEVICE_ORDER;
    private static final String ROCR = DeviceVisibility.ROCR_VISIBLE_DEVICES;
    private static final String HIP = DeviceVisibility.HIP_VISIBLE_DEVICES;
    private static final String ORDINAL = DeviceVisibility.GPU_DEVICE_ORDINAL;

    // ---- hosts, built by hand; UUIDs, names and capabilities are those of the captured fixtures ----

    private static final String H200_UUID = "GPU-65af7ae3-370d-13bc-7a10-a93e8ff6d1e8";
    private static final String A100_SXM_UUID = "GPU-c9297a60-5079-9a56-b935-51e08dc0f65e";
    private static final String POD_MIG_UUID = "MIG-1c5876e6-d3b9-524a-9eb4-664fcfbd4de2";
    private static final String MIG_FIXTURE = "nvidia-smi/L-dgx-a100-pod-one-mig-slice.txt";

    /** {@code 0, GPU-65af7ae3-370d-13bc-7a10-a93e8ff6d1e8, 9.0, NVIDIA H200}. */
    private static final List<GpuDevice> H200 = List.of(cuda(0, H200_UUID, "90", "NVIDIA H200"));

    /** The mixed host of L-mixed-t1000-v100.txt: compute capability 7.5 then 7.0, in nvidia-smi (PCI) order. */
    private static final List<GpuDevice> T1000_V100 = List.of(
            cuda(0, "GPU-c05fe28c-5935-1c6d-3633-2fc61d26b6d4", "75", "NVIDIA T1000"),
            cuda(1, "GPU-b08ecee0-0ea5-7b07-d459-baa5b95f5e89", "70", "Tesla V100-PCIE-16GB"));

    /** The eight Quadro RTX 8000 (7.5) of L-8x-quadro-rtx8000.txt; "GPU-b" prefixes devices 2, 4 and 5. */
    private static final List<GpuDevice> QUADRO_X8 = List.of(
            cuda(0, "GPU-6b201039-6477-dd9c-1edd-137c8c44f8d6", "75", "Quadro RTX 8000"),
            cuda(1, "GPU-dbd81806-9040-9cc3-9eb9-87684fa2b7a4", "75", "Quadro RTX 8000"),
            cuda(2, "GPU-b4524d9e-858d-1050-1b4d-4fe0c94e8ea8", "75", "Quadro RTX 8000"),
            cuda(3, "GPU-51c72de5-fdc2-94b1-59e6-a12d4e961695", "75", "Quadro RTX 8000"),
            cuda(4, "GPU-bf443bbf-8598-8e63-e10c-e23ca737da84", "75", "Quadro RTX 8000"),
            cuda(5, "GPU-b20d26a5-5f6f-5c96-9d2e-ba6bfbb5d9a0", "75", "Quadro RTX 8000"),
            cuda(6, "GPU-5a497672-18a9-95c7-5b61-74353dd9c9cb", "75", "Quadro RTX 8000"),
            cuda(7, "GPU-9f690c37-bb84-1e1a-1e4a-3dbfd1b1015c", "75", "Quadro RTX 8000"));

    /** What nvidia-smi --query-gpu shows inside the pod of the MIG fixture: the parent A100 (8.0). */
    private static final List<GpuDevice> MIG_POD = List.of(cuda(0, A100_SXM_UUID, "80", "NVIDIA A100-SXM4-40GB"));

    /** A host where the MIG fixture's parent GPU is device 1, although nvidia-smi -L in the pod calls it GPU 0. */
    private static final List<GpuDevice> A100_PCIE_AND_SXM = List.of(
            cuda(0, "GPU-63110aaa-3561-c8f5-e125-4ab40bbcf838", "80", "NVIDIA A100-PCIE-40GB"),
            cuda(1, A100_SXM_UUID, "80", "NVIDIA A100-SXM4-40GB"));

    /** The four MI300X of rocminfo/mi300x-x4-gfx942.txt; "GPU-e" prefixes devices 2 and 3. */
    private static final List<GpuDevice> MI300X_X4 = List.of(
            mi300x(0, "GPU-8d1457e2c20f59d2"),
            mi300x(1, "GPU-b4fa34630e85d42a"),
            mi300x(2, "GPU-e8986800e182538a"),
            mi300x(3, "GPU-eff71edc82169115"));

    /** A mixed AMD host: MI300X (gfx942) and MI355X (gfx950) alternating. */
    private static final List<GpuDevice> GFX942_GFX950 = List.of(
            mi300x(0, "GPU-8d1457e2c20f59d2"),
            hip(1, "GPU-3a5c0e17b9d24f60", "gfx950", "AMD Instinct MI355X", "gfx950:sramecc+:xnack-"),
            mi300x(2, "GPU-b4fa34630e85d42a"),
            hip(3, "GPU-7d2e91c4a0b35f18", "gfx950", "AMD Instinct MI355X", "gfx950:sramecc+:xnack-"));

    /** rocminfo under WSL (rx7900xtx-gfx1100-wsl-no-gpu-uuid.txt): no GPU Uuid line, so no UUID. */
    private static final List<GpuDevice> WSL_NO_UUID =
            List.of(hip(0, null, "gfx1100", "AMD Radeon RX 7900 XTX", "gfx1100"));

    /** One device with a UUID and one without (amdgpu-arch gives none, old rocminfo neither). */
    private static final List<GpuDevice> ONE_WITHOUT_UUID = List.of(
            mi300x(0, "GPU-8d1457e2c20f59d2"),
            hip(1, null, "gfx90a", "AMD Instinct MI250X", "gfx90a:sramecc+:xnack-"));

    private static GpuDevice cuda(int index, String uuid, String arch, String name) {
        return new GpuDevice(Platform.CUDA, index, uuid, arch, name);
    }

    private static GpuDevice hip(int index, String uuid, String arch, String name, String targetId) {
        return new GpuDevice(Platform.HIP, index, uuid, arch, name, targetId);
    }

    private static GpuDevice mi300x(int index, String uuid) {
        return hip(index, uuid, "gfx942", "AMD Instinct MI300X", "gfx942:sramecc+:xnack-");
    }

    /** nvidia-smi -L of the captured pod: GPU 0 (the A100 SXM4) with its one 1g.5gb MIG device. */
    private static List<NvidiaSmiGpu> podListing() {
        try {
            return NvidiaSmiParser.parseList(Fixtures.read(MIG_FIXTURE));
        } catch (ProbeOutputException e) {
            throw new AssertionError(e);
        }
    }

    private static final Supplier<List<NvidiaSmiGpu>> NOT_ASKED = () -> {
        throw new AssertionError("nvidia-smi -L must not be asked for");
    };

    private static Map<String, String> env(String... pairs) {
        Map<String, String> env = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            env.put(pairs[i], pairs[i + 1]);
        }
        return env;
    }

    /** Whether every character is printable (no control character leaked from a value into a message). */
    private static boolean printable(String text) {
        return text.chars().allMatch(c -> c >= 0x20 && c != 0x7f);
    }

    // ---- the visibility matrix ----

    /**
     * One row: a host, an environment, and either the devices left (by probe index, in order), the exact
     * {@code applied} text where given and a fragment of each warning in order (exactly that many warnings), or
     * fragments of the error message.
     */
    static final class Row {
        final Platform platform;
        final List<GpuDevice> devices;
        final Map<String, String> env;
        Supplier<List<NvidiaSmiGpu>> migs = NOT_ASKED;
        List<Integer> selects;
        String applied;
        List<String> warnings = List.of();
        List<String> errors;

        Row(Platform platform, List<GpuDevice> devices, String... env) {
            this.platform = platform;
            this.devices = devices;
            this.env = env(env);
        }

        Row selects(Integer... indices) {
            selects = List.of(indices);
            return this;
        }

        Row applied(String text) {
            applied = text;
            return this;
        }

        Row warns(String... fragments) {
            warnings = List.of(fragments);
            return this;
        }

        Row fails(String... fragments) {
            errors = List.of(fragments);
            return this;
        }

        Row migs(Supplier<List<NvidiaSmiGpu>> listing) {
            migs = listing;
            return this;
        }

        void check() throws ArchResolutionException {
            if (errors != null) {
                ArchResolutionException e = catchThrowableOfType(ArchResolutionException.class,
                        () -> DeviceVisibility.apply(platform, devices, env, migs));
                assertThat(e).as("expected an ArchResolutionException").isNotNull();
                assertThat(e.getMessage()).contains(errors).contains("--arch").matches(DeviceVisibilityTest::printable);
                return;
            }
            VisibleDevices v = DeviceVisibility.apply(platform, devices, env, migs);
            assertThat(v.devices()).extracting(GpuDevice::index).containsExactlyElementsOf(selects);
            assertThat(v.devices()).allMatch(devices::contains).doesNotHaveDuplicates();
            if (applied != null) {
                assertThat(v.applied()).isEqualTo(applied);
            }
            assertThat(v.applied()).matches(DeviceVisibilityTest::printable);
            assertThat(v.warnings()).as("warnings").hasSize(warnings.size());
            for (int i = 0; i < warnings.size(); i++) {
                assertThat(v.warnings().get(i)).contains(warnings.get(i)).matches(DeviceVisibilityTest::printable);
            }
        }
    }

    private static Arguments row(String name, Row row) {
        return Arguments.of(Named.of(name, row));
    }

    private static Row cudaHost(List<GpuDevice> devices, String... env) {
        return new Row(Platform.CUDA, devices, env);
    }

    private static Row hipHost(List<GpuDevice> devices, String... env) {
        return new Row(Platform.HIP, devices, env);
    }

    static Stream<Arguments> cudaMatrix() {
        return Stream.of(
                // unset, empty, white space, -1
                row("unset: every device", cudaHost(QUADRO_X8)
                        .selects(0, 1, 2, 3, 4, 5, 6, 7).applied("none set: all 8 devices")),
                row("unset on the mixed host: every device, no warning even without CUDA_DEVICE_ORDER",
                        cudaHost(T1000_V100).selects(0, 1).applied("none set: all 2 devices")),
                row("HIP's variables do not hide CUDA devices", cudaHost(H200, ROCR, "", HIP, "5")
                        .selects(0).applied("none set: all 1 device")),
                row("empty: no device", cudaHost(QUADRO_X8, CVD, "")
                        .fails("no CUDA device is visible with this environment (8 devices detected): ",
                                "CUDA_VISIBLE_DEVICES=\"\" → none: it is set but empty, and the CUDA driver then shows"
                                        + " no GPU",
                                "Fix: unset CUDA_VISIBLE_DEVICES or set it to the GPUs to build for (indices 0-7")),
                row("spaces only: no device", cudaHost(H200, CVD, "   ")
                        .fails("CUDA_VISIBLE_DEVICES=\"   \" → none: it holds only white space")),
                row("tab and newline only: no device", cudaHost(H200, CVD, "\t\n")
                        .fails("CUDA_VISIBLE_DEVICES=\"\\t\\n\" → none: it holds only white space")),
                row("-1 (the usual way to hide GPUs): no device", cudaHost(H200, CVD, "-1")
                        .fails("CUDA_VISIBLE_DEVICES=-1 → none: entry 1 \"-1\" is not an index, a GPU-… UUID or a"
                                + " MIG-… UUID, so the CUDA driver ignores it and everything after it")),
                // indices
                row("single index", cudaHost(QUADRO_X8, CVD, "3")
                        .selects(3).applied("CUDA_VISIBLE_DEVICES=3 → nvidia-smi device 3")),
                row("several indices, in the order given", cudaHost(QUADRO_X8, CVD, "2,0,5")
                        .selects(2, 0, 5).applied("CUDA_VISIBLE_DEVICES=2,0,5 → nvidia-smi devices 2, 0, 5")),
                row("spaces and tabs around entries are dropped", cudaHost(QUADRO_X8, CVD, " 1 ,\t2")
                        .selects(1, 2).applied("CUDA_VISIBLE_DEVICES=\" 1 ,\\t2\" → nvidia-smi devices 1, 2")),
                row("leading zeros", cudaHost(QUADRO_X8, CVD, "07").selects(7)),
                row("the documented example 0,2,-1,1: devices 0 and 2", cudaHost(QUADRO_X8, CVD, "0,2,-1,1")
                        .selects(0, 2)
                        .warns("CUDA_VISIBLE_DEVICES=0,2,-1,1: entry 3 \"-1\" is not an index, a GPU-… UUID or a MIG-…"
                                + " UUID, so the CUDA driver ignores it and everything after it (\"-1,1\").")),
                row("out-of-range index ends the list", cudaHost(QUADRO_X8, CVD, "1,8,2")
                        .selects(1).applied("CUDA_VISIBLE_DEVICES=1,8,2 → nvidia-smi device 1")
                        .warns("entry 2 \"8\" is out of range (nvidia-smi lists 8 devices 0-7), so the CUDA driver"
                                + " ignores it and everything after it (\"8,2\")")),
                row("out-of-range first index: no device", cudaHost(H200, CVD, "1")
                        .fails("CUDA_VISIBLE_DEVICES=1 → none: entry 1 \"1\" is out of range (nvidia-smi lists 1"
                                + " device 0 only)", "(indices 0 only or UUIDs from nvidia-smi -L)")),
                row("index of ten digits is out of range, not an overflow", cudaHost(H200, CVD, "0,4294967296")
                        .selects(0).warns("entry 2 \"4294967296\" is out of range (nvidia-smi lists 1 device 0 only)")),
                row("empty entry ends the list", cudaHost(QUADRO_X8, CVD, "0,,1")
                        .selects(0).warns("entry 2 \"\" is empty")),
                row("trailing comma: an empty last entry, nothing lost", cudaHost(QUADRO_X8, CVD, "0,1,")
                        .selects(0, 1).warns("entry 3 \"\" is empty")),
                row("number followed by letters is invalid", cudaHost(QUADRO_X8, CVD, "0,1gpu")
                        .selects(0).warns("entry 2 \"1gpu\" is not an index")),
                row("plus sign is invalid", cudaHost(QUADRO_X8, CVD, "+1").fails("entry 1 \"+1\" is not an index")),
                // UUIDs
                row("full UUID", cudaHost(H200, CVD, H200_UUID)
                        .selects(0).applied("CUDA_VISIBLE_DEVICES=" + H200_UUID + " → nvidia-smi device 0")),
                row("UUID prefix", cudaHost(H200, CVD, "GPU-65af").selects(0)),
                row("UUID prefix ending with a dash", cudaHost(H200, CVD, "GPU-65af7ae3-").selects(0)),
                row("hex digits compare case-insensitively", cudaHost(H200, CVD, "GPU-65AF7AE3").selects(0)),
                row("lower-case gpu- is not a UUID", cudaHost(H200, CVD, "gpu-65af7ae3")
                        .fails("entry 1 \"gpu-65af7ae3\" is not an index, a GPU-… UUID")),
                row("GPU- alone names nothing", cudaHost(H200, CVD, "GPU-").fails("entry 1 \"GPU-\" is not an index")),
                row("UUIDs in the order given", cudaHost(QUADRO_X8, CVD, "GPU-b20d,GPU-6b20")
                        .selects(5, 0).applied("CUDA_VISIBLE_DEVICES=GPU-b20d,GPU-6b20 → nvidia-smi devices 5, 0")),
                row("ambiguous prefix: no device", cudaHost(QUADRO_X8, CVD, "GPU-b")
                        .fails("entry 1 \"GPU-b\" matches the UUIDs of 3 devices (2, 4, 5), so it names none")),
                row("ambiguous prefix ends the list", cudaHost(QUADRO_X8, CVD, "GPU-b4,GPU-b,GPU-6b")
                        .selects(2).warns("entry 2 \"GPU-b\" matches the UUIDs of 3 devices (2, 4, 5)")),
                row("unknown UUID: no device", cudaHost(H200, CVD, "GPU-ffff")
                        .fails("entry 1 \"GPU-ffff\" matches no device's UUID, so the CUDA driver ignores it")),
                row("UUID of a device not detected ends the list", cudaHost(T1000_V100, CVD, "GPU-b08e," + H200_UUID)
                        .selects(1).warns("entry 2 \"" + H200_UUID + "\" matches no device's UUID")),
                row("UUID cannot name a device nvidia-smi gave no UUID for",
                        cudaHost(List.of(cuda(0, null, "89", null)), CVD, "GPU-1234")
                                .fails("matches no device's UUID (the probe gave no UUID for any device")),
                row("mixed index and UUID: both apply, with a warning", cudaHost(QUADRO_X8, CVD, "1,GPU-b4")
                        .selects(1, 2).applied("CUDA_VISIBLE_DEVICES=1,GPU-b4 → nvidia-smi devices 1, 2")
                        .warns("CUDA_VISIBLE_DEVICES=1,GPU-b4 mixes indices and UUIDs")),
                // repeats
                row("repeated index: no device at all", cudaHost(QUADRO_X8, CVD, "0,0")
                        .fails("CUDA_VISIBLE_DEVICES=0,0 → none: entries 1 and 2 both name nvidia-smi device 0, and"
                                        + " the CUDA driver shows no GPU at all when one is listed twice",
                                "Fix: list each GPU once, or unset CUDA_VISIBLE_DEVICES")),
                row("repeat through a UUID: no device", cudaHost(QUADRO_X8, CVD, "1,2,GPU-b45")
                        .fails("entries 2 and 3 both name nvidia-smi device 2")),
                row("repeat after an invalid entry does not count", cudaHost(QUADRO_X8, CVD, "0,9,0")
                        .selects(0).warns("entry 2 \"9\" is out of range")),
                // hostile values
                row("full-width digit is not an index", cudaHost(QUADRO_X8, CVD, "\uFF11")
                        .fails("CUDA_VISIBLE_DEVICES=\"\\uff11\" → none: entry 1 \"\\uff11\" is not plain ASCII")),
                row("Arabic-Indic digit after a valid entry ends the list", cudaHost(QUADRO_X8, CVD, "4,\u0663")
                        .selects(4).warns("entry 2 \"\\u0663\" is not plain ASCII, so it is not an index or a UUID")),
                row("control characters are escaped", cudaHost(QUADRO_X8, CVD, "1,\u001B[31m2")
                        .selects(1).applied("CUDA_VISIBLE_DEVICES=\"1,\\u001b[31m2\" → nvidia-smi device 1")
                        .warns("entry 2 \"\\u001b[31m2\" is not plain ASCII")),
                row("NUL inside an entry", cudaHost(QUADRO_X8, CVD, "0\u0000")
                        .fails("entry 1 \"0\\u0000\" is not plain ASCII")),
                row("non-breaking space is not stripped", cudaHost(QUADRO_X8, CVD, "\u00A01")
                        .fails("entry 1 \"\\u00a01\" is not plain ASCII")),
                // heterogeneous host, selection by index
                row("mixed host, index, order unset: widened to every device", cudaHost(T1000_V100, CVD, "1")
                        .selects(1, 0)
                        .applied("CUDA_VISIBLE_DEVICES=1 → nvidia-smi device 1 in PCI order; all 2 devices kept, as"
                                + " CUDA_DEVICE_ORDER is not PCI_BUS_ID")
                        .warns("CUDA_VISIBLE_DEVICES=1 selects GPUs by index on a host whose GPUs have different"
                                + " architectures (70, 75), but CUDA_DEVICE_ORDER is not set: unless it is PCI_BUS_ID")),
                row("mixed host, index, FASTEST_FIRST: widened", cudaHost(T1000_V100, CVD, "0", ORDER, "FASTEST_FIRST")
                        .selects(0, 1).warns("CUDA_DEVICE_ORDER is set to \"FASTEST_FIRST\": unless it is PCI_BUS_ID")),
                row("mixed host, index, lower-case pci_bus_id does not count",
                        cudaHost(T1000_V100, CVD, "0", ORDER, "pci_bus_id")
                                .selects(0, 1).warns("set to \"pci_bus_id\"")),
                row("mixed host, index, PCI_BUS_ID: exact, no warning",
                        cudaHost(T1000_V100, CVD, "1", ORDER, "PCI_BUS_ID")
                                .selects(1).applied("CUDA_VISIBLE_DEVICES=1 → nvidia-smi device 1")),
                row("mixed host, UUID: exact, no warning", cudaHost(T1000_V100, CVD, "GPU-b08e")
                        .selects(1).applied("CUDA_VISIBLE_DEVICES=GPU-b08e → nvidia-smi device 1")),
                row("mixed host, every index: warned, nothing to widen", cudaHost(T1000_V100, CVD, "1,0")
                        .selects(1, 0).applied("CUDA_VISIBLE_DEVICES=1,0 → nvidia-smi devices 1, 0")
                        .warns("different architectures (70, 75)")),
                row("mixed host, index then UUID: widened, two warnings",
                        cudaHost(T1000_V100, CVD, "0,GPU-b08e")
                                .selects(0, 1).warns("mixes indices and UUIDs", "different architectures")),
                row("same-arch host, index: no warning", cudaHost(QUADRO_X8, CVD, "6").selects(6)),
                // MIG, with the captured pod listing
                row("MIG device UUID: its parent GPU", cudaHost(MIG_POD, CVD, POD_MIG_UUID).migs(
                        DeviceVisibilityTest::podListing)
                        .selects(0).applied("CUDA_VISIBLE_DEVICES=" + POD_MIG_UUID + " → nvidia-smi device 0")),
                row("MIG UUID prefix", cudaHost(MIG_POD, CVD, "MIG-1c58").migs(DeviceVisibilityTest::podListing)
                        .selects(0)),
                row("MIG parent found by UUID, not by the listing's index",
                        cudaHost(A100_PCIE_AND_SXM, CVD, "MIG-1c5876e6").migs(DeviceVisibilityTest::podListing)
                                .selects(1)),
                row("index then MIG", cudaHost(A100_PCIE_AND_SXM, CVD, "0,MIG-1c5876e6")
                        .migs(DeviceVisibilityTest::podListing).selects(0, 1).warns("mixes indices and UUIDs")),
                row("parent GPU UUID and its MIG device: the GPU once",
                        cudaHost(MIG_POD, CVD, "GPU-c929,MIG-1c58").migs(DeviceVisibilityTest::podListing)
                                .selects(0)),
                row("old MIG-GPU-<uuid>/gi/ci form, by its GPU UUID",
                        cudaHost(MIG_POD, CVD, "MIG-" + A100_SXM_UUID + "/1/0").migs(DeviceVisibilityTest::podListing)
                                .selects(0)),
                row("unknown MIG device: no device", cudaHost(MIG_POD, CVD, "MIG-ffff")
                        .migs(DeviceVisibilityTest::podListing)
                        .fails("entry 1 \"MIG-ffff\" matches no MIG device that nvidia-smi -L lists")),
                row("MIG device with no listing: no device", cudaHost(MIG_POD, CVD, POD_MIG_UUID).migs(List::of)
                        .fails("is a MIG device, but nvidia-smi -L listed no GPU to map it to")),
                row("MIG device of a GPU not detected ends the list", cudaHost(H200, CVD, "0,MIG-1c58")
                        .migs(DeviceVisibilityTest::podListing).selects(0)
                        .warns("entry 2 \"MIG-1c58\" is a MIG device of GPU \"" + A100_SXM_UUID
                                + "\", which is not among the detected devices")),
                row("MIG device twice: no device", cudaHost(MIG_POD, CVD, "MIG-1c58," + POD_MIG_UUID)
                        .migs(DeviceVisibilityTest::podListing)
                        .fails("entries 1 and 2 both name MIG device \"" + POD_MIG_UUID + "\"")),
                row("MIG entry after an invalid entry: nvidia-smi -L not asked", cudaHost(MIG_POD, CVD, "0,7,MIG-1c58")
                        .selects(0).warns("entry 2 \"7\" is out of range")));
    }

    static Stream<Arguments> hipMatrix() {
        return Stream.of(
                row("none set: every device", hipHost(MI300X_X4)
                        .selects(0, 1, 2, 3).applied("none set: all 4 devices")),
                row("CUDA_DEVICE_ORDER means nothing to HIP", hipHost(GFX942_GFX950, HIP, "0", ORDER, "FASTEST_FIRST")
                        .selects(0).applied("HIP_VISIBLE_DEVICES=0 → device 0")),
                // ROCR_VISIBLE_DEVICES alone
                row("ROCR only", hipHost(MI300X_X4, ROCR, "2,3")
                        .selects(2, 3).applied("ROCR_VISIBLE_DEVICES=2,3 → devices 2, 3")),
                row("ROCR order is kept", hipHost(MI300X_X4, ROCR, "3,0").selects(3, 0)),
                row("ROCR empty: no device", hipHost(MI300X_X4, ROCR, "")
                        .fails("no HIP device is visible with this environment (4 devices detected): "
                                        + "ROCR_VISIBLE_DEVICES=\"\" → none: it is set but empty, and ROCm then shows no"
                                        + " GPU",
                                "Fix: unset ROCR_VISIBLE_DEVICES or set it to the GPUs to build for (indices 0-3 or"
                                        + " UUIDs from rocminfo), or pass --arch.")),
                row("ROCR empty wins over HIP", hipHost(MI300X_X4, ROCR, "", HIP, "0")
                        .fails("ROCR_VISIBLE_DEVICES=\"\" → none")),
                row("ROCR spaces only: no device", hipHost(MI300X_X4, ROCR, " ")
                        .fails("ROCR_VISIBLE_DEVICES=\" \" → none: it holds only white space")),
                row("ROCR out-of-range index ends the list", hipHost(MI300X_X4, ROCR, "1,4,0")
                        .selects(1).warns("ROCR_VISIBLE_DEVICES=1,4,0: entry 2 \"4\" is out of range (there are 4"
                                + " devices 0-3), so ROCm ignores it and everything after it (\"4,0\").")),
                row("ROCR UUIDs, full and prefix", hipHost(MI300X_X4, ROCR, "GPU-eff71edc82169115,GPU-8d14")
                        .selects(3, 0).applied("ROCR_VISIBLE_DEVICES=GPU-eff71edc82169115,GPU-8d14 → devices 3, 0")),
                row("ROCR index and UUID mixed, as ROCm documents: no warning",
                        hipHost(MI300X_X4, ROCR, "0,GPU-e898").selects(0, 2)),
                row("ROCR ambiguous prefix: no device", hipHost(MI300X_X4, ROCR, "GPU-e")
                        .fails("entry 1 \"GPU-e\" matches the UUIDs of 2 devices (2, 3), so it names none")),
                row("ROCR unknown UUID ends the list", hipHost(MI300X_X4, ROCR, "1,GPU-0000,2")
                        .selects(1).warns("entry 2 \"GPU-0000\" matches no device's UUID, so ROCm ignores it")),
                row("ROCR repeat is skipped", hipHost(MI300X_X4, ROCR, "1,1,2")
                        .selects(1, 2).warns("ROCR_VISIBLE_DEVICES=1,1,2 names a GPU more than once; ROCm skips the"
                                + " repeat: entry 2 (device 1, as entry 1).")),
                row("ROCR repeat through a UUID is skipped", hipHost(MI300X_X4, ROCR, "GPU-b4fa,1,0")
                        .selects(1, 0).warns("entry 2 (device 1, as entry 1)")),
                row("ROCR MIG entry is invalid", hipHost(MI300X_X4, ROCR, "MIG-1c58")
                        .fails("entry 1 \"MIG-1c58\" is a MIG device, which only CUDA understands")),
                row("ROCR full-width digit: no device", hipHost(MI300X_X4, ROCR, "\uFF12")
                        .fails("entry 1 \"\\uff12\" is not plain ASCII")),
                // HIP_VISIBLE_DEVICES alone
                row("HIP only", hipHost(MI300X_X4, HIP, "3,1")
                        .selects(3, 1).applied("HIP_VISIBLE_DEVICES=3,1 → devices 3, 1")),
                row("HIP spaces only is not empty: no device", hipHost(MI300X_X4, HIP, " ", CVD, "1")
                        .fails("HIP_VISIBLE_DEVICES=\" \" → none: it holds only white space")),
                row("HIP -1: no device", hipHost(MI300X_X4, HIP, "-1")
                        .fails("HIP_VISIBLE_DEVICES=-1 → none: entry 1 \"-1\" is not an index or a GPU-… UUID, so"
                                + " HIP ignores it and everything after it")),
                row("HIP out-of-range ends the list", hipHost(MI300X_X4, HIP, "2,9")
                        .selects(2).warns("entry 2 \"9\" is out of range (there are 4 devices 0-3), so HIP ignores"
                                + " it")),
                row("HIP repeat is skipped", hipHost(MI300X_X4, HIP, "0,0,1")
                        .selects(0, 1).warns("HIP skips the repeat: entry 2 (device 0, as entry 1)")),
                row("HIP UUID: applied, with a warning", hipHost(MI300X_X4, HIP, "GPU-b4fa")
                        .selects(1).warns("HIP_VISIBLE_DEVICES=GPU-b4fa names GPUs by UUID; HIP versions that read"
                                + " only indices there stop at the first UUID")),
                row("HIP MIG entry is invalid", hipHost(MI300X_X4, HIP, "1,MIG-1c58")
                        .selects(1).warns("entry 2 \"MIG-1c58\" is a MIG device, which only CUDA understands")),
                // ROCR then HIP: relative indices
                row("ROCR then HIP: HIP indexes what ROCR left", hipHost(MI300X_X4, ROCR, "2,3", HIP, "1")
                        .selects(3).applied("ROCR_VISIBLE_DEVICES=2,3 → devices 2, 3; HIP_VISIBLE_DEVICES=1 → device 3")),
                row("ROCR then HIP: both orders compose", hipHost(MI300X_X4, ROCR, "3,0,2", HIP, "2,0")
                        .selects(2, 3)),
                row("ROCR then HIP: index past what ROCR left: no device", hipHost(MI300X_X4, ROCR, "2,3", HIP, "2")
                        .fails("ROCR_VISIBLE_DEVICES=2,3 → devices 2, 3; then HIP_VISIBLE_DEVICES=2 → none: entry 1"
                                        + " \"2\" is out of range (ROCR_VISIBLE_DEVICES left 2 devices, which HIP numbers"
                                        + " 0-1)",
                                "Fix: unset HIP_VISIBLE_DEVICES or set it to the GPUs to build for (indices 0-1")),
                row("ROCR then HIP: UUID of a device ROCR hid: no device",
                        hipHost(MI300X_X4, ROCR, "0,1", HIP, "GPU-eff7")
                                .fails("entry 1 \"GPU-eff7\" matches no device's UUID among the 2 devices"
                                        + " ROCR_VISIBLE_DEVICES left")),
                row("ROCR then HIP by UUID", hipHost(MI300X_X4, ROCR, "0,2", HIP, "GPU-e898")
                        .selects(2).warns("names GPUs by UUID")),
                row("ROCR warning and HIP warning both kept", hipHost(MI300X_X4, ROCR, "0,1,x", HIP, "1,7")
                        .selects(1).warns("ROCR_VISIBLE_DEVICES=0,1,x: entry 3 \"x\"",
                                "HIP_VISIBLE_DEVICES=1,7: entry 2 \"7\" is out of range (ROCR_VISIBLE_DEVICES left 2"
                                        + " devices, which HIP numbers 0-1)")),
                // CUDA_VISIBLE_DEVICES on an AMD machine
                row("CUDA_VISIBLE_DEVICES when HIP is unset", hipHost(MI300X_X4, CVD, "1")
                        .selects(1).applied("CUDA_VISIBLE_DEVICES=1 (read by HIP as HIP_VISIBLE_DEVICES is unset)"
                                + " → device 1")),
                row("HIP empty falls back to CUDA_VISIBLE_DEVICES", hipHost(MI300X_X4, HIP, "", CVD, "2,0")
                        .selects(2, 0).applied("CUDA_VISIBLE_DEVICES=2,0 (read by HIP as HIP_VISIBLE_DEVICES is"
                                + " empty) → devices 2, 0")),
                row("ROCR then CUDA_VISIBLE_DEVICES, relative", hipHost(MI300X_X4, ROCR, "1,3", HIP, "", CVD, "1")
                        .selects(3)),
                row("ROCR then CUDA_VISIBLE_DEVICES out of range: no device",
                        hipHost(MI300X_X4, ROCR, "0", CVD, "5")
                                .fails("then CUDA_VISIBLE_DEVICES=5 (read by HIP as HIP_VISIBLE_DEVICES is unset or"
                                        + " empty) → none: entry 1 \"5\" is out of range (ROCR_VISIBLE_DEVICES left 1"
                                        + " device, which HIP numbers 0 only)")),
                row("HIP set: CUDA_VISIBLE_DEVICES not applied", hipHost(MI300X_X4, HIP, "0", CVD, "3")
                        .selects(0).warns("CUDA_VISIBLE_DEVICES=3 is not applied: HIP reads it only when"
                                + " HIP_VISIBLE_DEVICES is unset or empty")),
                row("CUDA_VISIBLE_DEVICES empty: unset for HIP, every device", hipHost(MI300X_X4, CVD, "")
                        .selects(0, 1, 2, 3)
                        .applied("CUDA_VISIBLE_DEVICES=\"\" (empty, so unset for HIP): all 4 devices")
                        .warns("CUDA_VISIBLE_DEVICES is set but empty: HIP treats that as unset and shows every GPU,"
                                + " although a CUDA program would see none")),
                row("HIP and CUDA_VISIBLE_DEVICES both empty: every device", hipHost(MI300X_X4, HIP, "", CVD, "")
                        .selects(0, 1, 2, 3)
                        .applied("HIP_VISIBLE_DEVICES=\"\" (empty, so unset for HIP); CUDA_VISIBLE_DEVICES=\"\""
                                + " (empty, so unset for HIP): all 4 devices")
                        .warns("CUDA_VISIBLE_DEVICES is set but empty")),
                row("HIP empty alone: every device", hipHost(MI300X_X4, HIP, "")
                        .selects(0, 1, 2, 3).applied("HIP_VISIBLE_DEVICES=\"\" (empty, so unset for HIP): all 4 devices")),
                row("ROCR then empty CUDA_VISIBLE_DEVICES: what ROCR left", hipHost(MI300X_X4, ROCR, "1,2", CVD, "")
                        .selects(1, 2)
                        .applied("ROCR_VISIBLE_DEVICES=1,2 → devices 1, 2; CUDA_VISIBLE_DEVICES=\"\" (empty, so unset"
                                + " for HIP)")
                        .warns("shows every GPU ROCR_VISIBLE_DEVICES left")),
                row("CUDA_VISIBLE_DEVICES spaces only is not empty: no device", hipHost(MI300X_X4, CVD, "  ")
                        .fails("CUDA_VISIBLE_DEVICES=\"  \" (read by HIP as HIP_VISIBLE_DEVICES is unset or empty) →"
                                + " none: it holds only white space")),
                // mixed AMD host: no order caveat for HIP
                row("gfx942 + gfx950, ROCR picks the gfx950s", hipHost(GFX942_GFX950, ROCR, "1,3").selects(1, 3)),
                row("gfx942 + gfx950, HIP by index: exact, no warning", hipHost(GFX942_GFX950, HIP, "3").selects(3)),
                // devices without a UUID
                row("WSL, no UUID: index works", hipHost(WSL_NO_UUID, ROCR, "0").selects(0)),
                row("WSL, no UUID: UUID entry names nothing", hipHost(WSL_NO_UUID, ROCR, "GPU-5c2b70d1a3e4f986")
                        .fails("entry 1 \"GPU-5c2b70d1a3e4f986\" matches no device's UUID (the probe gave no UUID for"
                                + " any device, so none can be named by UUID)")),
                row("GPU-XX placeholder is not a UUID", hipHost(WSL_NO_UUID, HIP, "GPU-XX")
                        .fails("entry 1 \"GPU-XX\" is not an index or a GPU-… UUID")),
                row("one device without UUID: unmatched UUID ends the list",
                        hipHost(ONE_WITHOUT_UUID, ROCR, "0,GPU-a543f05567cbe736")
                                .selects(0).warns("entry 2 \"GPU-a543f05567cbe736\" matches no device's UUID (the probe"
                                        + " gave no UUID for 1 of the 2 devices, so it cannot be matched against that"
                                        + " one)")),
                row("one device without UUID: the other one by UUID", hipHost(ONE_WITHOUT_UUID, HIP, "GPU-8d14,1")
                        .selects(0, 1).warns("names GPUs by UUID")),
                // GPU_DEVICE_ORDINAL
                row("GPU_DEVICE_ORDINAL is not applied", hipHost(MI300X_X4, ORDINAL, "1")
                        .selects(0, 1, 2, 3).warns("GPU_DEVICE_ORDINAL=1 is not applied")),
                row("GPU_DEVICE_ORDINAL empty: no warning", hipHost(MI300X_X4, ORDINAL, "").selects(0, 1, 2, 3)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cudaMatrix")
    void cudaVisibility(Row row) throws Exception {
        row.check();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("hipMatrix")
    void hipVisibility(Row row) throws Exception {
        row.check();
    }

    // ---- details the matrix does not show ----

    @Nested
    class Messages {

        @Test
        void wholeCudaErrorMessage() {
            assertThatThrownBy(() -> DeviceVisibility.apply(Platform.CUDA, H200, env(CVD, ""), NOT_ASKED))
                    .isInstanceOf(ArchResolutionException.class)
                    .hasMessage("no CUDA device is visible with this environment (1 device detected):"
                            + " CUDA_VISIBLE_DEVICES=\"\" → none: it is set but empty, and the CUDA driver then shows no"
                            + " GPU. Fix: unset CUDA_VISIBLE_DEVICES or set it to the GPUs to build for (indices 0 only"
                            + " or UUIDs from nvidia-smi -L), or pass --arch.");
        }

        @Test
        void wholeHipErrorMessage() {
            assertThatThrownBy(() -> DeviceVisibility.apply(Platform.HIP, MI300X_X4,
                    env(ROCR, "2,3", HIP, "5"), NOT_ASKED))
                    .isInstanceOf(ArchResolutionException.class)
                    .hasMessage("no HIP device is visible with this environment (4 devices detected):"
                            + " ROCR_VISIBLE_DEVICES=2,3 → devices 2, 3; then HIP_VISIBLE_DEVICES=5 → none: entry 1 \"5\""
                            + " is out of range (ROCR_VISIBLE_DEVICES left 2 devices, which HIP numbers 0-1), so HIP"
                            + " ignores it and everything after it. Fix: unset HIP_VISIBLE_DEVICES or set it to the"
                            + " GPUs to build for (indices 0-1 or UUIDs from rocminfo), or pass --arch.");
        }

        @Test
        void wholeHeterogeneousWarning() throws Exception {
            VisibleDevices v = DeviceVisibility.apply(Platform.CUDA, T1000_V100, env(CVD, "1"), NOT_ASKED);
            assertThat(v.warnings()).containsExactly("CUDA_VISIBLE_DEVICES=1 selects GPUs by index on a host whose"
                    + " GPUs have different architectures (70, 75), but CUDA_DEVICE_ORDER is not set: unless it is"
                    + " PCI_BUS_ID, CUDA numbers the fastest GPU first instead of following nvidia-smi's PCI order, so"
                    + " an index may name another GPU than nvidia-smi's device of that number. archpool builds for all 2 devices so that the build runs on whichever"
                    + " GPU CUDA picks. Set CUDA_DEVICE_ORDER=PCI_BUS_ID, or select GPUs by UUID (nvidia-smi -L), to"
                    + " make the selection exact.");
        }

        @Test
        void heterogeneousWarningWithoutWideningDoesNotClaimWidening() throws Exception {
            VisibleDevices v = DeviceVisibility.apply(Platform.CUDA, T1000_V100, env(CVD, "0,1"), NOT_ASKED);
            assertThat(v.devices()).isEqualTo(T1000_V100);
            assertThat(v.applied()).isEqualTo("CUDA_VISIBLE_DEVICES=0,1 → nvidia-smi devices 0, 1");
            assertThat(v.warnings()).singleElement().asString().doesNotContain("builds for all");
        }

        @Test
        void widenedDevicesKeepTheSelectionFirst() throws Exception {
            List<GpuDevice> host = List.of(T1000_V100.get(0), T1000_V100.get(1),
                    cuda(2, "GPU-6b201039-6477-dd9c-1edd-137c8c44f8d6", "75", "Quadro RTX 8000"));
            VisibleDevices v = DeviceVisibility.apply(Platform.CUDA, host, env(CVD, "2,1"), NOT_ASKED);
            assertThat(v.devices()).extracting(GpuDevice::index).containsExactly(2, 1, 0);
        }

        @Test
        void tenKilobyteValueIsQuotedShortly() throws Exception {
            String value = "0," + "x".repeat(10_000);
            VisibleDevices v = DeviceVisibility.apply(Platform.CUDA, QUADRO_X8, env(CVD, value), NOT_ASKED);
            assertThat(v.devices()).extracting(GpuDevice::index).containsExactly(0);
            assertThat(v.applied()).hasSizeLessThan(200).contains("(10002 characters in all)");
            assertThat(v.warnings()).singleElement().asString()
                    .hasSizeLessThan(600)
                    .contains("entry 2 \"" + "x".repeat(100) + "\"... (10000 characters in all) is too long to be an index or"
                            + " a UUID");
        }

        @Test
        void tenKilobyteDigitsAreNoIndex() {
            String value = "1".repeat(10_240);
            ArchResolutionException e = catchThrowableOfType(ArchResolutionException.class,
                    () -> DeviceVisibility.apply(Platform.CUDA, QUADRO_X8, env(CVD, value), NOT_ASKED));
            assertThat(e.getMessage()).hasSizeLessThan(800).contains("is too long to be an index or a UUID");
        }

        @Test
        void thousandsOfRepeatsGiveOneShortWarning() throws Exception {
            String value = String.join(",", java.util.Collections.nCopies(5_000, "0"));
            VisibleDevices v = DeviceVisibility.apply(Platform.HIP, MI300X_X4, env(ROCR, value), NOT_ASKED);
            assertThat(v.devices()).extracting(GpuDevice::index).containsExactly(0);
            assertThat(v.warnings()).singleElement().asString()
                    .hasSizeLessThan(600)
                    .endsWith("ROCm skips the repeats: entries 2 (device 0, as entry 1), 3 (device 0, as entry 1),"
                            + " 4 (device 0, as entry 1), 5 (device 0, as entry 1), 6 (device 0, as entry 1) and 4994"
                            + " more.");
        }

        @Test
        void thousandsOfRepeatsInCudaHideEverything() {
            String value = String.join(",", java.util.Collections.nCopies(5_000, "3"));
            assertThatThrownBy(() -> DeviceVisibility.apply(Platform.CUDA, QUADRO_X8, env(CVD, value), NOT_ASKED))
                    .isInstanceOf(ArchResolutionException.class)
                    .hasMessageContaining("entries 1 and 2 both name nvidia-smi device 3");
        }

        @Test
        void everyControlCharacterIsEscapedEverywhere() throws Exception {
            StringBuilder all = new StringBuilder("0,");
            for (char c = 0; c < 0x20; c++) {
                all.append(c);
            }
            all.append('\u007f').append('\u2028').append('"').append('\\');
            VisibleDevices v = DeviceVisibility.apply(Platform.HIP, MI300X_X4,
                    env(ROCR, all.toString(), ORDINAL, "\u0007"), NOT_ASKED);
            assertThat(v.devices()).extracting(GpuDevice::index).containsExactly(0);
            assertThat(v.applied()).matches(DeviceVisibilityTest::printable);
            assertThat(v.warnings()).hasSize(2).allMatch(DeviceVisibilityTest::printable);
            assertThat(v.warnings().get(0)).contains("\\u0000\\u0001").contains("\\u007f\\u2028\\\"\\\\\"");
            assertThat(v.warnings().get(1)).startsWith("GPU_DEVICE_ORDINAL=\"\\u0007\" is not applied");
        }
    }

    @Nested
    class MigEntries {

        private final AtomicInteger calls = new AtomicInteger();

        private Supplier<List<NvidiaSmiGpu>> counting(List<NvidiaSmiGpu> listing) {
            return () -> {
                calls.incrementAndGet();
                return listing;
            };
        }

        /** Two A100s, each with one MIG device. */
        private final List<NvidiaSmiGpu> twoGpus = List.of(
                new NvidiaSmiGpu(0, "NVIDIA A100-PCIE-40GB", "GPU-63110aaa-3561-c8f5-e125-4ab40bbcf838",
                        List.of(new NvidiaSmiMigDevice(0, "3g.20gb", "MIG-aaaa1111-0000-0000-0000-000000000000"))),
                new NvidiaSmiGpu(1, "NVIDIA A100-SXM4-40GB", A100_SXM_UUID,
                        List.of(new NvidiaSmiMigDevice(0, "1g.5gb", POD_MIG_UUID))));

        @Test
        void theCapturedFixtureHasTheMigDeviceUnderItsGpu() {
            assertThat(podListing()).singleElement().satisfies(g -> {
                assertThat(g.uuid()).isEqualTo(A100_SXM_UUID);
                assertThat(g.migDevices()).extracting(NvidiaSmiMigDevice::uuid).containsExactly(POD_MIG_UUID);
            });
        }

        @Test
        void askedOnceForSeveralMigEntries() throws Exception {
            VisibleDevices v = DeviceVisibility.apply(Platform.CUDA, A100_PCIE_AND_SXM,
                    env(CVD, "MIG-1c58,MIG-aaaa"), counting(twoGpus));
            assertThat(calls).hasValue(1);
            assertThat(v.devices()).extracting(GpuDevice::index).containsExactly(1, 0);
            assertThat(v.warnings()).singleElement().asString()
                    .contains("lists 2 MIG devices; CUDA 11 and 12 enumerate only one MIG device per process");
        }

        @Test
        void twoMigDevicesOfOneGpuGiveThatGpuOnce() throws Exception {
            List<NvidiaSmiGpu> listing = List.of(new NvidiaSmiGpu(0, "NVIDIA A100-SXM4-40GB", A100_SXM_UUID, List.of(
                    new NvidiaSmiMigDevice(0, "1g.5gb", POD_MIG_UUID),
                    new NvidiaSmiMigDevice(1, "1g.5gb", "MIG-2d6987f7-0000-0000-0000-000000000000"))));
            VisibleDevices v = DeviceVisibility.apply(Platform.CUDA, MIG_POD, env(CVD, "MIG-1c,MIG-2d"),
                    counting(listing));
            assertThat(v.devices()).containsExactly(MIG_POD.get(0));
        }

        @Test
        void ambiguousMigPrefixNamesNone() {
            List<NvidiaSmiGpu> listing = List.of(new NvidiaSmiGpu(0, "NVIDIA A100-SXM4-40GB", A100_SXM_UUID, List.of(
                    new NvidiaSmiMigDevice(0, "1g.5gb", "MIG-1c5876e6-d3b9-524a-9eb4-664fcfbd4de2"),
                    new NvidiaSmiMigDevice(1, "1g.5gb", "MIG-1c99aaaa-0000-0000-0000-000000000000"))));
            assertThatThrownBy(() -> DeviceVisibility.apply(Platform.CUDA, MIG_POD, env(CVD, "MIG-1c"),
                    counting(listing)))
                    .hasMessageContaining("matches 2 MIG devices that nvidia-smi -L lists, so it names none");
        }

        @Test
        void notAskedWithoutMigEntry() throws Exception {
            DeviceVisibility.apply(Platform.CUDA, A100_PCIE_AND_SXM, env(CVD, "1,GPU-6311"), counting(twoGpus));
            DeviceVisibility.apply(Platform.CUDA, A100_PCIE_AND_SXM, Map.of(), counting(twoGpus));
            assertThat(calls).hasValue(0);
        }

        @Test
        void notAskedForHip() throws Exception {
            DeviceVisibility.apply(Platform.HIP, MI300X_X4, env(ROCR, "0,MIG-1c58"), counting(twoGpus));
            assertThat(calls).hasValue(0);
        }

        @Test
        void parentWithoutUuidFoundByIndex() throws Exception {
            List<GpuDevice> noUuids = List.of(cuda(0, null, "80", null), cuda(1, null, "80", null));
            VisibleDevices v = DeviceVisibility.apply(Platform.CUDA, noUuids, env(CVD, "MIG-1c58"),
                    counting(twoGpus));
            assertThat(v.devices()).containsExactly(noUuids.get(1));
        }

        @Test
        void nullListingCountsAsEmpty() {
            assertThatThrownBy(() -> DeviceVisibility.apply(Platform.CUDA, MIG_POD, env(CVD, "MIG-1c58"), () -> null))
                    .isInstanceOf(ArchResolutionException.class)
                    .hasMessageContaining("nvidia-smi -L listed no GPU to map it to");
        }

        @Test
        void listingFailurePropagates() {
            IllegalStateException boom = new IllegalStateException("nvidia-smi -L hung");
            assertThatThrownBy(() -> DeviceVisibility.apply(Platform.CUDA, MIG_POD, env(CVD, "MIG-1c58"), () -> {
                throw boom;
            })).isSameAs(boom);
        }
    }

    @Nested
    class Contract {

        @Test
        void returnsTheDetectedInstances() throws Exception {
            VisibleDevices v = DeviceVisibility.apply(Platform.HIP, MI300X_X4, env(ROCR, "2"), NOT_ASKED);
            assertThat(v.devices().get(0)).isSameAs(MI300X_X4.get(2));
        }

        @Test
        void resultListsAreImmutableCopies() throws Exception {
            List<GpuDevice> detected = new ArrayList<>(MI300X_X4);
            VisibleDevices v = DeviceVisibility.apply(Platform.HIP, detected, Map.of(), NOT_ASKED);
            detected.clear();
            assertThat(v.devices()).hasSize(4);
            assertThatThrownBy(() -> v.devices().clear()).isInstanceOf(UnsupportedOperationException.class);
            assertThatThrownBy(() -> v.warnings().add("x")).isInstanceOf(UnsupportedOperationException.class);
        }

        @Test
        void environmentIsOnlyRead() throws Exception {
            Map<String, String> env = new HashMap<>(env(ROCR, "1", HIP, "", CVD, "0"));
            Map<String, String> before = Map.copyOf(env);
            DeviceVisibility.apply(Platform.HIP, MI300X_X4, env, NOT_ASKED);
            assertThat(env).isEqualTo(before);
        }

        @Test
        void nullValueCountsAsUnset() throws Exception {
            Map<String, String> env = new HashMap<>();
            env.put(CVD, null);
            assertThat(DeviceVisibility.apply(Platform.CUDA, H200, env, NOT_ASKED).devices()).isEqualTo(H200);
        }

        @Test
        void deviceOfTheOtherPlatformIsRejected() {
            List<GpuDevice> mixed = List.of(MI300X_X4.get(0), H200.get(0));
            assertThatThrownBy(() -> DeviceVisibility.apply(Platform.HIP, mixed, Map.of(), NOT_ASKED))
                    .isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void nothingDetectedIsAnError() {
            assertThatThrownBy(() -> DeviceVisibility.apply(Platform.CUDA, List.of(), Map.of(), NOT_ASKED))
                    .isInstanceOf(ArchResolutionException.class)
                    .hasMessageContaining("no CUDA device was detected")
                    .hasMessageContaining("--arch");
        }

        @Test
        void everyMatrixRowHasAName() {
            assertThat(Stream.concat(cudaMatrix(), hipMatrix()).map(a -> ((Named<?>) a.get()[0]).getName()))
                    .doesNotHaveDuplicates();
        }

        @Test
        void visibleDevicesRequiresApplied() {
            assertThatThrownBy(() -> new VisibleDevices(List.of(), null, List.of()))
                    .isInstanceOf(NullPointerException.class);
            assertThat(new VisibleDevices(H200, "x", List.of("w")).warnings()).containsExactly("w");
        }
    }
}
