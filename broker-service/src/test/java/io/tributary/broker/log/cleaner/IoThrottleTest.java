package io.tributary.broker.log.cleaner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The token bucket, on a simulated clock that only its sleeps (and the test) move. */
class IoThrottleTest {

    private static final long SECOND = 1_000_000_000L;

    private final AtomicLong nowNanos = new AtomicLong(1_000 * SECOND);
    private final InstantSource clock = () -> Instant.ofEpochSecond(0, nowNanos.get());
    private final List<Long> sleeps = new ArrayList<>();

    private IoThrottle throttle(long bytesPerSecond) {
        return IoThrottle.of(OptionalLong.of(bytesPerSecond), clock, nanos -> {
            sleeps.add(nanos);
            nowNanos.addAndGet(nanos);
        });
    }

    @Test
    void withoutALimitNothingEverSleeps() {
        IoThrottle unlimited = IoThrottle.of(OptionalLong.empty(), clock, nanos -> sleeps.add(nanos));

        for (int i = 0; i < 1_000; i++) {
            unlimited.acquire(1L << 30);
        }

        assertThat(sleeps).isEmpty();
        assertThat(unlimited.throttledNanos()).isZero();
    }

    @Test
    void oneSecondOfBytesPassesAtOnceAndTheNextBytesWaitForTheirShare() {
        IoThrottle throttle = throttle(1_000);

        throttle.acquire(1_000);
        throttle.acquire(500);

        assertThat(sleeps).containsExactly(SECOND / 2);
    }

    @Test
    void anIdleThrottleSavesAtMostOneSecondOfBytes() {
        IoThrottle throttle = throttle(1_000);
        throttle.acquire(1_000);
        nowNanos.addAndGet(60 * SECOND);

        throttle.acquire(3_000);

        assertThat(sleeps).containsExactly(2 * SECOND);
    }

    /**
     * Whatever the sizes of the reads and writes, n bytes take at least (n - rate) / rate seconds
     * (one second's worth passes at once) and at most that plus the time of the largest single
     * acquire: the throttle neither lets more through nor sleeps more than it must.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
    void manyAcquiresTakeTheirBytesOverRateSeconds(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long rate = 1 + random.nextLong(10_000_000);
        IoThrottle throttle = throttle(rate);
        long start = nowNanos.get();
        long total = 0;
        for (int i = 0; i < 500; i++) {
            long bytes = 1 + random.nextLong(2 * rate);
            total += bytes;
            throttle.acquire(bytes);
            if (random.nextInt(10) == 0) {
                nowNanos.addAndGet(random.nextLong(SECOND)); // time passes doing other work
            }
        }
        // Each acquire spends the whole balance: waits plus the time spent elsewhere repay the debt.
        double elapsedSeconds = (nowNanos.get() - start) / 1e9;
        double minimum = (double) (total - rate) / rate;
        assertThat(elapsedSeconds)
                .as("seed %d, rate %d B/s, %d bytes", seed, rate, total)
                .isGreaterThanOrEqualTo(minimum - 1e-6);
        assertThat(throttle.throttledNanos() / 1e9)
                .as("seed %d: slept no more than the bytes need", seed)
                .isLessThanOrEqualTo((double) total / rate + 1e-6);
        assertThat(sleeps).isNotEmpty();
    }

    @Test
    void aRateBelowOneByteASecondIsRefused() {
        assertThatThrownBy(() -> throttle(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CleanerConfig(1 << 20, 0.9, 4096, OptionalLong.of(0)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void threadsSharingOneThrottleShareItsBucket() throws InterruptedException {
        IoThrottle shared = throttle(1_000);
        Thread first = Thread.ofPlatform().start(() -> shared.acquire(1_000));
        first.join();
        Thread second = Thread.ofPlatform().start(() -> shared.acquire(500));
        second.join();

        // The first thread emptied the bucket (no sleep); the second, on another thread, finds it empty.
        assertThat(sleeps).containsExactly(SECOND / 2);
        assertThat(shared.throttledNanos()).isEqualTo(SECOND / 2);
    }
}
