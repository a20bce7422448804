package io.tributary.coordinator.group;

import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One change to what a KIP-848 consumer group keeps across a coordinator failover: the record kinds
 * Kafka writes to {@code __consumer_offsets} for a consumer group, per member where Kafka's are, so
 * that a change writes only what changed (a member's heartbeat its own records; a new target
 * assignment only the members whose target moved). The group coordinator makes them ({@link
 * ConsumerGroupRecords}), a {@link ConsumerGroupStore} makes them durable in order, and {@link
 * StoredConsumerGroup#apply} folds them into what a new leader loads.
 *
 * <p>Records of one change are applied in Kafka's order (a member's metadata, the group epoch, the
 * target members, the target's epoch, members' current assignments), so the state after any prefix
 * of them is one a coordinator can load: a group epoch ahead of the target's epoch has its target
 * computed again before anyone reconciles, and a member whose current assignment is not written yet
 * is still at its previous epoch, which is what it was last told.
 */
public sealed interface ConsumerGroupRecord {

    /** The member a record is about, if it is about one. */
    default Optional<String> memberId() {
        return Optional.empty();
    }

    /**
     * The group epoch, the group's assignor and the hash of the subscribed topics the epoch was
     * computed from (Kafka's {@code ConsumerGroupMetadataValue}: epoch and metadata hash).
     *
     * @param metadataHash {@link StoredConsumerGroup#metadataHash} of the subscribed topics (name, id,
     *     partition count); a new leader that finds other topics bumps the epoch
     */
    record GroupMetadata(int groupEpoch, String assignor, long metadataHash) implements ConsumerGroupRecord {
        public GroupMetadata {
            Objects.requireNonNull(assignor, "assignor");
        }
    }

    /**
     * What a member sent (Kafka's {@code ConsumerGroupMemberMetadataValue}).
     *
     * @param subscribedTopicNames in name order, no name twice
     * @param classic what a member speaking the classic protocol sent besides (Kafka's {@code
     *     ClassicMemberMetadata}: session timeout and protocols), empty for a KIP-848 member
     */
    record MemberMetadata(
            String id,
            Optional<String> instanceId,
            Optional<String> rackId,
            String clientId,
            String clientHost,
            int rebalanceTimeoutMs,
            List<String> subscribedTopicNames,
            Optional<String> subscribedTopicRegex,
            Optional<String> serverAssignor,
            Optional<ClassicMemberMetadata> classic)
            implements ConsumerGroupRecord {
        public MemberMetadata {
            Objects.requireNonNull(classic, "classic");
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(instanceId, "instanceId");
            Objects.requireNonNull(rackId, "rackId");
            Objects.requireNonNull(clientId, "clientId");
            Objects.requireNonNull(clientHost, "clientHost");
            subscribedTopicNames = List.copyOf(subscribedTopicNames);
            Objects.requireNonNull(subscribedTopicRegex, "subscribedTopicRegex");
            Objects.requireNonNull(serverAssignor, "serverAssignor");
        }

        /** The same metadata, of a member speaking the classic protocol. */
        public MemberMetadata withClassic(ClassicMemberMetadata metadata) {
            return new MemberMetadata(
                    id,
                    instanceId,
                    rackId,
                    clientId,
                    clientHost,
                    rebalanceTimeoutMs,
                    subscribedTopicNames,
                    subscribedTopicRegex,
                    serverAssignor,
                    Optional.of(metadata));
        }

        /** A member nothing is known of yet but its id. */
        public static MemberMetadata empty(String id) {
            return new MemberMetadata(
                    id,
                    Optional.empty(),
                    Optional.empty(),
                    "",
                    "",
                    0,
                    List.of(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty());
        }

        @Override
        public Optional<String> memberId() {
            return Optional.of(id);
        }
    }

    /**
     * Where a member is in reconciling (Kafka's {@code ConsumerGroupCurrentMemberAssignmentValue},
     * with KIP-1251's assignment epochs): its epochs, state, the partitions it owns and since which
     * member epoch it owns each.
     *
     * @param assigned partition to the member epoch it was given at
     * @param pendingRevocation partitions it must give up, each to the member epoch it was given at
     */
    record MemberAssignment(
            String id,
            int memberEpoch,
            int previousMemberEpoch,
            MemberState state,
            SortedMap<TopicIdPartition, Integer> assigned,
            SortedMap<TopicIdPartition, Integer> pendingRevocation)
            implements ConsumerGroupRecord {
        public MemberAssignment {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(state, "state");
            assigned = Collections.unmodifiableSortedMap(new TreeMap<>(assigned));
            pendingRevocation = Collections.unmodifiableSortedMap(new TreeMap<>(pendingRevocation));
        }

        /** A member that owns nothing, at epoch 0. */
        public static MemberAssignment empty(String id) {
            return new MemberAssignment(id, 0, 0, MemberState.STABLE, new TreeMap<>(), new TreeMap<>());
        }

        @Override
        public Optional<String> memberId() {
            return Optional.of(id);
        }
    }

    /** One member's part of the target assignment (Kafka's {@code ConsumerGroupTargetAssignmentMemberValue}). */
    record TargetMember(String id, SortedSet<TopicIdPartition> partitions) implements ConsumerGroupRecord {
        public TargetMember {
            Objects.requireNonNull(id, "id");
            partitions = Collections.unmodifiableSortedSet(new TreeSet<>(partitions));
        }

        @Override
        public Optional<String> memberId() {
            return Optional.of(id);
        }
    }

    /**
     * The epoch of the target assignment, written after its members (Kafka's {@code
     * ConsumerGroupTargetAssignmentMetadataValue}).
     */
    record TargetMetadata(int assignmentEpoch) implements ConsumerGroupRecord {}

    /** A member left or was removed: its metadata, current assignment and target go. */
    record MemberRemoved(String id) implements ConsumerGroupRecord {
        public MemberRemoved {
            Objects.requireNonNull(id, "id");
        }

        @Override
        public Optional<String> memberId() {
            return Optional.of(id);
        }
    }
}
