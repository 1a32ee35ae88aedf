package org.archpool.orchestrator.cli;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.archpool.orchestrator.cache.CacheConfig;
import org.archpool.orchestrator.cache.CacheSetupException;
import org.archpool.orchestrator.cache.DiskCache;
import org.archpool.orchestrator.cache.HttpCache;
import org.archpool.orchestrator.tool.ToolRunner;
import org.archpool.worker.exec.ChildEnvironment;
import picocli.CommandLine.Option;

/** The build cache: where it is, a remote one, and how large it may grow. {@code build} and {@code serve}. */
public final class CacheOptions {

    /** The variable that names the cache folder when {@code --cache} is not given. */
    public static final String CACHE_DIR_VARIABLE = "ARCHPOOL_CACHE_DIR";
    /** The variable that holds one header ({@code Name: value}) sent with every remote cache request. */
    public static final String REMOTE_HEADER_VARIABLE = ChildEnvironment.REMOTE_CACHE_HEADER;

    @Option(names = "--cache", paramLabel = "DIR",
            description = "The build cache folder (default: $" + CACHE_DIR_VARIABLE + ", else"
                    + " $XDG_CACHE_HOME/archpool or ~/.cache/archpool; created with mode 0700). A job whose key (what"
                    + " it runs and reads, the toolchain, the target) is there is restored instead of built, after"
                    + " its GPU code is checked against the target.")
    Path cache;

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
     * The cache asked for, opened and checked, or null with {@code --no-cache}.
     *
     * @throws UsageException for contradictory flags, a bad URL or size, or a folder that cannot be used
     */
    CacheConfig open(CliContext context, ToolRunner tools) throws UsageException {
        if (noCache) {
            if (cache != null || remoteCache != null || maxSize != null || remoteReadOnly) {
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
        try {
            DiskCache local = DiskCache.open(folder(env), context.clock());
            return new CacheConfig(local, remote, remote != null && !remoteReadOnly, maxBytes, env, tools,
                    context.clock());
        } catch (CacheSetupException e) {
            throw new UsageException(e.getMessage());
        }
    }

    private Path folder(Map<String, String> env) throws UsageException {
        if (cache != null) {
            return cache.toAbsolutePath();
        }
        String named = env.get(CACHE_DIR_VARIABLE);
        if (named != null && !named.isBlank()) {
            Path p = Path.of(named);
            if (!p.isAbsolute()) {
                throw new UsageException("$" + CACHE_DIR_VARIABLE + " is " + named + ", which is not an absolute"
                        + " path; set it to one, or pass --cache DIR");
            }
            return p;
        }
        String xdg = env.get("XDG_CACHE_HOME");
        if (xdg != null && xdg.startsWith("/")) {
            return Path.of(xdg, "archpool");
        }
        String home = env.get("HOME");
        if (home == null || !home.startsWith("/")) {
            throw new UsageException("no cache folder: $HOME is not set to an absolute path; pass --cache DIR, set $"
                    + CACHE_DIR_VARIABLE + ", or pass --no-cache");
        }
        return Path.of(home, ".cache", "archpool");
    }
}
