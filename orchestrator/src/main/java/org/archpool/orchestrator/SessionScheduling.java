package org.archpool.orchestrator;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import org.archpool.orchestrator.cache.DiskCache;
import org.archpool.orchestrator.schedule.DurationHistory;
import org.archpool.orchestrator.schedule.JobOrder;
import org.archpool.orchestrator.schedule.SchedulerConfig;
import org.archpool.orchestrator.seed.ConfigureSeeds;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What makes a session's jobs faster without changing what they build: the duration history the queue is ordered
 * by, and the configure seeds. Both live in the cache folder when there is one (so they serve later builds too);
 * without one the history is kept in {@code .archpool/durations} beside the manifest ({@code serve}: for the
 * session only), and the seeds in a temporary folder removed at the end.
 */
public final class SessionScheduling implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SessionScheduling.class);

    /**
     * What the user asked for.
     *
     * @param order         {@code --order}
     * @param configureSeed false with {@code --no-configure-seed}
     * @param environment   the coordinator's environment, which every job inherits (it enters the seeds' keys)
     */
    public record Options(JobOrder order, boolean configureSeed, Map<String, String> environment) {

        /** Submission order, no seeds: a session that only runs what it is given, as it is given. */
        public static final Options PLAIN = new Options(JobOrder.FIFO, false, Map.of());

        public Options {
            Objects.requireNonNull(order, "order");
            environment = Map.copyOf(environment);
        }
    }

    private final Options options;
    private final DurationHistory history;
    private final ConfigureSeeds seeds;

    private SessionScheduling(Options options, DurationHistory history, ConfigureSeeds seeds) {
        this.options = options;
        this.history = history;
        this.seeds = seeds;
    }

    /**
     * @param cacheFolder the session's cache folder; null without one
     * @param manifestDir the manifest's folder; null for {@code serve}
     */
    static SessionScheduling open(Options options, DiskCache cacheFolder, Path manifestDir) {
        DurationHistory history = cacheFolder != null ? DurationHistory.load(cacheFolder.root().resolve("durations"))
                : manifestDir != null ? DurationHistory.load(manifestDir.resolve(".archpool").resolve("durations"))
                : DurationHistory.inMemory();
        ConfigureSeeds seeds = null;
        if (options.configureSeed()) {
            try {
                seeds = cacheFolder != null
                        ? ConfigureSeeds.in(cacheFolder.root().resolve("configure-seeds"), options.environment())
                        : ConfigureSeeds.temporary(options.environment());
            } catch (IOException e) {
                LOG.info("no configure seeds in this session: their folder could not be made ({})", e.toString());
            }
        }
        return new SessionScheduling(options, history, seeds);
    }

    /** {@code config} taking jobs in the asked order, by this session's history, with its seeds. */
    SchedulerConfig applyTo(SchedulerConfig config) {
        return config.withOrder(options.order(), history).withSeeds(seeds);
    }

    /** Records this session's job durations for the next; a history that cannot be written is only logged. */
    void save() {
        try {
            history.save();
        } catch (IOException e) {
            LOG.info("the job durations could not be saved to {}: {}", history.file(), e.toString());
        }
    }

    /** Removes the seeds' folder when it was this session's own. */
    @Override
    public void close() {
        if (seeds != null) {
            seeds.close();
        }
    }
}
