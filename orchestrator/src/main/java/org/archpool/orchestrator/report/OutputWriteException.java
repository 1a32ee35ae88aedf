package org.archpool.orchestrator.report;

import java.io.IOException;

/**
 * One or more of the build's output files (report, metrics, trace, JUnit, HTML) could not be written. The message
 * names each file and why; every other output was still written.
 */
public final class OutputWriteException extends IOException {

    private static final long serialVersionUID = 1L;

    public OutputWriteException(String message) {
        super(message);
    }
}
