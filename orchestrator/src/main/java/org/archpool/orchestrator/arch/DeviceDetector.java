package org.archpool.orchestrator.arch;

import org.archpool.orchestrator.tool.OnceToolRunner;
import org.archpool.protocol.Platform;

/** One way of finding the GPUs of a platform on the coordinator's machine. */
public interface DeviceDetector {

    Platform platform();

    /** Probes (at most once per process, through a {@link OnceToolRunner}) and says what was found. */
    Detection detect();
}
