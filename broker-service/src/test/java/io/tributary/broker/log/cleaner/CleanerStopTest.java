package io.tributary.broker.log.cleaner;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.log.LogContents;
import io.tributary.broker.log.PartitionLog;
import java.time.Instant;
import java.time.InstantSource;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A stop (the broker shutting down) ends a pass at its next read: the throttle's sleeps are the
 * seam, each a point where the test may ask for the stop, on a clock only the sleeps move.
 */
class CleanerStopTest {

    private final AtomicLong nowNanos = new AtomicLong(1_000_000_000_000_000L);
    private final InstantSource clock = () -> Instant.ofEpochSecond(0, nowNanos.get());

    @RegisterExtension
    final CleanerTestLogs logs = new CleanerTestLogs(clock);

    /** Three closed segments of ten records over keys k0..k9 (offsets 0 to 29). */
    private PartitionLog dirtyLog(String topic) {
        PartitionLog log = logs.open(topic, CleanerTestLogs.COMPACT);
        CleanerTestLogs.fill(log, 3, 10, nowNanos.get() / 1_000_000);
        return log;
    }

    /** A pass throttled to 1 byte a second (every read and write sleeps), stopped at sleep {@code stopAt}. */
    private CleanResult passStoppedAtSleep(PartitionLog log, int stopAt, AtomicInteger sleeps) {
        AtomicBoolean stop = new AtomicBoolean();
        IoThrottle throttle = IoThrottle.of(OptionalLong.of(1), clock, nanos -> {
            nowNanos.addAndGet(nanos);
            if (sleeps.incrementAndGet() == stopAt) {
                stop.set(true);
            }
        });
        return new Cleaner(CleanerConfig.defaults(), clock, throttle, stop::get).clean(log, Long.MAX_VALUE);
    }

    @Test
    void aStopAtAnyReadOrWriteEndsThePassAbortedOrLeavesItWholeAndNeverAPartialSwap() {
        AtomicInteger unstoppedSleeps = new AtomicInteger();
        CleanResult unstopped = passStoppedAtSleep(dirtyLog("reference"), 0, unstoppedSleeps);
        assertThat(unstopped.outcome()).isEqualTo(CleanResult.Outcome.CLEANED);
        assertThat(unstoppedSleeps.get()).as("reads and writes of the pass").isGreaterThanOrEqualTo(4);

        int aborted = 0;
        for (int stopAt = 1; stopAt <= unstoppedSleeps.get(); stopAt++) {
            PartitionLog log = dirtyLog("stopped-at-" + stopAt);
            TreeMap<Long, String> before = LogContents.records(log);

            CleanResult result = passStoppedAtSleep(log, stopAt, new AtomicInteger());

            TreeMap<Long, String> after = LogContents.records(log);
            if (result.outcome() == CleanResult.Outcome.ABORTED) {
                aborted++;
                assertThat(after).as("stopped at sleep %d", stopAt).isEqualTo(before);
                assertThat(log.compaction().cleanerCheckpoint()).isZero();
            } else {
                assertThat(result.outcome()).as("stopped at sleep %d", stopAt).isEqualTo(CleanResult.Outcome.CLEANED);
                assertThat(after).hasSize(10);
                assertThat(log.compaction().cleanerCheckpoint()).isEqualTo(30);
            }
            assertThat(log.directory()).isDirectoryNotContaining("glob:**.{cleaned,swap}");
        }
        // Only the last read and its write come after the last check: the pass then only swaps.
        assertThat(aborted).isEqualTo(unstoppedSleeps.get() - 2);
    }

    @Test
    void aStoppedPassLeavesTheLogForALaterCleanerToClean() {
        PartitionLog log = dirtyLog("later");
        CleanResult stopped = passStoppedAtSleep(log, 1, new AtomicInteger());

        CleanResult later = new Cleaner(CleanerConfig.defaults(), clock).clean(log, Long.MAX_VALUE);

        assertThat(stopped.outcome()).isEqualTo(CleanResult.Outcome.ABORTED);
        assertThat(later.outcome()).isEqualTo(CleanResult.Outcome.CLEANED);
        assertThat(LogContents.records(log)).hasSize(10);
    }
}
