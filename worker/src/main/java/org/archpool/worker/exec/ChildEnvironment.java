package org.archpool.worker.exec;

import java.util.LinkedHashMap;
import java.util.Map;
import org.archpool.protocol.HiddenDevices;

/**
 * The environment every process of a job gets on top of the worker's: the step's variables as the coordinator
 * planned them (the job's own, then the architecture conventions), then every device-visibility variable set to
 * empty. The hidden devices come last, so that nothing a job or a request says can make a device visible.
 */
public final class ChildEnvironment {

    private ChildEnvironment() {
    }

    public static Map<String, String> forStep(Map<String, String> stepEnv) {
        Map<String, String> env = new LinkedHashMap<>(stepEnv);
        env.putAll(HiddenDevices.environment());
        return env;
    }
}
