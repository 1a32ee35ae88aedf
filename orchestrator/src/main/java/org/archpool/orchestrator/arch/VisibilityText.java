package org.archpool.orchestrator.arch;

import java.util.List;
import java.util.stream.Collectors;
import org.archpool.protocol.Platform;
import org.archpool.protocol.UntrustedText;

/**
 * How device-visibility results read in the report and in errors: {@code NAME=value} with the value quoted
 * where it needs to be, the devices a step selected, and the error that no device is left, which retells each
 * variable applied and says how to fix it.
 */
final class VisibilityText {

    private VisibilityText() {
    }

    /**
     * The error for a selection that left no device: each step, what it selected and why nothing, then the fix
     * for the last one.
     */
    static ArchResolutionException noDevice(Platform platform, List<GpuDevice> detected, List<VisibilityStep> steps) {
        StringBuilder sb = new StringBuilder("no ").append(platform).append(" device is visible with this environment"
                + " (").append(count(detected)).append(" detected): ");
        VisibilityStep last = steps.get(steps.size() - 1);
        for (VisibilityStep step : steps) {
            if (step != steps.get(0)) {
                sb.append("; then ");
            }
            sb.append(assignment(step.variable(), step.value()));
            if (step.reader() == VisibilityReader.HIP
                    && step.variable().equals(DeviceVisibility.CUDA_VISIBLE_DEVICES)) {
                sb.append(" (read by HIP as HIP_VISIBLE_DEVICES is unset or empty)");
            }
            sb.append(" → ");
            if (!step.selected().isEmpty()) {
                sb.append(indices(step.reader(), step.selected()));
            } else if (step.value().isEmpty()) {
                sb.append("none: it is set but empty, and ").append(step.reader().who).append(" then shows no GPU");
            } else if (step.value().isBlank()) {
                sb.append("none: it holds only white space, which names no GPU");
            } else if (step.repeat() != null) {
                sb.append("none: ").append(step.repeat());
            } else {
                sb.append("none: ").append(step.stopped()).append(", so ").append(step.reader().who)
                        .append(" ignores it and everything after it");
            }
        }
        String example = last.reader() == VisibilityReader.CUDA
                ? "indices " + range(last.candidates().size()) + " or UUIDs from nvidia-smi -L"
                : "indices " + range(last.candidates().size()) + " or UUIDs from rocminfo";
        if (last.repeat() != null) {
            sb.append(". Fix: list each GPU once, or unset ").append(last.variable()).append(", or pass --arch.");
        } else {
            sb.append(". Fix: unset ").append(last.variable()).append(" or set it to the GPUs to build for (")
                    .append(example).append("), or pass --arch.");
        }
        return new ArchResolutionException(sb.toString());
    }

    /** {@code 4 devices} or {@code 1 device}. */
    static String count(List<?> devices) {
        return devices.size() + (devices.size() == 1 ? " device" : " devices");
    }

    /** {@code 0-3}, or {@code 0 only}. */
    static String range(int size) {
        return size == 1 ? "0 only" : "0-" + (size - 1);
    }

    /** {@code nvidia-smi devices 1, 0} or {@code device 3}: the devices' probe indices. */
    static String indices(VisibilityReader reader, List<GpuDevice> devices) {
        return reader.noun + (devices.size() == 1 ? " " : "s ")
                + devices.stream().map(d -> Integer.toString(d.index())).collect(Collectors.joining(", "));
    }

    /** {@code NAME=value}, the value quoted unless it is short, non-empty, plain ASCII without spaces. */
    static String assignment(String variable, String value) {
        boolean bare = !value.isEmpty() && value.length() <= DeviceVisibility.MAX_QUOTED_CHARS
                && value.chars().allMatch(c -> c > 0x20 && c < 0x7f && c != '"' && c != '\\');
        return variable + "=" + (bare ? value : quote(value));
    }

    /** {@code text} as {@link UntrustedText#quote} quotes it, cut after {@link DeviceVisibility#MAX_QUOTED_CHARS}. */
    static String quote(String text) {
        return UntrustedText.quote(text, DeviceVisibility.MAX_QUOTED_CHARS);
    }
}
