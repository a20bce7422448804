package io.tributary.broker.log.cleaner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class OffsetMapTest {

    private static ByteBuffer key(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void slotsAreTheLargestPrimeWhoseSlotsFitTheBudget() {
        OffsetMap map = new OffsetMap(24 * 100, 0.9);

        assertThat(map.slots()).isEqualTo(97);
        assertThat((long) map.slots() * OffsetMap.SLOT_BYTES).isLessThanOrEqualTo(24 * 100);
        assertThat(map.maxEntries()).isEqualTo(87);
    }

    @Test
    void aNewKeyBeyondTheBoundIsRefusedButAKnownKeyStillMoves() {
        OffsetMap map = new OffsetMap(24 * 100, 0.9);
        for (int i = 0; i < map.maxEntries(); i++) {
            map.put(key("k" + i), i);
        }

        assertThat(map.fits(0)).isTrue();
        assertThat(map.fits(1)).isFalse();
        assertThatThrownBy(() -> map.put(key("one too many"), 1000))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("full");
        map.put(key("k3"), 5000);
        assertThat(map.get(key("k3"))).isEqualTo(5000);
        assertThat(map.size()).isEqualTo(map.maxEntries());
    }

    @Test
    void clearForgetsEveryKey() {
        OffsetMap map = new OffsetMap(24 * 10, 0.9);
        map.put(key("a"), 1);

        map.clear();

        assertThat(map.size()).isZero();
        assertThat(map.get(key("a"))).isEqualTo(-1);
    }

    @Test
    void aBudgetBelowThreeSlotsIsRefused() {
        assertThatThrownBy(() -> new OffsetMap(24 * 2, 0.9)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new OffsetMap(24 * 100, 1.0)).isInstanceOf(IllegalArgumentException.class);
    }

    static LongStream seeds() {
        return LongStream.range(0, 20);
    }

    /** Random puts and gets up to the bound, against a {@link HashMap}. */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void behavesLikeAHashMapOfKeysToTheirLatestOffset(long seed) {
        RandomGenerator random = RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
        OffsetMap map = new OffsetMap(24L * random.nextInt(3, 2000), random.nextDouble(0.5, 0.95));
        Map<String, Long> model = new HashMap<>();
        long offset = 0;
        int keySpace = random.nextInt(1, map.maxEntries() + 1);
        for (int i = 0; i < 5000; i++) {
            String k = "key-" + random.nextInt(keySpace);
            if (random.nextBoolean()) {
                map.put(key(k), offset);
                model.put(k, offset);
                offset += random.nextInt(1, 10);
            } else {
                assertThat(map.get(key(k))).as("seed %d, get %s", seed, k).isEqualTo(model.getOrDefault(k, -1L));
            }
        }
        assertThat(map.size()).as("seed %d", seed).isEqualTo(model.size());
    }
}
