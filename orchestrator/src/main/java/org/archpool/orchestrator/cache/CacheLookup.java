package org.archpool.orchestrator.cache;

import java.util.List;
import org.archpool.protocol.Artifact;
import org.archpool.protocol.Target;

/** What looking a job up in the cache gave. */
public sealed interface CacheLookup {

    /** The job has no key; it is built and not stored. */
    record Uncacheable(String reason) implements CacheLookup {
    }

    /**
     * The job is to be built, and stored under {@code key} if it succeeds.
     *
     * @param target   the target the job is built for, which a stored entry records
     * @param rejected why an entry found under the key was refused (and evicted), or null when there was none
     * @param outdated why an entry found under the key was not used though it is sound: a file its build read outside
     *                 the key changed ({@code <path> changed}, {@code <path> is gone}); null when there was none
     */
    record Miss(ActionKey key, Target target, String rejected, String outdated) implements CacheLookup {

        /** A miss without an outdated entry. */
        public Miss(ActionKey key, Target target, String rejected) {
            this(key, target, rejected, null);
        }

        /**
         * Why nothing was restored: an entry refused (locally or on the remote) wins over one that is outdated,
         * since a refused entry was evicted.
         */
        public MissReason reason() {
            if (rejected != null) {
                return MissReason.REJECTED;
            }
            return outdated != null ? MissReason.READ_SET_CHANGED : MissReason.NO_ENTRY;
        }

        /** What the report says of the miss: why an entry was refused or not used; null when none was found. */
        public String note() {
            if (outdated == null) {
                return rejected;
            }
            String stale = "the entry's build read a file that has changed since: " + outdated;
            return rejected == null ? stale : rejected + "; " + stale;
        }
    }

    /**
     * The job's artifacts are in place, restored from the entry and judged against the target.
     *
     * @param artifacts what the inspector found in the restored files
     * @param remote    whether the entry came from the remote cache
     * @param restoreMs how long looking it up and restoring it took
     */
    record Hit(ActionKey key, List<Artifact> artifacts, boolean remote, long restoreMs)
            implements CacheLookup {
    }
}
