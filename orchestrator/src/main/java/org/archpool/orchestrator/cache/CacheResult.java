package org.archpool.orchestrator.cache;

import java.util.Objects;

/**
 * What the cache did for one job.
 *
 * @param key  the job's key, null when it has none ({@link CacheStatus#UNCACHEABLE})
 * @param note why it is uncacheable, rejected, or a miss that was not stored; null otherwise
 */
public record CacheResult(CacheStatus status, String key, String note) {
    public CacheResult {
        Objects.requireNonNull(status, "status");
    }

    public static CacheResult uncacheable(String reason) {
        return new CacheResult(CacheStatus.UNCACHEABLE, null, reason);
    }
}
