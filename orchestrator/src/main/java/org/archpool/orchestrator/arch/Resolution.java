package org.archpool.orchestrator.arch;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import org.archpool.protocol.Platform;
import org.archpool.protocol.Target;

/**
 * The resolved target and where it came from, as {@code archpool arch} prints it and the report carries it.
 *
 * @param source     {@code flag}, {@code env:HIPARCHS}/{@code env:CUDAARCHS}, {@code detected:<tool>} or
 *                   {@code fallback}
 * @param detail     the exact input, e.g. {@code --arch 90}, {@code CUDAARCHS=90}, {@code --arch native}
 * @param devices    every device detection saw (empty unless detection ran)
 * @param visibility how the coordinator's visibility variables chose among them (null unless detection ran)
 * @param warnings   what the user should know (a fallback was used, a selection may be ambiguous…)
 * @param probes     every probe that ran, with its diagnostic and duration
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Resolution(Platform platform, List<String> archs, String source, String detail,
                         List<GpuDevice> devices, Visibility visibility, List<String> warnings,
                         List<ProbeReport> probes) {
    public Resolution {
        archs = List.copyOf(archs);
        devices = List.copyOf(devices);
        warnings = List.copyOf(warnings);
        probes = List.copyOf(probes);
    }

    @JsonIgnore
    public Target target() {
        return new Target(platform, archs);
    }
}
