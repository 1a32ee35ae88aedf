package org.archpool.orchestrator.arch;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;

/**
 * The resolved target and where it came from.
 *
 * @param source {@code flag}, {@code env} or {@code detected}
 * @param detail the exact origin, e.g. {@code --arch 90}, {@code CUDAARCHS=90}, {@code nvidia-smi}
 * @param devices the devices detection found (empty unless detection ran)
 * @param probes every probe that ran, with its diagnostic
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Resolution(Platform platform, List<String> archs, String source, String detail,
                         List<GpuDevice> devices, List<ProbeReport> probes) {
    public Resolution {
        archs = List.copyOf(archs);
        devices = List.copyOf(devices);
        probes = List.copyOf(probes);
    }

    public Target target() {
        return new Target(platform, archs);
    }
}
