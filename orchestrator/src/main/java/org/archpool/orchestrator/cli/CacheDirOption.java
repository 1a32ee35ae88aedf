package org.archpool.orchestrator.cli;

import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Option;

/** {@code --cache DIR} and where the cache folder is without it: {@code build}, {@code serve} and {@code cache}. */
public final class CacheDirOption {

    /** The variable that names the cache folder when {@code --cache} is not given. */
    public static final String CACHE_DIR_VARIABLE = "ARCHPOOL_CACHE_DIR";

    @Option(names = "--cache", paramLabel = "DIR",
            description = "The build cache folder (default: $" + CACHE_DIR_VARIABLE + ", else"
                    + " $XDG_CACHE_HOME/archpool or ~/.cache/archpool; created with mode 0700). A folder named here or"
                    + " by $" + CACHE_DIR_VARIABLE + " that cannot be used stops the command; a default one that"
                    + " cannot be used is warned about once and the build runs without the cache. A job whose key"
                    + " (what it runs and reads, the toolchain, the target) is there is restored instead of built,"
                    + " after its GPU code is checked against the target.")
    Path cache;

    boolean given() {
        return cache != null;
    }

    /**
     * Whether the folder is one the user named, {@code --cache} or the variable, rather than the default: a named
     * folder that cannot be used stops the session, the default one only costs it the cache.
     */
    boolean named(Map<String, String> env) {
        String variable = env.get(CACHE_DIR_VARIABLE);
        return cache != null || variable != null && !variable.isBlank();
    }

    /**
     * The folder: {@code --cache}, else the variable, else the XDG cache folder, else {@code ~/.cache}; null when
     * none of them is set.
     */
    Path folder(Map<String, String> env) throws UsageException {
        if (cache != null) {
            return cache.toAbsolutePath();
        }
        String named = env.get(CACHE_DIR_VARIABLE);
        if (named != null && !named.isBlank()) {
            Path p = Path.of(named);
            if (!p.isAbsolute()) {
                throw new UsageException("$" + CACHE_DIR_VARIABLE + " is " + named + ", which is not an absolute"
                        + " path; set it to one, or pass --cache DIR");
            }
            return p;
        }
        String xdg = env.get("XDG_CACHE_HOME");
        if (xdg != null && xdg.startsWith("/")) {
            return Path.of(xdg, "archpool");
        }
        String home = env.get("HOME");
        if (home == null || !home.startsWith("/")) {
            return null;
        }
        return Path.of(home, ".cache", "archpool");
    }
}
