package org.archpool.orchestrator.arch;

import java.util.List;

/** The devices one probe found (possibly none) and its report. */
public record Detection(List<GpuDevice> devices, ProbeReport report) {
    public Detection {
        devices = List.copyOf(devices);
    }
}
