package org.archpool.orchestrator.cache;

import java.util.Objects;

/**
 * What the cache did for one job.
 *
 * @param key        the job's key, null when it has none ({@link CacheStatus#UNCACHEABLE})
 * @param missReason why nothing was restored, for a job that was looked up and built ({@link CacheStatus#MISS},
 *                   {@link CacheStatus#STORED}, {@link CacheStatus#REJECTED}); null otherwise
 * @param note       why it is uncacheable, rejected, or a miss that was not stored; null otherwise
 */
public record CacheResult(CacheStatus status, String key, MissReason missReason, String note) {
    public CacheResult {
        Objects.requireNonNull(status, "status");
        boolean built = status == CacheStatus.MISS || status == CacheStatus.STORED || status == CacheStatus.REJECTED;
        if (built != (missReason != null)) {
            throw new IllegalArgumentException("a " + status.wireName() + " job "
                    + (built ? "needs" : "has no") + " miss reason");
        }
    }

    /** A job without a key: not looked up. */
    public static CacheResult uncacheable(String reason) {
        return new CacheResult(CacheStatus.UNCACHEABLE, null, null, reason);
    }

    /** A job restored from the local or the remote cache. */
    public static CacheResult restored(CacheLookup.Hit hit) {
        return new CacheResult(hit.remote() ? CacheStatus.REMOTE_HIT : CacheStatus.HIT, hit.key().sha256(), null,
                null);
    }

    /**
     * A job that missed and was built: {@code rejected} when an entry was refused, else {@code stored} or
     * {@code miss} as {@code stored} says.
     *
     * @param note what the report says of it; null for nothing
     */
    public static CacheResult built(CacheLookup.Miss miss, boolean stored, String note) {
        CacheStatus status = miss.rejected() != null ? CacheStatus.REJECTED
                : stored ? CacheStatus.STORED : CacheStatus.MISS;
        return new CacheResult(status, miss.key().sha256(), miss.reason(), note);
    }
}
