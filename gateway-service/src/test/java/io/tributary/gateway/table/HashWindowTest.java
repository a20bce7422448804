package io.tributary.gateway.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HashWindowTest {

    /**
     * Whatever the splits (chosen at random, as overflowing scans would), the windows a partition
     * goes through cover every digest exactly once and end.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void windowsCoverEveryDigestExactlyOnceWhateverTheSplits(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<KeyDigest> digests = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            digests.add(new KeyDigest(random.nextLong(), random.nextLong()));
        }
        int[] seen = new int[digests.size()];
        HashWindow w = HashWindow.all();
        int windows = 0;
        while (!w.isEnd()) {
            if (w.depth() < 12 && random.nextInt(3) == 0) {
                w = w.split();
                continue;
            }
            for (int i = 0; i < digests.size(); i++) {
                if (w.contains(digests.get(i))) {
                    seen[i]++;
                }
            }
            w = w.next();
            windows++;
            assertThat(windows).as("seed %d: the windows end", seed).isLessThan(1 << 13);
        }
        for (int i = 0; i < seen.length; i++) {
            assertThat(seen[i])
                    .as("seed %d: digest %d in exactly one window", seed, i)
                    .isEqualTo(1);
        }
    }

    @org.junit.jupiter.api.Test
    void theNextWindowIsAsCoarseAsItCanBe() {
        assertThat(HashWindow.all().next().isEnd()).isTrue();
        assertThat(new HashWindow(3, 1).next()).isEqualTo(new HashWindow(2, 1));
        assertThat(new HashWindow(3, 3).next()).isEqualTo(new HashWindow(1, 1));
        assertThat(new HashWindow(3, 7).next().isEnd()).isTrue();
        assertThat(new HashWindow(1, 0).contains(new KeyDigest(Long.MAX_VALUE, 0)))
                .isTrue();
        assertThat(new HashWindow(1, 0).contains(new KeyDigest(-1, 0))).isFalse();
        assertThatThrownBy(() -> new HashWindow(HashWindow.MAX_DEPTH, 0).split())
                .isInstanceOf(IllegalStateException.class);
    }
}
