package org.archpool.orchestrator.service;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Objects;

/** What a client sends (docs/service.md, "From a client"), checked for its fields' presence and types. */
public sealed interface ClientMessage {

    /**
     * One job.
     *
     * @param clientJobId the client's name for it, 1 to 128 characters
     * @param cwd         where its relative paths start (absolute)
     * @param job         the job object, read by the manifest reader
     */
    record Submit(String clientJobId, Path cwd, JsonNode job) implements ClientMessage {
        public Submit {
            Objects.requireNonNull(clientJobId, "clientJobId");
            Objects.requireNonNull(cwd, "cwd");
            Objects.requireNonNull(job, "job");
        }
    }

    /** Cancels this connection's job {@code clientJobId}. */
    record Cancel(String clientJobId) implements ClientMessage {
        public Cancel {
            Objects.requireNonNull(clientJobId, "clientJobId");
        }
    }

    /** Asks for the counts; {@code requestId} (null when not given) is echoed. */
    record Status(String requestId) implements ClientMessage {
    }

    /** Ends {@code serve}: with {@code cancelRunning}, every job not ended is cancelled. */
    record Shutdown(boolean cancelRunning) implements ClientMessage {
    }
}
