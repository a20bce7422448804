package io.tributary.gateway.sse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Base64;
import java.util.SortedMap;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class GroupCursorCodecTest {

    private static final String ID = "wE3gVQ8uQ4yq1mY3cS3h0A";

    @Test
    void theJavadocExampleIsWhatIsWritten() {
        TreeMap<Integer, Long> offsets = new TreeMap<>();
        offsets.put(0, 43L);
        offsets.put(1, 17L);
        TreeMap<String, SortedMap<Integer, Long>> topics = new TreeMap<>();
        topics.put(ID, offsets);
        assertThat(GroupCursorCodec.encode(new GroupCursor(1, topics)))
                .isEqualTo("g1.AAAAAAAAAAEBwE3gVQ8uQ4yq1mY3cS3h0AIAKwAR");
    }

    @Test
    void theContractExampleIsACursor() {
        GroupCursor c = GroupCursorCodec.decode("g1.AAAAAAAAAAEBwE3gVQ8uQ4yq1mY3cS3h0AEAKw");
        assertThat(c.lineage()).isEqualTo(1);
        assertThat(c.nextOffset(ID, 0)).isEqualTo(43);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 42, 1234, 99991, 31337, 8675309})
    void everyCursorRoundTripsThroughHeaderSafeText(long seed) {
        RandomGenerator random = new SplittableRandom(seed);
        for (int round = 0; round < 500; round++) {
            GroupCursor cursor = randomCursor(random);
            String text = GroupCursorCodec.encode(cursor);
            assertThat(text).as("seed %d round %d", seed, round).matches("[A-Za-z0-9._-]+");
            assertThat(GroupCursorCodec.decode(text))
                    .as("seed %d round %d: %s", seed, round, text)
                    .isEqualTo(cursor);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {5, 6, 7, 77})
    void corruptedCursorsAreRefusedOrReadAsAnotherValidCursor(long seed) {
        RandomGenerator random = new SplittableRandom(seed);
        for (int round = 0; round < 500; round++) {
            char[] text = GroupCursorCodec.encode(randomCursor(random)).toCharArray();
            text[random.nextInt(text.length)] = "A_-.x0~ ".charAt(random.nextInt(8));
            String corrupted = new String(text);
            try {
                GroupCursor read = GroupCursorCodec.decode(corrupted);
                assertThat(GroupCursorCodec.encode(read))
                        .as("seed %d round %d: a cursor read is the one written", seed, round)
                        .isEqualTo(corrupted);
            } catch (MalformedCursorException expected) {
                // refused: fine
            }
        }
    }

    @Test
    void malformedCursorsAreRefused() {
        for (String bad : new String[] {
            "",
            "g1",
            "g2.AAAA",
            "v1." + ID + ".AgArABE",
            "g1.@@",
            "g1.AAAA",
            "g1.a.b",
            // lineage then 1 topic with nothing after it
            "g1." + Base64.getUrlEncoder().withoutPadding().encodeToString(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 1})
        }) {
            assertThatThrownBy(() -> GroupCursorCodec.decode(bad)).as(bad).isInstanceOf(MalformedCursorException.class);
        }
    }

    @Test
    void aCursorOfNoPartitionsRoundTrips() {
        GroupCursor empty = GroupCursor.empty(-7);
        assertThat(GroupCursorCodec.decode(GroupCursorCodec.encode(empty))).isEqualTo(empty);
    }

    private static GroupCursor randomCursor(RandomGenerator random) {
        TreeMap<String, SortedMap<Integer, Long>> topics = new TreeMap<>();
        int count = random.nextInt(4);
        for (int t = 0; t < count; t++) {
            byte[] id = new byte[16];
            random.nextBytes(id);
            TreeMap<Integer, Long> offsets = new TreeMap<>();
            int partitions = 1 + random.nextInt(20);
            for (int i = 0; i < partitions; i++) {
                offsets.put(
                        random.nextInt(1 + random.nextInt(10_000)),
                        random.nextLong(0, Long.MAX_VALUE >> random.nextInt(63)));
            }
            topics.put(Base64.getUrlEncoder().withoutPadding().encodeToString(id), offsets);
        }
        return new GroupCursor(random.nextLong(), topics);
    }
}
