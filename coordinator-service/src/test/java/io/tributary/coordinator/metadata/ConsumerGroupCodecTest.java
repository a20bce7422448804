package io.tributary.coordinator.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.coordinator.group.ClassicMemberMetadata;
import io.tributary.coordinator.group.ClassicProtocol;
import io.tributary.coordinator.group.ConsumerGroupRecord;
import io.tributary.coordinator.group.ConsumerGroupRecord.GroupMetadata;
import io.tributary.coordinator.group.ConsumerGroupRecord.MemberAssignment;
import io.tributary.coordinator.group.ConsumerGroupRecord.MemberMetadata;
import io.tributary.coordinator.group.ConsumerGroupRecord.MemberRemoved;
import io.tributary.coordinator.group.ConsumerGroupRecord.TargetMember;
import io.tributary.coordinator.group.ConsumerGroupRecord.TargetMetadata;
import io.tributary.coordinator.group.MemberState;
import io.tributary.coordinator.group.StoredConsumerGroup;
import io.tributary.coordinator.group.TopicIdPartition;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteClassicGroup;
import io.tributary.coordinator.metadata.MetadataCommand.DeleteConsumerGroup;
import io.tributary.coordinator.metadata.MetadataCommand.StoreClassicGroup;
import io.tributary.coordinator.metadata.MetadataCommand.UpdateConsumerGroup;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.random.RandomGenerator;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The consumer group commands (format version 5, types 16 and 17) and the image's consumer group section. */
class ConsumerGroupCodecTest {

    static LongStream seeds() {
        return LongStream.range(0, 200);
    }

    private static final HexFormat HEX = HexFormat.ofDelimiter(" ").withUpperCase();

    private static final UUID T = new UUID(0, 1);

    /** The README's example of an UpdateConsumerGroup (format version 5, type 16). */
    static final UpdateConsumerGroup EXAMPLE = new UpdateConsumerGroup(
            "g",
            List.of(
                    new GroupMetadata(7, "range", 0x0102),
                    new MemberMetadata(
                            "m",
                            Optional.empty(),
                            Optional.of("r"),
                            "c",
                            "h",
                            3,
                            List.of("t"),
                            Optional.empty(),
                            Optional.of("range"),
                            Optional.empty()),
                    new TargetMember(
                            "m", new TreeSet<>(List.of(new TopicIdPartition(T, 0), new TopicIdPartition(T, 1)))),
                    new TargetMetadata(7),
                    new MemberAssignment(
                            "m",
                            7,
                            6,
                            MemberState.STABLE,
                            new TreeMap<>(Map.of(new TopicIdPartition(T, 0), 7, new TopicIdPartition(T, 1), 5)),
                            new TreeMap<>())));

    private static final String TOPIC_ID = " 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01";

    static final String EXAMPLE_HEX = "05 10" // version 5, type 16
            + " 00 00 00 01 67" // group id "g"
            + " 00 00 00 05" // 5 records
            + " 01 00 00 00 07 00 00 00 05 72 61 6E 67 65 00 00 00 00 00 00 01 02" // group epoch 7, "range", hash
            + " 02 00 00 00 01 6D" // member metadata of "m"
            + " 00" // no instance id
            + " 01 00 00 00 01 72" // rack "r"
            + " 00 00 00 01 63 00 00 00 01 68" // client "c", host "h"
            + " 00 00 00 03" // rebalance timeout 3
            + " 00 00 00 01 00 00 00 01 74" // subscribed names ["t"]
            + " 00" // no regex
            + " 01 00 00 00 05 72 61 6E 67 65" // server assignor "range"
            + " 04 00 00 00 01 6D" // target of "m"
            + " 00 00 00 01" + TOPIC_ID + " 00 00 00 02 00 00 00 00 00 00 00 01" // 1 topic: partitions 0, 1
            + " 05 00 00 00 07" // target epoch 7
            + " 03 00 00 00 01 6D" // current assignment of "m"
            + " 00 00 00 07 00 00 00 06 00" // epoch 7, previous 6, STABLE
            + " 00 00 00 01" + TOPIC_ID + " 00 00 00 02" // assigned: 1 topic, 2 partitions
            + " 00 00 00 00 00 00 00 07 00 00 00 01 00 00 00 05" // 0 since epoch 7, 1 since epoch 5
            + " 00 00 00 00"; // nothing pending revocation

    @ParameterizedTest
    @MethodSource("seeds")
    void consumerGroupCommandsRoundTripAndEveryTruncationIsRejected(long seed) {
        RandomGenerator r = new java.util.SplittableRandom(seed);
        CodecTest.assertRoundTripAndRejectedTruncations(
                new UpdateConsumerGroup("g-" + seed + "-é", ConsumerGroupFixtures.records(r)), seed);
        CodecTest.assertRoundTripAndRejectedTruncations(new DeleteConsumerGroup("g-" + seed), seed);
    }

    @Test
    void consumerGroupCommandsHaveTheDocumentedBytesInVersionFiveOnly() {
        byte[] update = CommandCodec.encode(EXAMPLE);
        assertThat(HEX.formatHex(update)).isEqualTo(EXAMPLE_HEX);
        assertThat(CommandCodec.decode(HEX.parseHex(EXAMPLE_HEX))).isEqualTo(EXAMPLE);
        assertThat(ConsumerGroupCodec.encodedSize(EXAMPLE.records().get(3))).isEqualTo(5);
        byte[] delete = CommandCodec.encode(new DeleteConsumerGroup("g"));
        assertThat(HEX.formatHex(delete)).isEqualTo("05 11 00 00 00 01 67");
        for (byte[] bytes : List.of(update, delete)) {
            bytes[0] = 4;
            assertThatThrownBy(() -> CommandCodec.decode(bytes))
                    .isInstanceOf(CorruptCommandException.class)
                    .hasMessageContaining("needs format version 5");
        }
    }

    @Test
    void aClassicMembersMetadataIsKindSevenInAVersionSixCommandOnly() {
        MemberMetadata classic = MemberMetadata.empty("m")
                .withClassic(new ClassicMemberMetadata(
                        45_000, List.of(new ClassicProtocol("range", new byte[] {0, 3}))));
        UpdateConsumerGroup update = new UpdateConsumerGroup("g", List.of(classic));
        byte[] bytes = CommandCodec.encode(update);

        assertThat(HEX.formatHex(bytes))
                .isEqualTo(
                        "06 10" // version 6, type 16
                                + " 00 00 00 01 67" // group id "g"
                                + " 00 00 00 01" // one record
                                + " 07 00 00 00 01 6D" // kind 7, member "m"
                                + " 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00" // the rest empty
                                + " 00 00 AF C8" // session timeout 45000 ms
                                + " 00 00 00 01 00 00 00 05 72 61 6E 67 65 00 00 00 02 00 03"); // one protocol: range,
        // 00 03
        assertThat(CommandCodec.decode(bytes)).isEqualTo(update);
        bytes[0] = 5;
        assertThatThrownBy(() -> CommandCodec.decode(bytes))
                .isInstanceOf(CorruptCommandException.class)
                .hasMessageContaining("kind 7 needs format version 6");
        assertThat(CommandCodec.encode(new UpdateConsumerGroup("g", List.of(MemberMetadata.empty("m")))))
                .as("without classic members: version 5's bytes")
                .startsWith(5, 16);
    }

    @Test
    void aVersionFiveImagesStoredGroupHasNoClassicFlagAndIsStillRead() {
        Bytes.Writer w = new Bytes.Writer()
                .string("g")
                .int32(3)
                .string("uniform")
                .int64(9)
                .int32(3)
                .int32(1) // one member
                .string("m")
                .optionalString(Optional.empty())
                .optionalString(Optional.empty())
                .string("c")
                .string("/h")
                .int32(100)
                .stringList(List.of("t"))
                .optionalString(Optional.empty())
                .optionalString(Optional.empty())
                .int32(3) // its assignment: epochs 3 and 2, Stable, nothing owned
                .int32(2)
                .int8(0)
                .int32(0)
                .int32(0)
                .int32(0); // no target
        Bytes.Reader r = new Bytes.Reader(w.toByteArray(), "a stored group");

        StoredConsumerGroup group = ConsumerGroupCodec.readGroup(r, 5);

        r.expectEnd();
        assertThat(group.members().get("m").metadata().classic()).isEmpty();
        assertThat(group.members().get("m").metadata().subscribedTopicNames()).containsExactly("t");
        assertThat(group.members().get("m").assignment().memberEpoch()).isEqualTo(3);
    }

    @Test
    void commandsOfVersionsOneToFourAreStillReadInVersionFiveAndKeepTheirOwnVersion() {
        assertThat(CommandCodec.decode(new byte[] {5, 5, 0, 0, 0, 2, 'a', 'b'}))
                .isEqualTo(new MetadataCommand.DeleteTopic("ab"));
        assertThat(CommandCodec.decode(new byte[] {5, 15, 0, 0, 0, 1, 'g'})).isEqualTo(new DeleteClassicGroup("g"));
        assertThat(CommandCodec.encode(new DeleteClassicGroup("g"))[0]).isEqualTo((byte) 4);
        assertThat(CommandCodec.encode(new StoreClassicGroup(CodecTest.EXAMPLE_CLASSIC_GROUP))[0])
                .isEqualTo((byte) 4);
    }

    @Test
    void anUpdateWithoutRecordsOrWithAnUnknownKindOrStateIsRejected() {
        byte[] bytes = HEX.parseHex(EXAMPLE_HEX);
        int count = 2 + 5;
        byte[] none = java.util.Arrays.copyOf(bytes, count + 4);
        none[count + 3] = 0;
        assertThatThrownBy(() -> CommandCodec.decode(none)).hasMessageContaining("without records");
        int firstKind = count + 4;
        byte[] unknownKind = bytes.clone();
        unknownKind[firstKind] = 9;
        assertThatThrownBy(() -> CommandCodec.decode(unknownKind)).hasMessageContaining("record kind 9");
        int state = bytes.length - 4 - 16 - 4 - 16 - 4 - 1;
        byte[] unknownState = bytes.clone();
        unknownState[state] = 3;
        assertThatThrownBy(() -> CommandCodec.decode(unknownState)).hasMessageContaining("member state 3");
    }

    @Test
    void partitionsOutOfOrderTwiceNegativeOrMissingAreRejected() {
        byte[] bytes = HEX.parseHex(EXAMPLE_HEX);
        int lastAssigned = bytes.length - 4 - 8; // partition 1 of the current assignment
        byte[] twice = bytes.clone();
        twice[lastAssigned + 3] = 0;
        assertThatThrownBy(() -> CommandCodec.decode(twice)).hasMessageContaining("partition 0 of topic");
        byte[] negative = bytes.clone();
        negative[lastAssigned - 8] = (byte) 0xFF; // partition 0 becomes negative
        assertThatThrownBy(() -> CommandCodec.decode(negative)).hasMessageContaining("negative, twice or out of order");
        byte[] one = CommandCodec.encode(new UpdateConsumerGroup(
                "g",
                List.of(
                        new TargetMember("m", new TreeSet<>(List.of(new TopicIdPartition(T, 0)))),
                        new TargetMetadata(1))));
        int list = one.length - 5 - 4 - 4; // the partition list's count, before partition 0 and the epoch record
        byte[] noPartitions = new byte[one.length - 4];
        System.arraycopy(one, 0, noPartitions, 0, list + 4);
        System.arraycopy(one, list + 8, noPartitions, list + 4, 5);
        noPartitions[list + 3] = 0; // a list of none
        assertThatThrownBy(() -> CommandCodec.decode(noPartitions)).hasMessageContaining("without partitions");
        byte[] outOfOrder = CommandCodec.encode(new UpdateConsumerGroup(
                "g",
                List.of(new TargetMember(
                        "m",
                        new TreeSet<>(List.of(
                                new TopicIdPartition(ConsumerGroupFixtures.TOPICS.get(0), 0),
                                new TopicIdPartition(ConsumerGroupFixtures.TOPICS.get(2), 0)))))));
        int firstTopic = 2 + 5 + 4 + 1 + 5 + 4;
        byte[] swapped = outOfOrder.clone();
        System.arraycopy(outOfOrder, firstTopic + 24, swapped, firstTopic, 16);
        System.arraycopy(outOfOrder, firstTopic, swapped, firstTopic + 24, 16);
        assertThatThrownBy(() -> CommandCodec.decode(swapped)).hasMessageContaining("twice or out of order");
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void imagesWithConsumerGroupsRoundTripCanonicallyAndVersionFourIsStillRead(long seed) {
        RandomGenerator r = new java.util.SplittableRandom(seed);
        MetadataImage image = Fixtures.liveBrokers(1, 1);
        for (int g = r.nextInt(0, 3); g > 0; g--) {
            image = image.apply(new StoreClassicGroup(Fixtures.classicGroup(r, "classic-" + g)));
        }
        byte[] before = ImageCodec.encode(image);
        assertThat(ImageCodec.decode(CodecTest.asVersionFour(before)))
                .as("seed %d: a version-4 snapshot holds the same state", seed)
                .isEqualTo(image);
        for (int g = r.nextInt(1, 5); g > 0; g--) {
            image = image.apply(
                    new UpdateConsumerGroup("group-" + r.nextInt(3) + "-é", ConsumerGroupFixtures.records(r)));
        }
        if (r.nextInt(4) == 0) {
            image = image.apply(
                    new DeleteConsumerGroup(image.consumerGroups().asMap().firstKey()));
        }
        CodecTest.assertImageRoundTripsCanonicallyAndAFlippedBitIsCaught(image, r, seed);
    }

    @Test
    void anImageWithAMemberTwiceIsRejected() {
        MetadataImage image = Fixtures.liveBrokers(1, 1)
                .apply(new UpdateConsumerGroup("g", List.of(MemberMetadata.empty("a"), MemberMetadata.empty("b"))));
        byte[] bytes = ImageCodec.encode(image);
        byte[] body = java.util.Arrays.copyOf(bytes, bytes.length - 4);
        String hex = HEX.formatHex(body);
        String b = " 00 00 00 01 62 ";
        int at = hex.indexOf(b);
        assertThat(at).isPositive();
        byte[] twice = HEX.parseHex(hex.substring(0, at) + " 00 00 00 01 61 " + hex.substring(at + b.length()));
        assertThatThrownBy(() -> ImageCodec.decode(CodecTest.withCrc(twice)))
                .isInstanceOf(CorruptCommandException.class)
                .hasMessageContaining("member 'a' twice or out of order");
    }

    @Test
    void recordsAreTheKindsKafkaWrites() {
        assertThat(List.of(ConsumerGroupRecord.class.getPermittedSubclasses()))
                .containsExactlyInAnyOrder(
                        GroupMetadata.class,
                        MemberMetadata.class,
                        MemberAssignment.class,
                        TargetMember.class,
                        TargetMetadata.class,
                        MemberRemoved.class);
    }
}
