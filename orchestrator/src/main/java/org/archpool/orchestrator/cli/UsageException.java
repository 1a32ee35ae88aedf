package org.archpool.orchestrator.cli;

/** A flag value or combination the user got wrong (exit code 2); the message says the fix. */
public final class UsageException extends Exception {
    public UsageException(String message) {
        super(message);
    }
}
