package org.archpool.orchestrator.arch;

import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Maps a {@code MIG-} entry of {@code CUDA_VISIBLE_DEVICES} to the detected GPU it is a part of, with the
 * caller's {@code nvidia-smi -L} listing: a prefix of one MIG device's UUID there, or the old
 * {@code MIG-GPU-<uuid>/<gi>/<ci>} form, which names its GPU itself. The listing is asked for at most once, and
 * only when a MIG entry is reached.
 */
final class MigMatcher {

    private static final Pattern LEGACY_MIG = Pattern.compile("MIG-(GPU-[0-9A-Fa-f-]+)/[0-9]{1,4}/[0-9]{1,4}");

    private final Supplier<List<NvidiaSmiGpu>> supplier;
    private List<NvidiaSmiGpu> gpus;

    /** @param supplier {@code nvidia-smi -L}, parsed; a {@code null} answer counts as an empty listing */
    MigMatcher(Supplier<List<NvidiaSmiGpu>> supplier) {
        this.supplier = supplier;
    }

    private List<NvidiaSmiGpu> listing() {
        if (gpus == null) {
            List<NvidiaSmiGpu> answer = supplier.get();
            gpus = answer == null ? List.of() : answer;
        }
        return gpus;
    }

    /** The detected GPU that MIG entry {@code entry} is part of, keyed by its MIG device, or why there is none. */
    VisibilityEntry resolve(String entry, List<GpuDevice> detected) {
        List<NvidiaSmiGpu> listed = listing();
        NvidiaSmiGpu parent = null;
        NvidiaSmiMigDevice found = null;
        int matches = 0;
        for (NvidiaSmiGpu gpu : listed) {
            for (NvidiaSmiMigDevice mig : gpu.migDevices()) {
                if (VisibilityEntry.startsWithIgnoreCase(mig.uuid(), entry)) {
                    matches++;
                    parent = gpu;
                    found = mig;
                }
            }
        }
        if (matches > 1) {
            return VisibilityEntry.invalid("matches " + matches + " MIG devices that nvidia-smi -L lists, so it names"
                    + " none");
        }
        if (matches == 1) {
            GpuDevice device = parentOf(parent, detected);
            if (device == null) {
                return VisibilityEntry.invalid("is a MIG device of GPU " + VisibilityText.quote(parent.uuid())
                        + ", which is not among the detected devices");
            }
            return new VisibilityEntry(device, "mig:" + found.uuid().toLowerCase(Locale.ROOT),
                    VisibilityEntry.Kind.MIG, found.uuid(), null);
        }
        Matcher legacy = LEGACY_MIG.matcher(entry);
        if (legacy.matches()) {
            for (GpuDevice d : detected) {
                if (d.uuid() != null && d.uuid().equalsIgnoreCase(legacy.group(1))) {
                    return new VisibilityEntry(d, "mig:" + entry.toLowerCase(Locale.ROOT), VisibilityEntry.Kind.MIG,
                            entry, null);
                }
            }
        }
        return VisibilityEntry.invalid(listed.isEmpty()
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
}
