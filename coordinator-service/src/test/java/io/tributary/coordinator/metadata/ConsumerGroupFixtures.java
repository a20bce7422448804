package io.tributary.coordinator.metadata;

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
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.random.RandomGenerator;

/** Random and example consumer group records, for the codec, apply and store tests. */
public final class ConsumerGroupFixtures {

    /** Three topic ids, one with its sign bit set (UUID order is signed). */
    static final List<UUID> TOPICS =
            List.of(new UUID(0, 1), new UUID(0x7000_0000_0000_0000L, 5), new UUID(0x8000_0000_0000_0000L, 2));

    private ConsumerGroupFixtures() {}

    /** A member id of a small set, so that records of one group often name the same member. */
    static String memberId(RandomGenerator r) {
        return "member-" + r.nextInt(4) + (r.nextBoolean() ? "-é" : "");
    }

    private static Optional<String> maybe(RandomGenerator r, String value) {
        return r.nextBoolean() ? Optional.of(value) : Optional.empty();
    }

    static SortedSet<TopicIdPartition> partitions(RandomGenerator r) {
        SortedSet<TopicIdPartition> partitions = new TreeSet<>();
        for (int i = r.nextInt(0, 6); i > 0; i--) {
            partitions.add(new TopicIdPartition(TOPICS.get(r.nextInt(TOPICS.size())), r.nextInt(0, 8)));
        }
        return partitions;
    }

    static SortedMap<TopicIdPartition, Integer> owned(RandomGenerator r) {
        SortedMap<TopicIdPartition, Integer> owned = new TreeMap<>();
        partitions(r).forEach(p -> owned.put(p, r.nextInt(-2, 1000)));
        return owned;
    }

    /** A classic member's metadata: a session timeout and one to three protocols with any bytes. */
    public static ClassicMemberMetadata classic(RandomGenerator r) {
        List<ClassicProtocol> protocols = new ArrayList<>();
        for (int i = r.nextInt(1, 4); i > 0; i--) {
            byte[] metadata = new byte[r.nextInt(0, 20)];
            r.nextBytes(metadata);
            protocols.add(new ClassicProtocol(i == 1 ? "range" : "assignor-é" + i, metadata));
        }
        return new ClassicMemberMetadata(r.nextInt(), protocols);
    }

    /** Any record, with field values that need not make sense together. */
    public static ConsumerGroupRecord record(RandomGenerator r) {
        String id = memberId(r);
        return switch (r.nextInt(6)) {
            case 0 -> new GroupMetadata(r.nextInt(), r.nextBoolean() ? "uniform" : "", r.nextLong());
            case 1 -> {
                List<String> names = new ArrayList<>(
                        new TreeSet<>(List.of("t", "u" + r.nextInt(3), "vé").subList(0, r.nextInt(0, 4))));
                MemberMetadata metadata = new MemberMetadata(
                        id,
                        maybe(r, "instance-" + r.nextInt(3)),
                        maybe(r, "rack-" + r.nextInt(3)),
                        "client-" + r.nextInt(3),
                        "/127.0.0." + r.nextInt(256),
                        r.nextInt(),
                        names,
                        maybe(r, "t|v.*"),
                        maybe(r, r.nextBoolean() ? "range" : "uniform"),
                        Optional.empty());
                yield r.nextInt(3) == 0 ? metadata.withClassic(classic(r)) : metadata;
            }
            case 2 ->
                new MemberAssignment(
                        id,
                        r.nextInt(),
                        r.nextInt(),
                        MemberState.values()[r.nextInt(MemberState.values().length)],
                        owned(r),
                        owned(r));
            case 3 -> new TargetMember(id, partitions(r));
            case 4 -> new TargetMetadata(r.nextInt());
            default -> new MemberRemoved(id);
        };
    }

    /** One to eight random records. */
    public static List<ConsumerGroupRecord> records(RandomGenerator r) {
        List<ConsumerGroupRecord> records = new ArrayList<>();
        for (int i = r.nextInt(1, 9); i > 0; i--) {
            records.add(record(r));
        }
        return records;
    }

    /** A random stored group: random records applied to an empty one. */
    public static StoredConsumerGroup group(RandomGenerator r, String groupId) {
        return StoredConsumerGroup.empty(groupId).apply(records(r)).apply(records(r));
    }
}
