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
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * The binary encoding of consumer group records (in {@link CommandCodec}'s UpdateConsumerGroup) and
 * of stored consumer groups (in {@link ImageCodec}'s version-5 section). Primitive types are those of
 * {@link Bytes}.
 *
 * <pre>
 * record: int8 kind, then
 *   1 GroupMetadata     int32 groupEpoch, string assignor, int64 metadataHash
 *   2 MemberMetadata    member metadata (below)
 *   3 MemberAssignment  string memberId, member assignment (below)
 *   4 TargetMember      string memberId, partitions
 *   5 TargetMetadata    int32 assignmentEpoch
 *   6 MemberRemoved     string memberId
 *   7 ClassicMemberMetadata  member metadata, classic metadata (below): the MemberMetadata of a
 *                     member speaking the classic protocol (UpdateConsumerGroup version 6 and later)
 *
 * member metadata:   string memberId, optional string instanceId, optional string rackId,
 *                    string clientId, string clientHost, int32 rebalanceTimeoutMs,
 *                    string list subscribedTopicNames, optional string subscribedTopicRegex,
 *                    optional string serverAssignor
 * classic metadata:  int32 sessionTimeoutMs, int32 protocol count P (1..),
 *                    P x (string name, bytes metadata), in the member's order of preference
 * member assignment: int32 memberEpoch, int32 previousMemberEpoch,
 *                    int8 state (0 STABLE, 1 UNREVOKED_PARTITIONS, 2 UNRELEASED_PARTITIONS),
 *                    owned partitions assigned, owned partitions pendingRevocation
 * partitions:        int32 topic count T, T x (uuid topicId, int list partitions)
 * owned partitions:  int32 topic count T, T x (uuid topicId, int32 count P,
 *                      P x (int32 partition, int32 assignmentEpoch))
 *   topics in id order (UUID order), partitions ascending, each list non-empty
 *
 * stored group (image): string groupId, int32 groupEpoch, string assignor, int64 metadataHash,
 *                    int32 assignmentEpoch, int32 member count M,
 *                    M x (member metadata, [image version 6 and later: int8 classic (0 none,
 *                      1 classic metadata follows)], member assignment), members in id order,
 *                    int32 target count N, N x (string memberId, partitions), in member id order
 * </pre>
 *
 * <p>A KIP-848 member's metadata is kind 2, so a command without classic members keeps its version-5
 * bytes; kind 7 exists from command version 6 and the classic flag from image version 6, which an
 * older coordinator rejects as an unknown version rather than misreading. A reader rejects an
 * unknown kind or state, kind 7 in a version-5 command, a classic flag other than 0 or 1, no
 * protocol, a topic or partition out of order or twice, a
 * negative partition and an empty partition list with a {@link CorruptCommandException}.
 *
 * <p>Thread-safety: stateless.
 */
public final class ConsumerGroupCodec {

    private static final int GROUP_METADATA = 1;
    private static final int MEMBER_METADATA = 2;
    private static final int MEMBER_ASSIGNMENT = 3;
    private static final int TARGET_MEMBER = 4;
    private static final int TARGET_METADATA = 5;
    private static final int MEMBER_REMOVED = 6;
    private static final int CLASSIC_MEMBER_METADATA = 7;

    /** The UpdateConsumerGroup version ({@link CommandCodec}) from which kind 7 may appear. */
    static final int CLASSIC_COMMAND_VERSION = 6;

    /** The image version ({@link ImageCodec}) from which a stored member has its classic flag. */
    static final int CLASSIC_IMAGE_VERSION = 6;

    /** The smallest encoded record: a kind and one int32 (TargetMetadata, an empty MemberRemoved id). */
    static final int MIN_RECORD_BYTES = 1 + 4;

    /** The smallest encoded stored group: an empty id and assignor, epochs, hash, no member, no target. */
    static final int MIN_GROUP_BYTES = 4 + 4 + 4 + 8 + 4 + 4 + 4;

    /** The smallest stored member: empty strings, absent options, no names, no partitions. */
    private static final int MIN_MEMBER_BYTES = 4 + 1 + 1 + 4 + 4 + 4 + 4 + 1 + 1 + 4 + 4 + 1 + 4 + 4;

    private ConsumerGroupCodec() {}

    /** How many bytes {@code record} takes in an UpdateConsumerGroup command. */
    public static int encodedSize(ConsumerGroupRecord record) {
        Bytes.Writer w = new Bytes.Writer();
        writeRecord(w, record);
        return w.toByteArray().length;
    }

    static void writeRecords(Bytes.Writer w, List<ConsumerGroupRecord> records) {
        w.int32(records.size());
        records.forEach(record -> writeRecord(w, record));
    }

    /** Whether the records need {@link #CLASSIC_COMMAND_VERSION}: a classic member's metadata. */
    static boolean hasClassicMembers(List<ConsumerGroupRecord> records) {
        return records.stream()
                .anyMatch(r -> r instanceof MemberMetadata m && m.classic().isPresent());
    }

    static List<ConsumerGroupRecord> readRecords(Bytes.Reader r, int commandVersion) {
        int n = r.count(MIN_RECORD_BYTES);
        if (n == 0) {
            throw r.corrupt("an UpdateConsumerGroup without records");
        }
        List<ConsumerGroupRecord> records = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            records.add(readRecord(r, commandVersion));
        }
        return records;
    }

    private static void writeRecord(Bytes.Writer w, ConsumerGroupRecord record) {
        switch (record) {
            case GroupMetadata g ->
                w.int8(GROUP_METADATA)
                        .int32(g.groupEpoch())
                        .string(g.assignor())
                        .int64(g.metadataHash());
            case MemberMetadata m
            when m.classic().isPresent() -> {
                w.int8(CLASSIC_MEMBER_METADATA);
                writeMemberMetadata(w, m);
                writeClassic(w, m.classic().get());
            }
            case MemberMetadata m -> {
                w.int8(MEMBER_METADATA);
                writeMemberMetadata(w, m);
            }
            case MemberAssignment a -> {
                w.int8(MEMBER_ASSIGNMENT).string(a.id());
                writeMemberAssignment(w, a);
            }
            case TargetMember t -> {
                w.int8(TARGET_MEMBER).string(t.id());
                writePartitions(w, t.partitions());
            }
            case TargetMetadata t -> w.int8(TARGET_METADATA).int32(t.assignmentEpoch());
            case MemberRemoved m -> w.int8(MEMBER_REMOVED).string(m.id());
        }
    }

    private static ConsumerGroupRecord readRecord(Bytes.Reader r, int commandVersion) {
        int kind = r.int8();
        if (kind == CLASSIC_MEMBER_METADATA && commandVersion < CLASSIC_COMMAND_VERSION) {
            throw r.corrupt("consumer group record kind 7 needs format version 6, got " + commandVersion);
        }
        return switch (kind) {
            case CLASSIC_MEMBER_METADATA -> readMemberMetadata(r).withClassic(readClassic(r));
            case GROUP_METADATA -> new GroupMetadata(r.int32(), r.string(), r.int64());
            case MEMBER_METADATA -> readMemberMetadata(r);
            case MEMBER_ASSIGNMENT -> readMemberAssignment(r, r.string());
            case TARGET_MEMBER -> new TargetMember(r.string(), readPartitions(r));
            case TARGET_METADATA -> new TargetMetadata(r.int32());
            case MEMBER_REMOVED -> new MemberRemoved(r.string());
            default -> throw r.corrupt("unknown consumer group record kind " + kind);
        };
    }

    /** Writes a stored group (the image's layout in the class doc). */
    static void writeGroup(Bytes.Writer w, StoredConsumerGroup group) {
        w.string(group.groupId())
                .int32(group.groupEpoch())
                .string(group.assignor())
                .int64(group.metadataHash())
                .int32(group.assignmentEpoch())
                .int32(group.members().size());
        for (StoredConsumerGroup.Member member : group.members().values()) {
            writeMemberMetadata(w, member.metadata());
            member.metadata().classic().ifPresentOrElse(classic -> writeClassic(w.int8(1), classic), () -> w.int8(0));
            writeMemberAssignment(w, member.assignment());
        }
        w.int32(group.target().size());
        group.target().forEach((memberId, partitions) -> {
            w.string(memberId);
            writePartitions(w, partitions);
        });
    }

    /**
     * Reads what {@link #writeGroup} wrote (in an image of {@code imageVersion}: before {@link
     * #CLASSIC_IMAGE_VERSION} a member has no classic flag); rejects a member or target twice or out
     * of order.
     */
    static StoredConsumerGroup readGroup(Bytes.Reader r, int imageVersion) {
        String groupId = r.string();
        int groupEpoch = r.int32();
        String assignor = r.string();
        long metadataHash = r.int64();
        int assignmentEpoch = r.int32();
        int m = r.count(MIN_MEMBER_BYTES);
        SortedMap<String, StoredConsumerGroup.Member> members = new TreeMap<>();
        String previous = null;
        for (int i = 0; i < m; i++) {
            MemberMetadata metadata = readMemberMetadata(r);
            if (imageVersion >= CLASSIC_IMAGE_VERSION) {
                int classic = r.int8();
                if (classic == 1) {
                    metadata = metadata.withClassic(readClassic(r));
                } else if (classic != 0) {
                    throw r.corrupt("classic flag " + classic + " of member '" + metadata.id() + "'");
                }
            }
            previous = inOrder(r, previous, metadata.id(), "member");
            members.put(
                    metadata.id(), new StoredConsumerGroup.Member(metadata, readMemberAssignment(r, metadata.id())));
        }
        int t = r.count(4 + 4);
        SortedMap<String, SortedSet<TopicIdPartition>> target = new TreeMap<>();
        previous = null;
        for (int i = 0; i < t; i++) {
            String memberId = r.string();
            previous = inOrder(r, previous, memberId, "target member");
            target.put(memberId, readPartitions(r));
        }
        return new StoredConsumerGroup(groupId, groupEpoch, assignor, metadataHash, assignmentEpoch, members, target);
    }

    private static String inOrder(Bytes.Reader r, String previous, String next, String what) {
        if (previous != null && previous.compareTo(next) >= 0) {
            throw r.corrupt(what + " '" + next + "' twice or out of order");
        }
        return next;
    }

    private static void writeMemberMetadata(Bytes.Writer w, MemberMetadata m) {
        w.string(m.id())
                .optionalString(m.instanceId())
                .optionalString(m.rackId())
                .string(m.clientId())
                .string(m.clientHost())
                .int32(m.rebalanceTimeoutMs())
                .stringList(m.subscribedTopicNames())
                .optionalString(m.subscribedTopicRegex())
                .optionalString(m.serverAssignor());
    }

    private static MemberMetadata readMemberMetadata(Bytes.Reader r) {
        return new MemberMetadata(
                r.string(),
                r.optionalString(),
                r.optionalString(),
                r.string(),
                r.string(),
                r.int32(),
                r.stringList(),
                r.optionalString(),
                r.optionalString(),
                Optional.empty());
    }

    private static void writeClassic(Bytes.Writer w, ClassicMemberMetadata classic) {
        w.int32(classic.sessionTimeoutMs()).int32(classic.protocols().size());
        classic.protocols().forEach(p -> w.string(p.name()).bytes(p.metadata()));
    }

    private static ClassicMemberMetadata readClassic(Bytes.Reader r) {
        int sessionTimeoutMs = r.int32();
        int n = r.count(4 + 4);
        if (n == 0) {
            throw r.corrupt("a classic member without protocols");
        }
        List<ClassicProtocol> protocols = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            protocols.add(new ClassicProtocol(r.string(), r.bytes()));
        }
        return new ClassicMemberMetadata(sessionTimeoutMs, protocols);
    }

    private static void writeMemberAssignment(Bytes.Writer w, MemberAssignment a) {
        int state = switch (a.state()) {
            case STABLE -> 0;
            case UNREVOKED_PARTITIONS -> 1;
            case UNRELEASED_PARTITIONS -> 2;
        };
        w.int32(a.memberEpoch()).int32(a.previousMemberEpoch()).int8(state);
        writeOwned(w, a.assigned());
        writeOwned(w, a.pendingRevocation());
    }

    private static MemberAssignment readMemberAssignment(Bytes.Reader r, String memberId) {
        int epoch = r.int32();
        int previousEpoch = r.int32();
        int code = r.int8();
        MemberState state = switch (code) {
            case 0 -> MemberState.STABLE;
            case 1 -> MemberState.UNREVOKED_PARTITIONS;
            case 2 -> MemberState.UNRELEASED_PARTITIONS;
            default -> throw r.corrupt("unknown member state " + code + " of member '" + memberId + "'");
        };
        return new MemberAssignment(memberId, epoch, previousEpoch, state, readOwned(r), readOwned(r));
    }

    private static void writePartitions(Bytes.Writer w, SortedSet<TopicIdPartition> partitions) {
        SortedMap<UUID, List<Integer>> byTopic = new TreeMap<>();
        partitions.forEach(p ->
                byTopic.computeIfAbsent(p.topicId(), id -> new ArrayList<>()).add(p.partition()));
        w.int32(byTopic.size());
        byTopic.forEach((topic, indexes) -> w.uuid(topic).intList(indexes));
    }

    private static SortedSet<TopicIdPartition> readPartitions(Bytes.Reader r) {
        SortedSet<TopicIdPartition> partitions = new TreeSet<>();
        int topics = r.count(16 + 4 + 4);
        UUID previousTopic = null;
        for (int t = 0; t < topics; t++) {
            UUID topic = r.uuid();
            previousTopic = topicInOrder(r, previousTopic, topic);
            List<Integer> indexes = r.intList();
            if (indexes.isEmpty()) {
                throw r.corrupt("topic " + topic + " without partitions");
            }
            int previous = -1;
            for (int index : indexes) {
                previous = partitionInOrder(r, topic, previous, index);
                partitions.add(new TopicIdPartition(topic, index));
            }
        }
        return partitions;
    }

    private static void writeOwned(Bytes.Writer w, SortedMap<TopicIdPartition, Integer> owned) {
        SortedMap<UUID, List<Map.Entry<TopicIdPartition, Integer>>> byTopic = new TreeMap<>();
        owned.entrySet()
                .forEach(e -> byTopic.computeIfAbsent(e.getKey().topicId(), id -> new ArrayList<>())
                        .add(e));
        w.int32(byTopic.size());
        byTopic.forEach((topic, entries) -> {
            w.uuid(topic).int32(entries.size());
            entries.forEach(e -> w.int32(e.getKey().partition()).int32(e.getValue()));
        });
    }

    private static SortedMap<TopicIdPartition, Integer> readOwned(Bytes.Reader r) {
        SortedMap<TopicIdPartition, Integer> owned = new TreeMap<>();
        int topics = r.count(16 + 4 + 8);
        UUID previousTopic = null;
        for (int t = 0; t < topics; t++) {
            UUID topic = r.uuid();
            previousTopic = topicInOrder(r, previousTopic, topic);
            int n = r.count(8);
            if (n == 0) {
                throw r.corrupt("topic " + topic + " without partitions");
            }
            int previous = -1;
            for (int i = 0; i < n; i++) {
                int index = r.int32();
                previous = partitionInOrder(r, topic, previous, index);
                owned.put(new TopicIdPartition(topic, index), r.int32());
            }
        }
        return owned;
    }

    private static UUID topicInOrder(Bytes.Reader r, UUID previous, UUID next) {
        if (previous != null && previous.compareTo(next) >= 0) {
            throw r.corrupt("topic " + next + " twice or out of order");
        }
        return next;
    }

    private static int partitionInOrder(Bytes.Reader r, UUID topic, int previous, int next) {
        if (next <= previous) {
            throw r.corrupt("partition " + next + " of topic " + topic + " negative, twice or out of order");
        }
        return next;
    }
}
