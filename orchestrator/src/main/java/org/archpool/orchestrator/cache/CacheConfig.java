package org.archpool.orchestrator.cache;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.function.Consumer;
import org.archpool.orchestrator.tool.ToolRunner;
import org.archpool.orchestrator.verify.ArtifactVerifier;
import org.archpool.orchestrator.verify.Verification;
import org.archpool.orchestrator.verify.VerifyPolicy;
import org.archpool.protocol.Target;

/**
 * The cache a build or {@code serve} was given ({@code --cache}, {@code --remote-cache}, …): the session opens its
 * folder with {@link #openFolder()} once the manifest and the output paths have been checked, before any worker
 * starts, and {@link #open} makes the session's {@link BuildCache} once the target is resolved.
 *
 * @param folder       the local cache folder (not opened yet)
 * @param folderNamed  whether the folder was named ({@code --cache DIR} or {@code $ARCHPOOL_CACHE_DIR}): a named
 *                     folder that cannot be used stops the session; the default one ({@code $XDG_CACHE_HOME/archpool}
 *                     or {@code ~/.cache/archpool}) is best-effort, and the session runs without a cache instead
 * @param remote       the remote cache, or null
 * @param remoteWrites whether built jobs are stored on the remote too
 * @param maxSizeBytes prune the local cache to this size after the session; null to leave it
 * @param environment  the environment jobs inherit
 * @param tools        runs the toolchain's {@code --version}, and {@code ninja -t deps} after a {@code cmake} job
 */
public record CacheConfig(Path folder, boolean folderNamed, CacheBackend remote, boolean remoteWrites,
                          Long maxSizeBytes, Map<String, String> environment, ToolRunner tools, Clock clock) {

    /**
     * Opens (and creates) the folder.
     *
     * @throws CacheSetupException when it is not a folder of this user's that only this user may write
     */
    public DiskCache openFolder() throws CacheSetupException {
        return DiskCache.open(folder, clock);
    }

    /**
     * The cache of a session: each platform's toolchain identity is taken once, when the first job with a key for
     * it is looked up. Restored GPU code is judged with
     * strict verification, or exact when {@code --verify exact} asks for it, and hostcalls as {@code verification}
     * says.
     *
     * @param notes told once of a cache that stopped working
     */
    public BuildCache open(DiskCache local, Verification verification, Consumer<String> notes) {
        FileHashes hashes = new FileHashes(local.fileHashes(), clock);
        ToolVersions versions = new ToolVersions(local.toolVersions());
        VerifyPolicy policy = verification.policy() == VerifyPolicy.EXACT ? VerifyPolicy.EXACT : VerifyPolicy.STRICT;
        return new BuildCache(local, remote, remoteWrites,
                platform -> {
                    ToolchainIdentity identity = ToolchainIdentity.of(platform, environment, tools, hashes,
                            versions);
                    try {
                        versions.save();
                    } catch (IOException e) {
                        // the next build runs the tools again
                    }
                    return identity;
                }, hashes, environment,
                new ArtifactVerifier(new Verification(policy, verification.forbidHostcall())), tools, clock, notes);
    }
}
