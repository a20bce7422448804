package io.tributary.gateway.sse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Base64;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CursorCodecTest {

    private static final String ID = "wE3gVQ8uQ4yq1mY3cS3h0A";

    @Test
    void theJavadocExampleIsWhatIsWritten() {
        TreeMap<Integer, Long> offsets = new TreeMap<>();
        offsets.put(0, 43L);
        offsets.put(1, 17L);
        assertThat(CursorCodec.encode(new StreamCursor(ID, offsets))).isEqualTo("v1." + ID + ".AgArABE");
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 42, 1234, 99991, 31337, 8675309})
    void everyCursorRoundTripsThroughHeaderSafeText(long seed) {
        RandomGenerator random = new SplittableRandom(seed);
        for (int round = 0; round < 500; round++) {
            StreamCursor cursor = randomCursor(random);
            String text = CursorCodec.encode(cursor);
            assertThat(text).as("seed %d round %d", seed, round).matches("[A-Za-z0-9._-]+");
            assertThat(CursorCodec.decode(text))
                    .as("seed %d round %d: %s", seed, round, text)
                    .isEqualTo(cursor);
        }
    }

    @Test
    void manyPartitionsStayCompact() {
        TreeMap<Integer, Long> offsets = new TreeMap<>();
        for (int p = 0; p < 1000; p++) {
            offsets.put(p, 1_000_000L + p);
        }
        String text = CursorCodec.encode(new StreamCursor(ID, offsets));
        assertThat(text.length()).isLessThan(5_500);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {5, 6, 7, 77})
    void corruptedCursorsAreRefusedOrReadAsAnotherValidCursor(long seed) {
        RandomGenerator random = new SplittableRandom(seed);
        for (int round = 0; round < 500; round++) {
            char[] text = CursorCodec.encode(randomCursor(random)).toCharArray();
            text[random.nextInt(text.length)] = "A_-.x0~ ".charAt(random.nextInt(8));
            String corrupted = new String(text);
            try {
                StreamCursor read = CursorCodec.decode(corrupted);
                assertThat(CursorCodec.encode(read))
                        .as("seed %d: %s", seed, corrupted)
                        .isEqualTo(corrupted);
            } catch (MalformedCursorException expected) {
                assertThat(expected.getMessage()).isNotBlank();
            }
        }
    }

    @Test
    void malformedCursorsAreRefusedWithAReason() {
        String b64 = Base64.getUrlEncoder().withoutPadding().encodeToString(new byte[] {1, 0, (byte) 0x80});
        for (String bad : new String[] {
            "",
            "v1",
            "v2." + ID + ".AQAA",
            "v1.short.AQAA",
            "v1." + ID + ".",
            "v1." + ID + ".AQAA.x",
            "v1." + ID + ".A",
            "v1." + ID + ".AA", // zero partitions
            "v1." + ID + "." + b64, // ends inside a number
            "v1." + ID + ".AQAAAA", // trailing bytes
            "v1." + ID + ".AQ+A",
        }) {
            assertThatThrownBy(() -> CursorCodec.decode(bad))
                    .as("'%s'", bad)
                    .isInstanceOf(MalformedCursorException.class);
        }
    }

    private static StreamCursor randomCursor(RandomGenerator random) {
        TreeMap<Integer, Long> offsets = new TreeMap<>();
        int count = 1 + random.nextInt(random.nextBoolean() ? 4 : 300);
        for (int i = 0; i < count; i++) {
            int partition = random.nextBoolean() ? i : random.nextInt(Integer.MAX_VALUE);
            long offset = switch (random.nextInt(4)) {
                case 0 -> 0;
                case 1 -> random.nextLong(1000);
                case 2 -> Long.MAX_VALUE - random.nextLong(1000);
                default -> random.nextLong(Long.MAX_VALUE);
            };
            offsets.put(partition, offset);
        }
        byte[] id = new byte[16];
        random.nextBytes(id);
        return new StreamCursor(Base64.getUrlEncoder().withoutPadding().encodeToString(id), offsets);
    }
}
