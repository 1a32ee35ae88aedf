package org.archpool.worker.exec;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.archpool.protocol.HiddenDevices;
import org.archpool.protocol.UserLocale;

/**
 * The whole environment of every process of a job: the worker's own, with the user's locale given back in place
 * of the JVM's UTF-8 one ({@link UserLocale}: {@code LANG}, {@code LC_ALL}, {@code LC_*} exactly as the user had
 * them, unset ones unset), then the step's variables as the coordinator planned them (the job's own, then the
 * architecture conventions), then every device-visibility variable set to empty ({@code NVIDIA_VISIBLE_DEVICES}
 * to {@code void}, {@link HiddenDevices}). The hidden devices come last,
 * so that nothing a job or a request says can make a device visible. archpool's own variables that hold a secret
 * ({@link #WITHHELD}) are not inherited: a job that prints its environment would write the secret into its log, which
 * the build cache keeps and sends to the remote cache.
 *
 * <p>A step's processes must not inherit the JVM's locale: {@link #replacing} says, for a process launcher that adds
 * to the inherited environment (zt-exec), which inherited variables to remove.
 */
public final class ChildEnvironment {

    /** The variable that holds the remote build cache's header (authentication), for the coordinator only. */
    public static final String REMOTE_CACHE_HEADER = "ARCHPOOL_REMOTE_CACHE_HEADER";

    /** Variables of the coordinator's environment that no job inherits (a job's own {@code env} may still set them). */
    public static final Set<String> WITHHELD = Set.of(REMOTE_CACHE_HEADER);

    private ChildEnvironment() {
    }

    /** The step's whole environment, on top of this process's. */
    public static Map<String, String> forStep(Map<String, String> stepEnv) {
        return forStep(System.getenv(), stepEnv);
    }

    /** @param processEnv the environment of the JVM that runs the step (a worker's, or the coordinator's) */
    public static Map<String, String> forStep(Map<String, String> processEnv, Map<String, String> stepEnv) {
        Map<String, String> env = new LinkedHashMap<>(UserLocale.forJob(processEnv));
        env.keySet().removeAll(WITHHELD);
        env.putAll(stepEnv);
        env.putAll(HiddenDevices.environment());
        return env;
    }

    /**
     * {@code env} (from {@link #forStep}) as changes to this process's environment, as zt-exec's
     * {@code ProcessExecutor.environment} takes them, which adds to what a process inherits: its entries, and
     * each inherited locale variable, record and {@link #WITHHELD} variable that it does not set mapped to
     * {@code null} (removed), so that the JVM's own locale and secrets never reach a job.
     */
    public static Map<String, String> replacing(Map<String, String> env) {
        Map<String, String> changes = new HashMap<>();
        System.getenv().keySet().stream()
                .filter(name -> UserLocale.isLocaleVariable(name) || name.startsWith(UserLocale.RECORDED)
                        || WITHHELD.contains(name))
                .forEach(name -> changes.put(name, null));
        changes.putAll(env);
        return changes;
    }

    /**
     * The whole environment that a process started with {@link #replacing}{@code (env)} gets: this process's, changed
     * as that method says. For a launcher that gives a process exactly the variables it is handed.
     */
    public static Map<String, String> whole(Map<String, String> env) {
        Map<String, String> whole = new HashMap<>(System.getenv());
        replacing(env).forEach((name, value) -> {
            if (value == null) {
                whole.remove(name);
            } else {
                whole.put(name, value);
            }
        });
        return whole;
    }
}
