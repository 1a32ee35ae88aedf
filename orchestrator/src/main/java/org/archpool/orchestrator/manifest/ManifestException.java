package org.archpool.orchestrator.manifest;

/** A manifest that cannot be used; the message names the file, the place and the fix. */
public final class ManifestException extends Exception {
    public ManifestException(String message) {
        super(message);
    }

    public ManifestException(String message, Throwable cause) {
        super(message, cause);
    }
}
