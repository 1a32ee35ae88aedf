package org.archpool.orchestrator.service;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.archpool.orchestrator.schedule.JobOutcome;

/**
 * What {@code serve} sends (docs/service.md, "From serve"); each is encoded as its fields with {@code type} first
 * ({@link ServiceCodec}). Absent, never {@code null}, for what does not apply.
 */
public sealed interface ServerMessage {

    /** The message's {@code type}. */
    @JsonIgnore
    String type();

    /** The version of docs/service.md this code speaks. */
    int SERVICE_VERSION = 1;

    /**
     * First on every connection: who answers, for which GPU targets ({@code target} is the first of
     * {@code gpuTargets}, one per platform), with which pool and where its files go.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Hello(int service, String archpoolVersion, long pid, Target target, List<Target> gpuTargets, Pool pool,
                 String logDir, String report) implements ServerMessage {

        /** A hello of a service of one target. */
        public Hello(int service, String archpoolVersion, long pid, Target target, Pool pool, String logDir,
                     String report) {
            this(service, archpoolVersion, pid, target, List.of(target), pool, logDir, report);
        }

        /** The resolved target as the report's {@code resolution} names it. */
        @JsonInclude(JsonInclude.Include.NON_NULL)
        public record Target(String platform, List<String> archs, String source, String detail) {
        }

        /**
         * The pool's mode, launcher and size, and how its workers are kept from seeing a GPU ({@code namespace}
         * or {@code environment}, as the report's {@code pool.deviceIsolation}).
         */
        public record Pool(String mode, String launcher, int workers, String deviceIsolation) {
            public Pool {
                Objects.requireNonNull(deviceIsolation, "deviceIsolation");
            }
        }

        @Override
        public String type() {
            return "hello";
        }
    }

    /** A submit was taken: the job's name in the log folder and report, and whether it shares a build. */
    record Accepted(String clientJobId, String jobId, boolean shared) implements ServerMessage {
        @Override
        public String type() {
            return "accepted";
        }
    }

    /**
     * An attempt of the build an accepted job waits for was handed to a worker: {@code id} is the build's job id,
     * {@code attempt} 1 for the first, 2 and on for retries. Added within service version 1.
     */
    record Started(String clientJobId, String id, String worker, int attempt) implements ServerMessage {
        public Started {
            Objects.requireNonNull(clientJobId, "clientJobId");
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(worker, "worker");
        }

        @Override
        public String type() {
            return "started";
        }
    }

    /** The one result of an accepted job: {@code job} is the report's entry with {@code clientJobId}. */
    record Result(String clientJobId, boolean shared, JobOutcome job) implements ServerMessage {
        public Result {
            Objects.requireNonNull(job, "job");
        }

        @Override
        public String type() {
            return "result";
        }
    }

    /** The answer to a {@code status} request: counts for the whole {@code serve}. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Status(String requestId, int queued, int running, long accepted, int clients, Workers workers,
                  Map<String, Integer> outcomes, long uptimeMs, boolean shuttingDown) implements ServerMessage {

        /** The pool's slots and how many of them have a live worker. */
        public record Workers(int size, int live) {
        }

        @Override
        public String type() {
            return "status";
        }
    }

    /** A line or message that could not be taken; the connection stays open. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Error(ErrorCode code, String clientJobId, String requestId, String message) implements ServerMessage {
        public Error {
            Objects.requireNonNull(code, "code");
            Objects.requireNonNull(message, "message");
        }

        static Error of(ErrorCode code, String message) {
            return new Error(code, null, null, message);
        }

        static Error about(ErrorCode code, String clientJobId, String message) {
            return new Error(code, clientJobId, null, message);
        }

        @Override
        public String type() {
            return "error";
        }
    }

    /** Last, after a shutdown: where the report is (or why it is not) and how the builds ended. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Bye(String report, String notWritten, Map<String, Integer> outcomes) implements ServerMessage {
        @Override
        public String type() {
            return "bye";
        }
    }
}
