package org.archpool.orchestrator.cache;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the cache holds for one key, stored as JSON under {@code ac/<key>}: the job that made it, its target, each
 * artifact's path, blob digest, size, mode and the GPU code found in it when it was built, and the digest of the
 * job's log. Every file it names is a blob under {@code cas/<sha256>}.
 *
 * @param keyVersion  {@link ActionKey#VERSION} of the key it was stored under
 * @param key         that key
 * @param jobId       the job that built it (another job with the same key may use it)
 * @param platform    the target's platform
 * @param archs       the target's architectures, sorted
 * @param createdAtMs when it was stored
 * @param buildMs     how long the job took when it was built
 * @param phaseMs     how long each of its phases took ({@code configure}, {@code build}, {@code command},
 *                    {@code inspect}), in order
 * @param log         the job's log, or null when it was not kept
 * @param reads       for a {@code cmake} job, the files its build read that the key does not cover, with their
 *                    digests then ({@link ReadSet}); null for a {@code command} job, whose {@code inputs} are in
 *                    the key
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record ActionEntry(int keyVersion, String key, String jobId, String platform, List<String> archs,
                         long createdAtMs, long buildMs, Map<String, Long> phaseMs, List<StoredArtifact> artifacts,
                         Blob log, ReadSet reads) {

    /**
     * The most bytes an entry's JSON may have, 4 MiB: a few hundred bytes an artifact, so room for thousands. A larger
     * entry is not stored, and an answer from a remote's {@code ac/} that is larger is cut off there and refused.
     */
    public static final int MAX_BYTES = 4 * 1024 * 1024;

    private static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES, true);

    /** A blob: its digest and size. */
    public record Blob(String sha256, long size) {
    }

    /**
     * @param executable whether it is restored with execute permission
     * @param archs      the GPU code found in it when it was built
     */
    @JsonInclude(JsonInclude.Include.NON_EMPTY)
    public record StoredArtifact(String path, String sha256, long size, boolean executable, List<String> archs,
                                 List<String> hostcallKernels) {
        public StoredArtifact {
            archs = archs == null ? List.of() : List.copyOf(archs);
            hostcallKernels = hostcallKernels == null ? List.of() : List.copyOf(hostcallKernels);
        }
    }

    public ActionEntry {
        archs = archs == null ? List.of() : List.copyOf(archs);
        artifacts = artifacts == null ? List.of() : List.copyOf(artifacts);
        phaseMs = phaseMs == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(phaseMs));
    }

    /** An entry without a read set: a {@code command} job's. */
    public ActionEntry(int keyVersion, String key, String jobId, String platform, List<String> archs,
                       long createdAtMs, long buildMs, Map<String, Long> phaseMs, List<StoredArtifact> artifacts,
                       Blob log) {
        this(keyVersion, key, jobId, platform, archs, createdAtMs, buildMs, phaseMs, artifacts, log, null);
    }

    public byte[] toJson() {
        try {
            return JSON.writeValueAsBytes(this);
        } catch (IOException e) {
            throw new IllegalStateException("an entry of strings and numbers cannot fail to encode", e);
        }
    }

    /**
     * Reads an entry, checking what a damaged or foreign one could get wrong: its key, version, and that every
     * digest is one and every path absolute.
     *
     * @throws IOException naming what is wrong
     */
    public static ActionEntry fromJson(byte[] json, String expectedKey) throws IOException {
        ActionEntry e;
        try {
            e = JSON.readValue(json, ActionEntry.class);
        } catch (IOException | RuntimeException ex) {
            throw new IOException("the entry is not valid JSON of an archpool cache entry: " + ex.getMessage(), ex);
        }
        if (e.keyVersion() != ActionKey.VERSION) {
            throw new IOException("the entry has key version " + e.keyVersion() + ", not " + ActionKey.VERSION);
        }
        if (!Objects.equals(e.key(), expectedKey)) {
            throw new IOException("the entry names the key " + e.key() + ", not the one it is stored under");
        }
        for (StoredArtifact a : e.artifacts()) {
            if (a.path() == null || !a.path().startsWith("/") || !Digests.isDigest(a.sha256()) || a.size() < 0) {
                throw new IOException("the entry lists an artifact without an absolute path, digest or size");
            }
        }
        if (e.log() != null && (!Digests.isDigest(e.log().sha256()) || e.log().size() < 0)) {
            throw new IOException("the entry's log has no valid digest or size");
        }
        if (e.reads() != null && !e.reads().isWellFormed()) {
            throw new IOException("the entry's read set lists a file without an absolute path or digest");
        }
        return e;
    }
}
