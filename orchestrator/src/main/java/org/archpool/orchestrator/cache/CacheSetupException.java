package org.archpool.orchestrator.cache;

/** A cache folder or server that cannot be used as given: one paragraph naming the problem and the fix (exit 2). */
public final class CacheSetupException extends Exception {
    public CacheSetupException(String message) {
        super(message);
    }
}
