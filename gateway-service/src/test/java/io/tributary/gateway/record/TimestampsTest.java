package io.tributary.gateway.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TimestampsTest {

    /** The cached formatting writes exactly what {@code Instant.toString} writes, whatever the order. */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void formattingMatchesInstantToString(long seed) {
        var random = new SplittableRandom(seed);
        long[] edges = {
            0,
            1,
            999,
            1000,
            1001,
            59_999,
            60_000,
            1_795_986_000_000L,
            1_795_986_000_123L,
            1_795_986_000_120L,
            1_795_986_000_100L,
            253_402_300_799_999L,
            253_402_300_800_000L,
            Long.MAX_VALUE
        };
        for (int i = 0; i < 20_000; i++) {
            long ms = switch (random.nextInt(4)) {
                case 0 -> edges[random.nextInt(edges.length)];
                case 1 -> 1_795_986_000_000L + random.nextLong(5_000); // the same few seconds again
                case 2 -> random.nextLong(253_402_300_800_000L);
                default -> random.nextLong(0, Long.MAX_VALUE);
            };
            assertThat(Timestamps.format(ms))
                    .as("%d", ms)
                    .hasValue(Instant.ofEpochMilli(ms).toString());
        }
        assertThat(Timestamps.format(-1)).isEmpty();
    }
}
