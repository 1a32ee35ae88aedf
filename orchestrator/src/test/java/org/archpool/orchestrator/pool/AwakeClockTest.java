package org.archpool.orchestrator.pool;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AwakeClockTest {

    private static final long MS = 1_000_000;

    private final AtomicLong now = new AtomicLong(5_000 * MS);
    private final AwakeClock clock = new AwakeClock(now::get, Duration.ofMillis(100), Duration.ofMillis(400));

    /** Advances the monotonic clock by {@code ms} in ticks of 100 ms, as a running process does. */
    private void run(long ms) {
        for (long t = 0; t < ms; t += 100) {
            now.addAndGet(100 * MS);
            clock.tick();
        }
    }

    @Test
    void whileTheProcessRunsEveryNanosecondCounts() {
        long start = clock.nanos();
        run(10_000);
        assertThat(clock.nanos() - start).isEqualTo(10_000 * MS);
    }

    @Test
    void aStopOfAnyLengthCountsAsAtMostOneLateTick() {
        long start = clock.nanos();
        run(1_000);
        now.addAndGet(60_000 * MS); // stopped for a minute: nothing ticked
        long beforeTheLateTick = clock.nanos() - start;
        clock.tick();
        run(1_000);
        assertThat(beforeTheLateTick).isEqualTo(1_500 * MS);
        assertThat(clock.nanos() - start).isEqualTo(2_500 * MS);
    }

    @Test
    void aReadingBeforeTheLateTickAlreadyLeavesTheStopOut() {
        long heard = clock.nanos();
        now.addAndGet(30_000 * MS);
        assertThat(clock.nanos() - heard).isEqualTo(500 * MS);
        assertThat(clock.nanos()).isEqualTo(clock.nanos());
    }

    @Test
    void aTickThatIsLateByLessThanTheSlackCountsInFull() {
        long start = clock.nanos();
        now.addAndGet(450 * MS);
        clock.tick();
        assertThat(clock.nanos() - start).isEqualTo(450 * MS);
    }
}
