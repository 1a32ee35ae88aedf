package org.archpool.orchestrator.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.archpool.orchestrator.cache.CachePruner;
import org.archpool.orchestrator.cache.CacheSetupException;
import org.archpool.orchestrator.cache.DiskCache;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code archpool cache stats|verify|prune}: the local build cache folder. */
@Command(name = "cache", mixinStandardHelpOptions = true,
        description = "Look at, check or shrink the local build cache folder.",
        subcommands = {CacheCommand.Stats.class, CacheCommand.Verify.class, CacheCommand.Prune.class})
public final class CacheCommand implements Callable<Integer> {

    @ParentCommand
    ArchpoolCommand parent;

    @Override
    public Integer call() throws UsageException {
        throw new UsageException("archpool cache needs what to do: stats, verify or prune --max-size SIZE");
    }

    private CachePruner pruner(CacheDirOption dir) throws UsageException {
        CliContext context = parent.context();
        Path folder = dir.folder(context.environment());
        if (folder == null) {
            throw new UsageException("no cache folder: $HOME is not set; pass --cache DIR or set $"
                    + CacheDirOption.CACHE_DIR_VARIABLE);
        }
        try {
            return new CachePruner(DiskCache.open(folder, context.clock()), context.clock());
        } catch (CacheSetupException e) {
            throw new UsageException(e.getMessage());
        }
    }

    static String size(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }

    /** {@code archpool cache stats}. */
    @Command(name = "stats", mixinStandardHelpOptions = true, description = "How many entries and blobs the cache"
            + " folder holds, and their size.")
    static final class Stats implements Callable<Integer> {
        @ParentCommand
        CacheCommand cache;

        @Mixin
        CacheDirOption dir = new CacheDirOption();

        @Override
        public Integer call() throws Exception {
            CachePruner pruner = cache.pruner(dir);
            CachePruner.Stats s = pruner.stats();
            PrintStream out = cache.parent.context().out();
            out.println("folder:    " + dir.folder(cache.parent.context().environment()));
            out.println("entries:   " + s.entries() + " (" + size(s.entryBytes()) + ")");
            out.println("blobs:     " + s.blobs() + " (" + size(s.blobBytes()) + ")");
            out.println("total:     " + size(s.totalBytes()));
            out.println("temporary: " + s.temporaryFiles() + " file(s)");
            return ExitCodes.OK;
        }
    }

    /** {@code archpool cache verify}. */
    @Command(name = "verify", mixinStandardHelpOptions = true, description = "Read every entry and check every blob"
            + " against its digest; exit 1 and name each problem when any is found (builds refuse such entries"
            + " anyway; prune removes them).")
    static final class Verify implements Callable<Integer> {
        @ParentCommand
        CacheCommand cache;

        @Mixin
        CacheDirOption dir = new CacheDirOption();

        @Override
        public Integer call() throws Exception {
            CachePruner.Verified v = cache.pruner(dir).verify();
            PrintStream out = cache.parent.context().out();
            v.problems().forEach(p -> out.println("problem: " + p));
            out.println(v.entries() + " entries and " + v.blobs() + " blobs checked: " + (v.problems().isEmpty()
                    ? "no problem" : v.problems().size() + " problem(s)"));
            return v.problems().isEmpty() ? ExitCodes.OK : ExitCodes.JOBS_FAILED;
        }
    }

    /** {@code archpool cache prune --max-size SIZE}. */
    @Command(name = "prune", mixinStandardHelpOptions = true, description = "Remove the least recently used entries"
            + " until the cache folder holds at most SIZE, then the blobs no entry names and stale temporary files.")
    static final class Prune implements Callable<Integer> {
        @ParentCommand
        CacheCommand cache;

        @Mixin
        CacheDirOption dir = new CacheDirOption();

        @Option(names = "--max-size", paramLabel = "SIZE", required = true,
                description = "The most the folder's entries and blobs may take (e.g. 10G, 500M, 0 for nothing).")
        String maxSize;

        @Override
        public Integer call() throws Exception {
            long max = LogSize.cacheSize("--max-size", maxSize);
            CachePruner.Pruned p = cache.pruner(dir).prune(max);
            cache.parent.context().out().println("removed " + p.entries() + " entries, " + p.blobs() + " blobs and "
                    + p.temporaryFiles() + " temporary file(s): " + size(p.bytesBefore()) + " -> "
                    + size(p.bytesAfter()));
            return ExitCodes.OK;
        }
    }
}
