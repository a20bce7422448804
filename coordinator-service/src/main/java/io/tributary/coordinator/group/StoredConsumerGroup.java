package io.tributary.coordinator.group;

import io.tributary.coordinator.group.ConsumerGroupRecord.GroupMetadata;
import io.tributary.coordinator.group.ConsumerGroupRecord.MemberAssignment;
import io.tributary.coordinator.group.ConsumerGroupRecord.MemberMetadata;
import io.tributary.coordinator.group.ConsumerGroupRecord.MemberRemoved;
import io.tributary.coordinator.group.ConsumerGroupRecord.TargetMember;
import io.tributary.coordinator.group.ConsumerGroupRecord.TargetMetadata;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;

/**
 * What is stored of one KIP-848 consumer group: the records written so far ({@link
 * ConsumerGroupRecord}) folded into one value, which a new coordinator leader loads ({@link
 * GroupCoordinator#load}). Immutable; {@link #apply} is a pure function, so every voter that applies
 * the same records holds the same value.
 *
 * @param groupEpoch the group epoch
 * @param assignor the server assignor the target was computed by ({@code ""} before any)
 * @param metadataHash the hash of the subscribed topics the group epoch was computed from ({@link
 *     #metadataHash(Map)})
 * @param assignmentEpoch the epoch of the target assignment
 * @param members members by id, each with what it sent and where it is in reconciling
 * @param target the target assignment: member id to the partitions it should own
 */
public record StoredConsumerGroup(
        String groupId,
        int groupEpoch,
        String assignor,
        long metadataHash,
        int assignmentEpoch,
        SortedMap<String, Member> members,
        SortedMap<String, SortedSet<TopicIdPartition>> target) {

    public StoredConsumerGroup {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(assignor, "assignor");
        members = Collections.unmodifiableSortedMap(new TreeMap<>(members));
        target = Collections.unmodifiableSortedMap(new TreeMap<>(target));
        members.forEach((id, member) -> {
            if (!id.equals(member.metadata().id())) {
                throw new IllegalArgumentException("member " + member.metadata().id() + " stored as " + id);
            }
        });
    }

    /**
     * One stored member: the metadata it sent and its current assignment (the same member id).
     */
    public record Member(MemberMetadata metadata, MemberAssignment assignment) {
        public Member {
            Objects.requireNonNull(metadata, "metadata");
            Objects.requireNonNull(assignment, "assignment");
            if (!metadata.id().equals(assignment.id())) {
                throw new IllegalArgumentException(
                        "member metadata of " + metadata.id() + " with the assignment of " + assignment.id());
            }
        }
    }

    /** A group nothing is stored of yet: epochs 0, no assignor, no members. */
    public static StoredConsumerGroup empty(String groupId) {
        return new StoredConsumerGroup(groupId, 0, "", 0, 0, new TreeMap<>(), new TreeMap<>());
    }

    /**
     * This group after {@code records}, in order. A member record of a member not stored yet
     * creates it, with what is not in the record empty ({@link MemberMetadata#empty}, {@link
     * MemberAssignment#empty}), as Kafka's replay does.
     *
     * @throws IllegalArgumentException if a record names an empty member id
     */
    public StoredConsumerGroup apply(List<ConsumerGroupRecord> records) {
        int epoch = groupEpoch;
        String groupAssignor = assignor;
        long hash = metadataHash;
        int targetEpoch = assignmentEpoch;
        SortedMap<String, Member> newMembers = new TreeMap<>(members);
        SortedMap<String, SortedSet<TopicIdPartition>> newTarget = new TreeMap<>(target);
        for (ConsumerGroupRecord record : records) {
            record.memberId().ifPresent(id -> {
                if (id.isEmpty()) {
                    throw new IllegalArgumentException("group '" + groupId + "': a record names an empty member id");
                }
            });
            switch (record) {
                case GroupMetadata r -> {
                    epoch = r.groupEpoch();
                    groupAssignor = r.assignor();
                    hash = r.metadataHash();
                }
                case MemberMetadata r -> {
                    Member old = newMembers.get(r.id());
                    newMembers.put(
                            r.id(), new Member(r, old == null ? MemberAssignment.empty(r.id()) : old.assignment()));
                }
                case MemberAssignment r -> {
                    Member old = newMembers.get(r.id());
                    newMembers.put(r.id(), new Member(old == null ? MemberMetadata.empty(r.id()) : old.metadata(), r));
                }
                case TargetMember r -> newTarget.put(r.id(), r.partitions());
                case TargetMetadata r -> targetEpoch = r.assignmentEpoch();
                case MemberRemoved r -> {
                    newMembers.remove(r.id());
                    newTarget.remove(r.id());
                }
            }
        }
        return new StoredConsumerGroup(groupId, epoch, groupAssignor, hash, targetEpoch, newMembers, newTarget);
    }

    /**
     * A 64-bit FNV-1a hash of subscribed topics: for each topic in name order its name's UTF-8 bytes,
     * a zero byte, its id (most then least significant 8 bytes, big-endian) and its partition count
     * (4 bytes, big-endian). Deterministic across processes and versions, so a new leader compares
     * it with the stored one to see whether the topics changed while no one led.
     */
    public static long metadataHash(Map<String, TopicView.TopicInfo> topics) {
        long hash = 0xcbf29ce484222325L;
        for (TopicView.TopicInfo topic : new TreeMap<>(topics).values()) {
            for (byte b : topic.name().getBytes(StandardCharsets.UTF_8)) {
                hash = fnv(hash, b);
            }
            hash = fnv(hash, (byte) 0);
            hash = fnvLong(hash, topic.id().getMostSignificantBits());
            hash = fnvLong(hash, topic.id().getLeastSignificantBits());
            for (int shift = 24; shift >= 0; shift -= 8) {
                hash = fnv(hash, (byte) (topic.partitionCount() >>> shift));
            }
        }
        return hash;
    }

    private static long fnvLong(long hash, long value) {
        for (int shift = 56; shift >= 0; shift -= 8) {
            hash = fnv(hash, (byte) (value >>> shift));
        }
        return hash;
    }

    private static long fnv(long hash, byte b) {
        return (hash ^ (b & 0xff)) * 0x100000001b3L;
    }
}
