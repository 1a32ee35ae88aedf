package org.archpool.orchestrator.arch;

/** The architecture could not be resolved; the message names what was tried and the fix (exit code 3). */
public final class ArchResolutionException extends Exception {
    public ArchResolutionException(String message) {
        super(message);
    }
}
