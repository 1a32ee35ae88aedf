package org.archpool.orchestrator.cache;

import java.util.Locale;

/**
 * Why looking a job up found nothing to restore, as the report's {@code jobs[].cacheMissReason} says it. A changed
 * source, another toolchain or another target gives another key, and shows as {@link #NO_ENTRY}: the cache does not
 * keep what the job's earlier keys were.
 */
public enum MissReason {
    /** No entry under the job's key, locally or on the remote. */
    NO_ENTRY,
    /** An entry was found and is sound, but a file its build read outside the key changed or is gone. */
    READ_SET_CHANGED,
    /** An entry was found and refused: damaged, forged, of another key version, or its GPU code not the target's. */
    REJECTED;

    /** {@code no-entry}, {@code read-set-changed}, {@code rejected}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** {@code no entry}, {@code read set changed}, {@code rejected}: for the console. */
    public String words() {
        return name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }
}
