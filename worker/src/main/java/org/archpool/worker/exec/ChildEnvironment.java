package org.archpool.worker.exec;

import java.util.LinkedHashMap;
import java.util.Map;
import org.archpool.protocol.HiddenDevices;
import org.archpool.protocol.Target;
import org.archpool.worker.toolchain.ArchConventions;

/**
 * The environment every process of a job gets on top of the worker's: the job's own variables, then the
 * architecture conventions, then every device-visibility variable set to empty. Later entries win, so no
 * job setting can make a device visible or change the architecture.
 */
public final class ChildEnvironment {

    private ChildEnvironment() {
    }

    public static Map<String, String> forJob(Map<String, String> jobEnv, Target target) {
        Map<String, String> env = new LinkedHashMap<>(jobEnv);
        env.putAll(ArchConventions.environment(target));
        env.putAll(HiddenDevices.environment());
        return env;
    }
}
