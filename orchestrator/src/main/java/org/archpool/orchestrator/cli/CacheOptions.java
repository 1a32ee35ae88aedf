package org.archpool.orchestrator.cli;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.archpool.orchestrator.cache.CacheConfig;
import org.archpool.orchestrator.cache.HttpCache;
import org.archpool.orchestrator.tool.ToolRunner;
import org.archpool.worker.exec.ChildEnvironment;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The build cache: where it is, a remote one, and how large it may grow. {@code build} and {@code serve}. */
public final class CacheOptions {

    /** The variable that holds one header ({@code Name: value}) sent with every remote cache request. */
    public static final String REMOTE_HEADER_VARIABLE = ChildEnvironment.REMOTE_CACHE_HEADER;

    @Mixin
    CacheDirOption dir = new CacheDirOption();

    @Option(names = "--no-cache", description = "Build every job; look nothing up and store nothing.")
    boolean noCache;

    @Option(names = "--remote-cache", paramLabel = "URL",
            description = "Also use a remote cache in the layout of Bazel's HTTP cache (GET/PUT of /ac/ and /cas/:"
                    + " nginx with WebDAV, bazel-remote). An authentication header is read from $"
                    + REMOTE_HEADER_VARIABLE + " ('Name: value'), never written anywhere, and not passed on to jobs.")
    String remoteCache;

    @Option(names = "--remote-cache-read-only",
            description = "Restore from the remote cache but store nothing there (builds you do not trust).")
    boolean remoteReadOnly;

    @Option(names = "--remote-cache-timeout", paramLabel = "DURATION", defaultValue = "10s",
            converter = DurationConverter.class,
            description = "How long one remote cache request may take (default: ${DEFAULT-VALUE}); a remote that"
                    + " fails or times out is reported once and the build goes on with the local cache.")
    Duration remoteTimeout;

    @Option(names = "--cache-max-size", paramLabel = "SIZE",
            description = "After the build, remove the least recently used entries until the cache folder holds at"
                    + " most SIZE (e.g. 10G).")
    String maxSize;

    /**
     * The cache asked for, or null with {@code --no-cache} (or with no folder for one: no {@code --cache},
     * {@code $ARCHPOOL_CACHE_DIR}, {@code $XDG_CACHE_HOME} or {@code $HOME}). Its folder is opened by the session.
     *
     * @throws UsageException for contradictory flags, a bad URL or size
     */
    CacheConfig open(CliContext context, ToolRunner tools) throws UsageException {
        if (noCache) {
            if (dir.given() || remoteCache != null || maxSize != null || remoteReadOnly) {
                throw new UsageException("--no-cache turns the build cache off, so --cache, --remote-cache,"
                        + " --remote-cache-read-only and --cache-max-size cannot go with it; drop one or the other");
            }
            return null;
        }
        if (remoteReadOnly && remoteCache == null) {
            throw new UsageException("--remote-cache-read-only needs --remote-cache URL; add the URL, or drop the flag");
        }
        Map<String, String> env = context.environment();
        Long maxBytes = maxSize == null ? null : LogSize.cacheSize("--cache-max-size", maxSize);
        HttpCache remote = null;
        if (remoteCache != null) {
            String header = env.get(REMOTE_HEADER_VARIABLE);
            header = header == null || header.isBlank() ? null : header;
            String problem = HttpCache.problem(remoteCache, header);
            if (problem != null) {
                throw new UsageException(problem);
            }
            remote = new HttpCache(URI.create(remoteCache), header, remoteTimeout);
        }
        Path folder = dir.folder(env);
        if (folder == null) {
            if (remote != null || maxBytes != null) {
                throw new UsageException("--remote-cache and --cache-max-size need a local cache folder, and there is"
                        + " no default one ($HOME is not set); pass --cache DIR or set $"
                        + CacheDirOption.CACHE_DIR_VARIABLE);
            }
            return null; // no folder to keep a cache in: built as with --no-cache (the coordinator's log says so)
        }
        return new CacheConfig(folder, dir.named(env), remote, remote != null && !remoteReadOnly, maxBytes, env, tools,
                context.clock());
    }
}
