package org.archpool.orchestrator.cache;

import java.time.Clock;
import java.util.Map;
import java.util.function.Consumer;
import org.archpool.orchestrator.tool.ToolRunner;
import org.archpool.orchestrator.verify.ArtifactVerifier;
import org.archpool.orchestrator.verify.Verification;
import org.archpool.orchestrator.verify.VerifyPolicy;
import org.archpool.protocol.Target;

/**
 * The cache a build or {@code serve} was given, opened and checked before anything runs ({@code --cache},
 * {@code --remote-cache}, …); {@link #open} makes the session's {@link BuildCache} once the target is resolved.
 *
 * @param remote       the remote cache, or null
 * @param remoteWrites whether built jobs are stored on the remote too
 * @param maxSizeBytes prune the local cache to this size after the session; null to leave it
 * @param environment  the environment jobs inherit
 * @param tools        runs the toolchain's {@code --version}
 */
public record CacheConfig(DiskCache local, CacheBackend remote, boolean remoteWrites, Long maxSizeBytes,
                          Map<String, String> environment, ToolRunner tools, Clock clock) {

    /**
     * The cache for {@code target}: the toolchain's identity is taken now, once. Restored GPU code is judged with
     * strict verification, or exact when {@code --verify exact} asks for it, and hostcalls as {@code verification}
     * says.
     *
     * @param notes told once of a cache that stopped working
     */
    public BuildCache open(Target target, Verification verification, Consumer<String> notes) {
        FileHashes hashes = new FileHashes(local.fileHashes(), clock);
        ToolchainIdentity toolchain = ToolchainIdentity.of(target.platform(), environment, tools, hashes);
        VerifyPolicy policy = verification.policy() == VerifyPolicy.EXACT ? VerifyPolicy.EXACT : VerifyPolicy.STRICT;
        return new BuildCache(local, remote, remoteWrites, target, toolchain, hashes, environment,
                new ArtifactVerifier(new Verification(policy, verification.forbidHostcall())), clock, notes);
    }
}
