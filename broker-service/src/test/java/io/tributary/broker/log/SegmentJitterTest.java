package io.tributary.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code segment.jitter.ms}: a per-segment jitter below min(segment.jitter.ms, segment.ms), as Kafka's. */
class SegmentJitterTest {

    private static final TopicIdPartition TP = new TopicIdPartition(new Uuid(1, 2), 0, "t");

    @Test
    void withoutJitterNoSegmentRollsEarly() {
        LogConfig config = LogConfig.defaults();

        for (long base = 0; base < 1_000; base++) {
            assertThat(config.segmentJitterMs(TP, base)).isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void jittersStayBelowTheSmallerOfJitterAndSegmentMsAndSpreadOverPartitionsAndSegments(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long segmentMs = 1 + random.nextLong(1_000_000);
        long jitterMs = 1 + random.nextLong(2_000_000);
        long bound = Math.min(segmentMs, jitterMs);
        LogConfig config = LogConfig.defaults()
                .withSegmentTime(Duration.ofMillis(segmentMs))
                .withSegmentJitter(Duration.ofMillis(jitterMs));
        Uuid topicId = new Uuid(random.nextLong(), random.nextLong());
        Set<Long> seen = new HashSet<>();

        for (int partition = 0; partition < 50; partition++) {
            for (long base = 0; base < 20; base++) {
                long jitter = config.segmentJitterMs(new TopicIdPartition(topicId, partition, "t"), base * 1_000);
                assertThat(jitter).as("seed %d", seed).isGreaterThanOrEqualTo(0).isLessThan(bound);
                seen.add(jitter);
            }
        }

        // 1000 segments: distinct jitters unless the bound leaves little room
        assertThat(seen.size()).as("seed %d, bound %d", seed, bound).isGreaterThan((int) Math.min(bound, 1_000) / 2);
    }

    @Test
    void theSameSegmentHasTheSameJitterWhenTheLogIsReopened() {
        LogConfig config = LogConfig.defaults().withSegmentJitter(Duration.ofHours(1));

        assertThat(config.segmentJitterMs(TP, 42)).isEqualTo(config.segmentJitterMs(TP, 42));
    }
}
