package org.archpool.orchestrator.cache;

import java.util.Locale;

/** What the cache did for one job, as the report's {@code jobs[].cache} says it. */
public enum CacheStatus {
    /** Restored from the local cache, after its GPU code was read again and judged against the target. */
    HIT,
    /** Restored from the remote cache, checked the same way (and kept in the local one). */
    REMOTE_HIT,
    /** Built: there was no entry, and none was stored (the job did not succeed, or storing failed: see its note). */
    MISS,
    /** Built, and stored under its key. */
    STORED,
    /** Not looked up: the job has no key (a command job without {@code inputs}, unreadable inputs: see its note). */
    UNCACHEABLE,
    /** An entry was found and refused (damaged, or its GPU code does not match the target): evicted and rebuilt. */
    REJECTED;

    /** {@code hit}, {@code remote-hit}, … */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Whether the job was restored rather than built. */
    public boolean restored() {
        return this == HIT || this == REMOTE_HIT;
    }
}
