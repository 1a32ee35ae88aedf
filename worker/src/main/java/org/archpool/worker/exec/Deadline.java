package org.archpool.worker.exec;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/** The moment a job's time runs out, or none. */
public final class Deadline {

    private final Clock clock;
    private final Instant at;

    private Deadline(Clock clock, Instant at) {
        this.clock = clock;
        this.at = at;
    }

    /** A deadline {@code timeoutMs} from now; 0 means no limit. */
    public static Deadline after(Clock clock, long timeoutMs) {
        return new Deadline(clock, timeoutMs <= 0 ? null : clock.instant().plusMillis(timeoutMs));
    }

    /** Time left, or null when there is no limit; never negative. */
    public Duration remaining() {
        if (at == null) {
            return null;
        }
        Duration left = Duration.between(clock.instant(), at);
        return left.isNegative() ? Duration.ZERO : left;
    }

    public boolean isLimited() {
        return at != null;
    }
}
