package org.archpool.orchestrator.output;

/**
 * An output path that the build may not or cannot write, found before anything runs (exit code 2). The message is
 * one paragraph: the flag, the path, what is wrong and the fix.
 */
public final class OutputPathException extends Exception {

    private static final long serialVersionUID = 1L;

    public OutputPathException(String message) {
        super(message);
    }
}
