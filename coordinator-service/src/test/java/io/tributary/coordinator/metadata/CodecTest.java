package io.tributary.coordinator.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.coordinator.metadata.MetadataCommand.AddPartitions;
import io.tributary.coordinator.metadata.MetadataCommand.AllocateProducerIds;
import io.tributary.coordinator.metadata.MetadataCommand.AlterPartition;
import io.tributary.coordinator.metadata.MetadataCommand.AlterTopicConfigs;
import io.tributary.coordinator.metadata.MetadataCommand.CreateTopics;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteTopic;
import io.tributary.coordinator.metadata.MetadataCommand.ElectLeaders;
import io.tributary.coordinator.metadata.MetadataCommand.ElectionType;
import io.tributary.coordinator.metadata.MetadataCommand.FenceBroker;
import io.tributary.coordinator.metadata.MetadataCommand.NewTopic;
import io.tributary.coordinator.metadata.MetadataCommand.RegisterBroker;
import io.tributary.coordinator.metadata.MetadataCommand.UnfenceBroker;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.random.RandomGenerator;
import java.util.stream.LongStream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Round trips and corruption of the command and image encodings, over seeded random values. */
class CodecTest {

    static LongStream seeds() {
        return LongStream.range(0, 200);
    }

    private static String name(RandomGenerator r) {
        String alphabet = "abcxyz._-0é€";
        StringBuilder s = new StringBuilder();
        for (int i = r.nextInt(0, 12); i >= 0; i--) {
            s.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        return s.toString();
    }

    private static List<Integer> ints(RandomGenerator r) {
        List<Integer> list = new ArrayList<>();
        for (int i = r.nextInt(0, 5); i > 0; i--) {
            list.add(r.nextInt(-1, 1000));
        }
        return list;
    }

    private static Map<String, String> strings(RandomGenerator r) {
        Map<String, String> map = new HashMap<>();
        for (int i = r.nextInt(0, 4); i > 0; i--) {
            map.put(name(r), name(r));
        }
        return map;
    }

    private static List<List<Integer>> assignments(RandomGenerator r) {
        List<List<Integer>> list = new ArrayList<>();
        for (int i = r.nextInt(0, 4); i > 0; i--) {
            list.add(ints(r));
        }
        return list;
    }

    /** Any command, with field values that need not be valid against any image. */
    static MetadataCommand randomCommand(RandomGenerator r) {
        UUID uuid = new UUID(r.nextLong(), r.nextLong());
        return switch (r.nextInt(10)) {
            case 0 ->
                new RegisterBroker(
                        r.nextInt(),
                        uuid,
                        List.of(new Endpoint(name(r), name(r), r.nextInt())),
                        r.nextBoolean() ? Optional.of(name(r)) : Optional.empty(),
                        r.nextLong());
            case 1 -> new FenceBroker(r.nextInt(), uuid);
            case 2 -> new UnfenceBroker(r.nextInt(), uuid);
            case 3 -> new CreateTopics(List.of(new NewTopic(name(r), uuid, assignments(r), strings(r))));
            case 4 -> new DeleteTopic(name(r));
            case 5 -> new AddPartitions(name(r), r.nextInt(), assignments(r));
            case 6 -> new AlterTopicConfigs(name(r), strings(r), List.of(name(r)));
            case 7 -> new AlterPartition(name(r), r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt(), ints(r));
            case 8 ->
                new ElectLeaders(
                        r.nextBoolean() ? ElectionType.PREFERRED : ElectionType.UNCLEAN,
                        List.of(new TopicPartition(name(r), r.nextInt())));
            default -> new AllocateProducerIds(r.nextInt(), r.nextInt());
        };
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void everyCommandRoundTripsAndEveryTruncationIsRejected(long seed) {
        RandomGenerator r = new java.util.SplittableRandom(seed);
        MetadataCommand command = randomCommand(r);
        byte[] bytes = CommandCodec.encode(command);
        assertThat(CommandCodec.decode(bytes)).as("seed %d", seed).isEqualTo(command);
        for (int length = 0; length < bytes.length; length++) {
            byte[] truncated = Arrays.copyOf(bytes, length);
            assertThatThrownBy(() -> CommandCodec.decode(truncated))
                    .as("seed %d, truncated to %d of %d bytes", seed, length, bytes.length)
                    .isInstanceOf(CorruptCommandException.class);
        }
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
        assertThatThrownBy(() -> CommandCodec.decode(longer))
                .as("seed %d", seed)
                .isInstanceOf(CorruptCommandException.class)
                .hasMessageContaining("trailing");
    }

    @Test
    void unknownVersionAndTypeAreRejected() {
        byte[] bytes = CommandCodec.encode(new DeleteTopic("t"));
        bytes[0] = 3;
        byte[] badVersion = bytes.clone();
        assertThatThrownBy(() -> CommandCodec.decode(badVersion)).hasMessageContaining("version 3");
        bytes[0] = 1;
        bytes[1] = 42;
        byte[] badType = bytes.clone();
        assertThatThrownBy(() -> CommandCodec.decode(badType)).hasMessageContaining("type 42");
    }

    @Test
    void deleteTopicHasTheDocumentedBytes() {
        assertThat(CommandCodec.encode(new DeleteTopic("ab"))).containsExactly(1, 5, 0, 0, 0, 2, 'a', 'b');
    }

    @Test
    void commandsOfVersionOneAreStillReadInVersionTwo() {
        assertThat(CommandCodec.decode(new byte[] {2, 5, 0, 0, 0, 2, 'a', 'b'})).isEqualTo(new DeleteTopic("ab"));
    }

    @Test
    void allocateProducerIdsHasTheDocumentedBytesInVersionTwoOnly() {
        byte[] bytes = CommandCodec.encode(new AllocateProducerIds(1, 1000));
        assertThat(bytes).containsExactly(2, 10, 0, 0, 0, 1, 0, 0, 0x03, 0xE8 - 256);
        bytes[0] = 1;
        assertThatThrownBy(() -> CommandCodec.decode(bytes))
                .isInstanceOf(CorruptCommandException.class)
                .hasMessageContaining("type 10 needs format version 2");
    }

    @Test
    void anImageHasTheDocumentedBytes() {
        MetadataImage image = new MetadataImage(7, new TreeMap<>(), new TreeMap<>(), 0x0102);
        byte[] body = {
            0x54,
            0x52,
            0x42,
            0x4D, // magic "TRBM"
            2, // format version
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            7, // metadata version
            0,
            0,
            0,
            0,
            0,
            0,
            1,
            2, // next producer id
            0,
            0,
            0,
            0, // brokers
            0,
            0,
            0,
            0 // topics
        };
        assertThat(ImageCodec.encode(image)).isEqualTo(withCrc(body));
    }

    private static byte[] withCrc(byte[] body) {
        CRC32C crc = new CRC32C();
        crc.update(body);
        return ByteBuffer.allocate(body.length + 4)
                .put(body)
                .putInt((int) crc.getValue())
                .array();
    }

    /** A version-1 image (before producer ids): version 2's bytes without the next producer id. */
    private static byte[] asVersionOne(byte[] version2) {
        byte[] body = new byte[version2.length - 4 - 8];
        System.arraycopy(version2, 0, body, 0, 13);
        System.arraycopy(version2, 21, body, 13, body.length - 13);
        body[4] = 1;
        return withCrc(body);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void imagesRoundTripCanonicallyAndAnyFlippedBitIsCaught(long seed) {
        RandomGenerator r = new java.util.SplittableRandom(seed);
        MetadataImage image = Fixtures.liveBrokers(r.nextInt(1, 6), r.nextInt(1, 3));
        int brokers = image.brokers().size();
        for (int t = r.nextInt(0, 4); t > 0; t--) {
            List<List<Integer>> assignments = new ArrayList<>();
            for (int p = r.nextInt(1, 4); p > 0; p--) {
                assignments.add(List.of(r.nextInt(brokers)));
            }
            image = image.apply(Fixtures.createTopic(
                    "t" + t, assignments, Map.of("retention.ms", Long.toString(r.nextLong(0, 1000)))));
        }
        if (r.nextBoolean()) {
            image = image.apply(new AllocateProducerIds(0, r.nextInt(1, 10_000)));
        }
        byte[] bytes = ImageCodec.encode(image);
        MetadataImage decoded = ImageCodec.decode(bytes);
        assertThat(decoded).as("seed %d", seed).isEqualTo(image);
        assertThat(ImageCodec.encode(decoded)).as("seed %d", seed).isEqualTo(bytes);
        MetadataImage fromVersionOne = ImageCodec.decode(asVersionOne(bytes));
        assertThat(fromVersionOne.nextProducerId()).as("seed %d", seed).isZero();
        assertThat(fromVersionOne)
                .as("seed %d: a version-1 snapshot holds the same state but producer ids", seed)
                .isEqualTo(new MetadataImage(image.version(), image.brokers(), image.topics(), 0));
        int bit = r.nextInt(bytes.length * 8);
        bytes[bit / 8] ^= (byte) (1 << (bit % 8));
        assertThatThrownBy(() -> ImageCodec.decode(bytes))
                .as("seed %d, bit %d", seed, bit)
                .isInstanceOf(CorruptCommandException.class);
    }
}
