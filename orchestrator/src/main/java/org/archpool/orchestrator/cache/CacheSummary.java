package org.archpool.orchestrator.cache;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The report's {@code cache}: where the cache was, how many jobs each cache status had, why the jobs that were looked
 * up and built missed, and the hit rate.
 *
 * @param remote      the remote cache's URL (without credentials), or null
 * @param jobs        jobs per status ({@code hit}, {@code remote-hit}, {@code miss}, {@code stored},
 *                    {@code uncacheable}, {@code rejected}), every status present
 * @param missReasons jobs looked up and built per {@link MissReason} ({@code no-entry}, {@code read-set-changed},
 *                    {@code rejected}), every reason present; they add up to miss + stored + rejected
 * @param hitRate     restored jobs ÷ jobs looked up (all but the uncacheable ones); 0 when none was looked up
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CacheSummary(String folder, String remote, Map<String, Integer> jobs, Map<String, Integer> missReasons,
                           double hitRate) {

    /** @param results what the cache did for each job that has a cache result */
    public static CacheSummary of(String folder, String remote, Collection<CacheResult> results) {
        Map<String, Integer> jobs = new LinkedHashMap<>();
        for (CacheStatus s : CacheStatus.values()) {
            jobs.put(s.wireName(), 0);
        }
        Map<String, Integer> reasons = new LinkedHashMap<>();
        for (MissReason r : MissReason.values()) {
            reasons.put(r.wireName(), 0);
        }
        int restored = 0;
        int lookedUp = 0;
        for (CacheResult result : results) {
            CacheStatus s = result.status();
            jobs.merge(s.wireName(), 1, Integer::sum);
            if (result.missReason() != null) {
                reasons.merge(result.missReason().wireName(), 1, Integer::sum);
            }
            if (s != CacheStatus.UNCACHEABLE) {
                lookedUp++;
            }
            if (s.restored()) {
                restored++;
            }
        }
        double rate = lookedUp == 0 ? 0 : Math.round(1000.0 * restored / lookedUp) / 1000.0;
        return new CacheSummary(folder, remote, jobs, reasons, rate);
    }

    /** Jobs restored, local and remote. */
    public int restored() {
        return jobs.get(CacheStatus.HIT.wireName()) + jobs.get(CacheStatus.REMOTE_HIT.wireName());
    }

    /** Jobs looked up and built: every miss reason's count together. */
    public int missed() {
        return missReasons.values().stream().mapToInt(Integer::intValue).sum();
    }
}
