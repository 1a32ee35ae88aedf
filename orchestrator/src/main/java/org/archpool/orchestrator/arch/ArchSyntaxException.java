package org.archpool.orchestrator.arch;

/** An architecture string that is not valid for its platform; the message says what is accepted. */
public final class ArchSyntaxException extends Exception {
    public ArchSyntaxException(String message) {
        super(message);
    }
}
