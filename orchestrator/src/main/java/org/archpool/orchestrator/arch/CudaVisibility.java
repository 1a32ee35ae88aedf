package org.archpool.orchestrator.arch;

import static org.archpool.orchestrator.arch.DeviceVisibility.CUDA_DEVICE_ORDER;
import static org.archpool.orchestrator.arch.DeviceVisibility.CUDA_VISIBLE_DEVICES;
import static org.archpool.orchestrator.arch.VisibilityText.assignment;
import static org.archpool.orchestrator.arch.VisibilityText.count;
import static org.archpool.orchestrator.arch.VisibilityText.indices;
import static org.archpool.orchestrator.arch.VisibilityText.noDevice;
import static org.archpool.orchestrator.arch.VisibilityText.quote;
import static org.archpool.orchestrator.arch.VisibilityText.range;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.archpool.protocol.Platform;

/**
 * {@code CUDA_VISIBLE_DEVICES} applied to the GPUs nvidia-smi detected, as {@link DeviceVisibility} describes for
 * CUDA: indices in nvidia-smi's (PCI) order, GPU and MIG UUIDs, a repeat hiding every device, and the selection
 * widened to every detected GPU where {@code CUDA_DEVICE_ORDER} leaves the meaning of an index open on a host whose
 * GPUs differ in architecture.
 */
final class CudaVisibility {

    private static final String PCI_BUS_ID = "PCI_BUS_ID";

    private CudaVisibility() {
    }

    /**
     * @param detected every GPU nvidia-smi reported, in its order; not empty
     * @param env      the coordinator's environment
     * @param migs     maps {@code MIG-} entries to their GPUs
     * @throws ArchResolutionException when no device is left
     */
    static VisibleDevices apply(List<GpuDevice> detected, Map<String, String> env, MigMatcher migs)
            throws ArchResolutionException {
        String value = env.get(CUDA_VISIBLE_DEVICES);
        if (value == null) {
            return new VisibleDevices(detected, "none set: all " + count(detected), List.of());
        }
        VisibilityStep step = VisibilityStep.select(VisibilityReader.CUDA, CUDA_VISIBLE_DEVICES, value, detected,
                detected, "nvidia-smi lists " + count(detected) + " " + range(detected.size()), "", migs);
        if (step.selected().isEmpty()) {
            throw noDevice(Platform.CUDA, detected, List.of(step));
        }
        List<String> warnings = new ArrayList<>(step.warnings());
        if (step.byIndex() && step.byUuid()) {
            warnings.add(assignment(CUDA_VISIBLE_DEVICES, value) + " mixes indices and UUIDs; the CUDA driver may stop"
                    + " at the first entry of a different kind than the first, so CUDA programs may see fewer GPUs than"
                    + " archpool builds for. Use only indices or only UUIDs.");
        }
        if (step.migEntries() > 1) {
            warnings.add(assignment(CUDA_VISIBLE_DEVICES, value) + " lists " + step.migEntries() + " MIG devices;"
                    + " CUDA 11 and 12 enumerate only one MIG device per process, so CUDA programs may see just one of them;"
                    + " archpool builds for the GPUs of all of them.");
        }
        String applied = assignment(CUDA_VISIBLE_DEVICES, value) + " → "
                + indices(VisibilityReader.CUDA, step.selected());
        List<GpuDevice> devices = step.selected();
        TreeSet<String> archs = detected.stream().map(GpuDevice::arch).collect(Collectors.toCollection(TreeSet::new));
        String order = env.get(CUDA_DEVICE_ORDER);
        if (step.byIndex() && archs.size() > 1 && !PCI_BUS_ID.equals(order)) {
            List<GpuDevice> widened = new ArrayList<>(step.selected());
            detected.stream().filter(d -> !widened.contains(d)).forEach(widened::add);
            boolean grew = widened.size() > step.selected().size();
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
}
