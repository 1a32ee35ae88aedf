package org.archpool.orchestrator.arch;

import static org.archpool.orchestrator.arch.DeviceVisibility.CUDA_VISIBLE_DEVICES;
import static org.archpool.orchestrator.arch.DeviceVisibility.GPU_DEVICE_ORDINAL;
import static org.archpool.orchestrator.arch.DeviceVisibility.HIP_VISIBLE_DEVICES;
import static org.archpool.orchestrator.arch.DeviceVisibility.ROCR_VISIBLE_DEVICES;
import static org.archpool.orchestrator.arch.VisibilityText.assignment;
import static org.archpool.orchestrator.arch.VisibilityText.count;
import static org.archpool.orchestrator.arch.VisibilityText.indices;
import static org.archpool.orchestrator.arch.VisibilityText.noDevice;
import static org.archpool.orchestrator.arch.VisibilityText.range;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.archpool.protocol.Platform;

/**
 * The AMD variables applied to the GPUs rocminfo or amdgpu-arch detected, as {@link DeviceVisibility} describes
 * for HIP: {@code ROCR_VISIBLE_DEVICES} first, then {@code HIP_VISIBLE_DEVICES} (or, where that is unset or empty,
 * {@code CUDA_VISIBLE_DEVICES}) numbering the devices ROCr left; repeats skipped; {@code GPU_DEVICE_ORDINAL} only
 * warned about.
 */
final class HipVisibility {

    private HipVisibility() {
    }

    /**
     * @param detected every AMD GPU the probe reported, unfiltered, in its order; not empty
     * @param env      the coordinator's environment
     * @throws ArchResolutionException when no device is left
     */
    static VisibleDevices apply(List<GpuDevice> detected, Map<String, String> env)
            throws ArchResolutionException {
        List<VisibilityStep> steps = new ArrayList<>();
        List<String> applied = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        List<GpuDevice> current = detected;
        String rocr = env.get(ROCR_VISIBLE_DEVICES);
        if (rocr != null) {
            VisibilityStep step = VisibilityStep.select(VisibilityReader.ROCR, ROCR_VISIBLE_DEVICES, rocr, detected,
                    detected, "there are " + count(detected) + " " + range(detected.size()), "", null);
            steps.add(step);
            if (step.selected().isEmpty()) {
                throw noDevice(Platform.HIP, detected, steps);
            }
            warnings.addAll(step.warnings());
            applied.add(assignment(ROCR_VISIBLE_DEVICES, rocr) + " → "
                    + indices(VisibilityReader.ROCR, step.selected()));
            current = step.selected();
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
            VisibilityStep step = VisibilityStep.select(VisibilityReader.HIP, variable, value, current, detected,
                    rangeText, scope, null);
            steps.add(step);
            if (step.selected().isEmpty()) {
                throw noDevice(Platform.HIP, detected, steps);
            }
            warnings.addAll(step.warnings());
            if (step.byUuid()) {
                warnings.add(assignment(variable, value) + " names GPUs by UUID; HIP versions that read only indices"
                        + " there stop at the first UUID. ROCR_VISIBLE_DEVICES takes UUIDs on every ROCm version.");
            }
            String via = variable.equals(CUDA_VISIBLE_DEVICES) ? " (read by HIP as HIP_VISIBLE_DEVICES is "
                    + (hip == null ? "unset)" : "empty)") : "";
            applied.add(assignment(variable, value) + via + " → " + indices(VisibilityReader.HIP, step.selected()));
            current = step.selected();
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
}
