package org.archpool.orchestrator.service;

import com.fasterxml.jackson.annotation.JsonValue;

/** The {@code code} of an {@code error} reply (docs/service.md): what was wrong with a client's line or message. */
public enum ErrorCode {
    /** Not JSON, not an object, not UTF-8, or longer than the line limit. */
    BAD_LINE("bad-line"),
    /** A field missing or of the wrong type, or an unknown {@code type}. */
    BAD_MESSAGE("bad-message"),
    /** {@code job} is not a valid manifest job. */
    INVALID_JOB("invalid-job"),
    /** The connection already has a job with that {@code clientJobId} that has no result yet. */
    DUPLICATE_CLIENT_JOB_ID("duplicate-client-job-id"),
    /** A {@code cancel} for a {@code clientJobId} the connection has no queued or running job for. */
    UNKNOWN_JOB("unknown-job"),
    /** A {@code submit} after {@code shutdown} began. */
    SHUTTING_DOWN("shutting-down"),
    /**
     * A {@code submit} of a cmake job whose build folder is that of another job still queued or running (not the same
     * job: that one joins the build): two builds in one folder overwrite each other's files.
     */
    BUILD_DIR_IN_USE("build-dir-in-use"),
    /**
     * Sent instead of {@code hello} to a connection over the socket's limit ({@link SocketTransport#MAX_CLIENTS}),
     * which is then closed: each connection costs two threads and its buffers.
     */
    TOO_MANY_CLIENTS("too-many-clients");

    private final String wireName;

    ErrorCode(String wireName) {
        this.wireName = wireName;
    }

    @JsonValue
    public String wireName() {
        return wireName;
    }
}
