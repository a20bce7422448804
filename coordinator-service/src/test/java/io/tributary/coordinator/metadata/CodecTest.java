package io.tributary.coordinator.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.coordinator.group.classic.ClassicGroupRecord;
import io.tributary.coordinator.metadata.MetadataCommand.AddPartitions;
import io.tributary.coordinator.metadata.MetadataCommand.AllocateProducerIds;
import io.tributary.coordinator.metadata.MetadataCommand.AlterPartition;
import io.tributary.coordinator.metadata.MetadataCommand.AlterTopicConfigs;
import io.tributary.coordinator.metadata.MetadataCommand.CommitOffsets;
import io.tributary.coordinator.metadata.MetadataCommand.CreateTopics;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteClassicGroup;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteConsumerGroup;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteGroupOffsets;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteOffsets;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteTopic;
import io.tributary.coordinator.metadata.MetadataCommand.ElectLeaders;
import io.tributary.coordinator.metadata.MetadataCommand.ElectionType;
import io.tributary.coordinator.metadata.MetadataCommand.FenceBroker;
import io.tributary.coordinator.metadata.MetadataCommand.NewTopic;
import io.tributary.coordinator.metadata.MetadataCommand.RegisterBroker;
import io.tributary.coordinator.metadata.MetadataCommand.StoreClassicGroup;
import io.tributary.coordinator.metadata.MetadataCommand.UnfenceBroker;
import io.tributary.coordinator.metadata.MetadataCommand.UpdateConsumerGroup;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
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
        return switch (r.nextInt(17)) {
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
            case 9 -> new AllocateProducerIds(r.nextInt(), r.nextInt());
            case 10 -> new CommitOffsets(name(r), offsets(r));
            case 11 -> new DeleteGroupOffsets(name(r));
            case 12 -> {
                List<TopicPartition> partitions = new ArrayList<>();
                for (int i = r.nextInt(0, 5); i > 0; i--) {
                    partitions.add(new TopicPartition(name(r), r.nextInt(3)));
                }
                yield new DeleteOffsets(name(r), partitions);
            }
            case 13 -> new StoreClassicGroup(Fixtures.classicGroup(r, name(r)));
            case 14 -> new DeleteClassicGroup(name(r));
            case 15 -> new UpdateConsumerGroup(name(r), ConsumerGroupFixtures.records(r));
            default -> new DeleteConsumerGroup(name(r));
        };
    }

    private static CommittedOffset offset(RandomGenerator r) {
        return new CommittedOffset(r.nextLong(0, Long.MAX_VALUE), r.nextInt(), name(r), r.nextLong());
    }

    /** Offsets of a few partitions of a few random topics. */
    private static Map<TopicPartition, CommittedOffset> offsets(RandomGenerator r) {
        Map<TopicPartition, CommittedOffset> offsets = new HashMap<>();
        for (int i = r.nextInt(0, 6); i > 0; i--) {
            offsets.put(new TopicPartition(name(r), r.nextInt(4)), offset(r));
        }
        return offsets;
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void everyCommandRoundTripsAndEveryTruncationIsRejected(long seed) {
        RandomGenerator r = new java.util.SplittableRandom(seed);
        assertRoundTripAndRejectedTruncations(randomCommand(r), seed);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void classicGroupCommandsRoundTripAndEveryTruncationIsRejected(long seed) {
        RandomGenerator r = new java.util.SplittableRandom(seed);
        ClassicGroupRecord group = Fixtures.classicGroup(r, name(r));
        assertRoundTripAndRejectedTruncations(new StoreClassicGroup(group), seed);
        assertRoundTripAndRejectedTruncations(new DeleteClassicGroup(group.groupId()), seed);
    }

    static void assertRoundTripAndRejectedTruncations(MetadataCommand command, long seed) {
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
        bytes[0] = 11;
        byte[] badVersion = bytes.clone();
        assertThatThrownBy(() -> CommandCodec.decode(badVersion)).hasMessageContaining("version 11");
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
    void commandsOfVersionOneAreStillReadInVersionsTwoAndThree() {
        assertThat(CommandCodec.decode(new byte[] {2, 5, 0, 0, 0, 2, 'a', 'b'})).isEqualTo(new DeleteTopic("ab"));
        assertThat(CommandCodec.decode(new byte[] {3, 5, 0, 0, 0, 2, 'a', 'b'})).isEqualTo(new DeleteTopic("ab"));
        assertThat(CommandCodec.decode(new byte[] {3, 10, 0, 0, 0, 1, 0, 0, 0, 2}))
                .isEqualTo(new AllocateProducerIds(1, 2));
    }

    @Test
    void commandsOfVersionsOneToThreeAreStillReadInVersionFourAndKeepTheirOwnVersion() {
        assertThat(CommandCodec.decode(new byte[] {4, 5, 0, 0, 0, 2, 'a', 'b'})).isEqualTo(new DeleteTopic("ab"));
        assertThat(CommandCodec.decode(new byte[] {4, 10, 0, 0, 0, 1, 0, 0, 0, 2}))
                .isEqualTo(new AllocateProducerIds(1, 2));
        assertThat(CommandCodec.decode(new byte[] {4, 12, 0, 0, 0, 1, 'g'})).isEqualTo(new DeleteGroupOffsets("g"));
        assertThat(CommandCodec.encode(new DeleteTopic("ab"))[0]).isEqualTo((byte) 1);
        assertThat(CommandCodec.encode(new AllocateProducerIds(1, 2))[0]).isEqualTo((byte) 2);
        assertThat(CommandCodec.encode(new DeleteGroupOffsets("g"))[0]).isEqualTo((byte) 3);
    }

    /** The README's example of a StoreClassicGroup (format version 4, type 14). */
    static final ClassicGroupRecord EXAMPLE_CLASSIC_GROUP = new ClassicGroupRecord(
            "g",
            "consumer",
            "range",
            1,
            "m",
            5,
            List.of(new ClassicGroupRecord.Member(
                    "m", Optional.of("i"), "c", "h", 3, 4, new byte[] {(byte) 0xAB}, new byte[0])));

    private static final String EXAMPLE_STORE_CLASSIC_GROUP_HEX = "04 0E"
            + " 00 00 00 01 67" // group id "g"
            + " 00 00 00 08 63 6F 6E 73 75 6D 65 72" // protocol type "consumer"
            + " 00 00 00 05 72 61 6E 67 65" // protocol name "range"
            + " 00 00 00 01" // generation
            + " 00 00 00 01 6D" // leader "m"
            + " 00 00 00 00 00 00 00 05" // state timestamp
            + " 00 00 00 01" // members
            + " 00 00 00 01 6D" // member id "m"
            + " 01 00 00 00 01 69" // instance id "i"
            + " 00 00 00 01 63" // client id "c"
            + " 00 00 00 01 68" // client host "h"
            + " 00 00 00 03" // rebalance timeout
            + " 00 00 00 04" // session timeout
            + " 00 00 00 01 AB" // subscription
            + " 00 00 00 00"; // assignment (empty)

    @Test
    void classicGroupCommandsHaveTheDocumentedBytesInVersionFourOnly() {
        HexFormat hex = HexFormat.ofDelimiter(" ").withUpperCase();
        byte[] store = CommandCodec.encode(new StoreClassicGroup(EXAMPLE_CLASSIC_GROUP));
        assertThat(hex.formatHex(store)).isEqualTo(EXAMPLE_STORE_CLASSIC_GROUP_HEX);
        assertThat(CommandCodec.decode(hex.parseHex(EXAMPLE_STORE_CLASSIC_GROUP_HEX)))
                .isEqualTo(new StoreClassicGroup(EXAMPLE_CLASSIC_GROUP));
        byte[] delete = CommandCodec.encode(new DeleteClassicGroup("g"));
        assertThat(hex.formatHex(delete)).isEqualTo("04 0F 00 00 00 01 67");
        for (byte[] bytes : List.of(store, delete)) {
            bytes[0] = 3;
            assertThatThrownBy(() -> CommandCodec.decode(bytes))
                    .isInstanceOf(CorruptCommandException.class)
                    .hasMessageContaining("needs format version 4");
        }
    }

    @Test
    void aClassicGroupWithANegativeGenerationOrLengthOrAnImpossibleMemberCountIsRejected() {
        HexFormat hex = HexFormat.ofDelimiter(" ").withUpperCase();
        byte[] bytes = hex.parseHex(EXAMPLE_STORE_CLASSIC_GROUP_HEX);
        int generation = 2 + 5 + 12 + 9;
        byte[] negativeGeneration = bytes.clone();
        negativeGeneration[generation] = (byte) 0x80;
        assertThatThrownBy(() -> CommandCodec.decode(negativeGeneration))
                .isInstanceOf(CorruptCommandException.class)
                .hasMessageContaining("negative generation");
        int memberCount = generation + 4 + 5 + 8;
        byte[] tooManyMembers = bytes.clone();
        tooManyMembers[memberCount + 3] = 2;
        assertThatThrownBy(() -> CommandCodec.decode(tooManyMembers))
                .isInstanceOf(CorruptCommandException.class)
                .hasMessageContaining("count 2");
        byte[] negativeMembers = bytes.clone();
        negativeMembers[memberCount] = (byte) 0xFF;
        assertThatThrownBy(() -> CommandCodec.decode(negativeMembers))
                .isInstanceOf(CorruptCommandException.class)
                .hasMessageContaining("count -");
        int subscription = bytes.length - 4 - 5;
        byte[] negativeLength = bytes.clone();
        negativeLength[subscription] = (byte) 0xFF;
        assertThatThrownBy(() -> CommandCodec.decode(negativeLength))
                .isInstanceOf(CorruptCommandException.class)
                .hasMessageContaining("count -");
        byte[] badInstanceFlag = bytes.clone();
        badInstanceFlag[memberCount + 4 + 5] = 2;
        assertThatThrownBy(() -> CommandCodec.decode(badInstanceFlag))
                .isInstanceOf(CorruptCommandException.class)
                .hasMessageContaining("optional flag 2");
    }

    @Test
    void offsetCommandsHaveTheDocumentedBytesInVersionThreeOnly() {
        assertThat(CommandCodec.encode(new DeleteGroupOffsets("g"))).containsExactly(3, 12, 0, 0, 0, 1, 'g');
        byte[] commit = CommandCodec.encode(
                new CommitOffsets("g", Map.of(new TopicPartition("t", 1), new CommittedOffset(5, 2, "m", 9))));
        assertThat(commit)
                .containsExactly(
                        3, 11, // version, type
                        0, 0, 0, 1, 'g', // group id
                        0, 0, 0, 1, // topics
                        0, 0, 0, 1, 't', // topic
                        0, 0, 0, 1, // partitions
                        0, 0, 0, 1, // partition
                        0, 0, 0, 0, 0, 0, 0, 5, // offset
                        0, 0, 0, 2, // leader epoch
                        0, 0, 0, 1, 'm', // metadata
                        0, 0, 0, 0, 0, 0, 0, 9); // commit timestamp
        byte[] delete = CommandCodec.encode(new DeleteOffsets(
                "g", List.of(new TopicPartition("t", 2), new TopicPartition("t", 0), new TopicPartition("t", 2))));
        assertThat(delete)
                .containsExactly(
                        3, 13, 0, 0, 0, 1, 'g', 0, 0, 0, 1, 0, 0, 0, 1, 't', 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 2);
        for (byte[] bytes : List.of(commit, delete, CommandCodec.encode(new DeleteGroupOffsets("g")))) {
            bytes[0] = 2;
            assertThatThrownBy(() -> CommandCodec.decode(bytes))
                    .isInstanceOf(CorruptCommandException.class)
                    .hasMessageContaining("needs format version 3");
        }
    }

    @Test
    void aCommitWithAPartitionTwiceOrANegativeOffsetIsRejected() {
        byte[] commit = CommandCodec.encode(new CommitOffsets(
                "g",
                Map.of(
                        new TopicPartition("t", 1), new CommittedOffset(5, 2, "", 9),
                        new TopicPartition("t", 2), new CommittedOffset(6, 2, "", 9))));
        byte[] twice = commit.clone();
        twice[2 + 5 + 4 + 5 + 4 + 28 + 3] = 1; // the second partition's index becomes 1
        assertThatThrownBy(() -> CommandCodec.decode(twice)).hasMessageContaining("t-1 twice");
        byte[] negative = commit.clone();
        negative[2 + 5 + 4 + 5 + 4 + 4] = (byte) 0x80; // the first offset's sign bit
        assertThatThrownBy(() -> CommandCodec.decode(negative)).hasMessageContaining("negative offset");
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
            10, // format version
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
            0, // topics
            0,
            0,
            0,
            0, // groups
            0,
            0,
            0,
            0, // classic groups
            0,
            0,
            0,
            0, // consumer groups
            0, // SCRAM not bootstrapped
            0,
            0,
            0,
            0, // SCRAM users
            0,
            0,
            0,
            0, // ACLs
            0,
            0,
            0,
            0, // client quota entities
            0,
            0,
            0,
            0 // transactional ids
        };
        assertThat(ImageCodec.encode(image)).isEqualTo(withCrc(body));
    }

    static byte[] withCrc(byte[] body) {
        CRC32C crc = new CRC32C();
        crc.update(body);
        return ByteBuffer.allocate(body.length + 4)
                .put(body)
                .putInt((int) crc.getValue())
                .array();
    }

    /**
     * A version-9 image (before transactional ids): version 10's bytes of an image without any, less
     * their count.
     */
    static byte[] asVersionNine(byte[] version10) {
        byte[] body = Arrays.copyOf(version10, version10.length - 4 - 4);
        body[4] = 9;
        return withCrc(body);
    }

    /**
     * A version-8 image (before client quotas): version 10's bytes of an image without any (nor
     * transactional ids), less their counts.
     */
    static byte[] asVersionEight(byte[] version10) {
        byte[] version9 = asVersionNine(version10);
        byte[] body = Arrays.copyOf(version9, version9.length - 4 - 4);
        body[4] = 8;
        return withCrc(body);
    }

    /** A version-7 image (before ACLs): version 9's bytes of an image without any (nor quotas), less their counts. */
    static byte[] asVersionSeven(byte[] version9) {
        byte[] version8 = asVersionEight(version9);
        byte[] body = Arrays.copyOf(version8, version8.length - 4 - 4);
        body[4] = 7;
        return withCrc(body);
    }

    /**
     * A version-6 image (before SCRAM credentials): version 8's bytes of an image without any (nor
     * ACLs) and not bootstrapped, less the flag and the counts.
     */
    static byte[] asVersionSix(byte[] version8) {
        byte[] version7 = asVersionSeven(version8);
        byte[] body = Arrays.copyOf(version7, version7.length - 4 - 1 - 4);
        body[4] = 6;
        return withCrc(body);
    }

    /**
     * A version-4 image (before consumer groups): version 7's bytes of an image without any (nor SCRAM
     * credentials), less their counts.
     */
    static byte[] asVersionFour(byte[] version7) {
        byte[] version6 = asVersionSix(version7);
        byte[] body = Arrays.copyOf(version6, version6.length - 4 - 4);
        body[4] = 4;
        return withCrc(body);
    }

    /** A version-3 image (before classic groups): version 4's bytes of an image without any, less their count. */
    private static byte[] asVersionThree(byte[] version4) {
        byte[] body = Arrays.copyOf(version4, version4.length - 4 - 4);
        body[4] = 3;
        return withCrc(body);
    }

    /** A version-2 image (before committed offsets): version 3's bytes of an image without any, less the group count. */
    private static byte[] asVersionTwo(byte[] version3) {
        byte[] body = Arrays.copyOf(version3, version3.length - 4 - 4);
        body[4] = 2;
        return withCrc(body);
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
        byte[] withoutOffsets = asVersionThree(asVersionFour(ImageCodec.encode(image)));
        byte[] versionTwo = asVersionTwo(withoutOffsets);
        assertThat(ImageCodec.decode(versionTwo))
                .as("seed %d: a version-2 snapshot holds the same state", seed)
                .isEqualTo(image);
        MetadataImage fromVersionOne = ImageCodec.decode(asVersionOne(versionTwo));
        assertThat(fromVersionOne.nextProducerId()).as("seed %d", seed).isZero();
        assertThat(fromVersionOne)
                .as("seed %d: a version-1 snapshot holds the same state but producer ids", seed)
                .isEqualTo(new MetadataImage(image.version(), image.brokers(), image.topics(), 0));
        List<TopicPartition> partitions = new ArrayList<>();
        image.topics().values().forEach(t -> {
            for (int p = 0; p < t.partitions().size(); p++) {
                partitions.add(new TopicPartition(t.name(), p));
            }
        });
        for (int g = partitions.isEmpty() ? 0 : r.nextInt(0, 4); g > 0; g--) {
            Map<TopicPartition, CommittedOffset> offsets = new HashMap<>();
            for (int i = r.nextInt(1, 4); i > 0; i--) {
                offsets.put(partitions.get(r.nextInt(partitions.size())), offset(r));
            }
            image = image.apply(new CommitOffsets("g" + r.nextInt(5), offsets));
        }
        byte[] withoutClassicGroups = asVersionThree(asVersionFour(ImageCodec.encode(image)));
        assertThat(ImageCodec.decode(withoutClassicGroups))
                .as("seed %d: a version-3 snapshot holds the same state", seed)
                .isEqualTo(image);
        for (int g = r.nextInt(0, 5); g > 0; g--) {
            image = image.apply(new StoreClassicGroup(Fixtures.classicGroup(r, name(r) + "-" + g)));
        }
        if (image.classicGroups().count() > 0 && r.nextBoolean()) {
            image = image.apply(
                    new DeleteClassicGroup(image.classicGroups().asMap().firstKey()));
        }
        assertImageRoundTripsCanonicallyAndAFlippedBitIsCaught(image, r, seed);
    }

    /** An image decodes to itself, encodes to the same bytes again, and one flipped bit is caught. */
    static void assertImageRoundTripsCanonicallyAndAFlippedBitIsCaught(
            MetadataImage image, RandomGenerator r, long seed) {
        byte[] bytes = ImageCodec.encode(image);
        MetadataImage decoded = ImageCodec.decode(bytes);
        assertThat(decoded).as("seed %d", seed).isEqualTo(image);
        assertThat(ImageCodec.encode(decoded)).as("seed %d", seed).isEqualTo(bytes);
        int bit = r.nextInt(bytes.length * 8);
        bytes[bit / 8] ^= (byte) (1 << (bit % 8));
        assertThatThrownBy(() -> ImageCodec.decode(bytes))
                .as("seed %d, bit %d", seed, bit)
                .isInstanceOf(CorruptCommandException.class);
    }

    @Test
    void anImageWithAnOffsetOfAMissingPartitionIsRejected() {
        MetadataImage image = Fixtures.liveBrokers(1, 1).apply(Fixtures.createTopic("t", List.of(List.of(0))));
        image = image.apply(
                new CommitOffsets("g", Map.of(new TopicPartition("t", 0), new CommittedOffset(1, 0, "", 0))));
        MetadataImage broken = new MetadataImage(
                image.version(),
                image.brokers(),
                new TreeMap<>(),
                image.nextProducerId(),
                image.committedOffsets(),
                image.classicGroups());
        byte[] bytes = ImageCodec.encode(broken);
        assertThatThrownBy(() -> ImageCodec.decode(bytes))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("t-0");
    }
}
