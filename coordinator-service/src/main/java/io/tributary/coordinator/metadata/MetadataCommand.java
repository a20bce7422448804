package io.tributary.coordinator.metadata;

import io.tributary.common.security.acl.AclBinding;
import io.tributary.common.security.quota.QuotaEntity;
import io.tributary.common.security.quota.QuotaKey;
import io.tributary.common.security.sasl.ScramCredentialData;
import io.tributary.coordinator.group.ConsumerGroupRecord;
import io.tributary.coordinator.group.classic.ClassicGroupRecord;
import io.tributary.coordinator.transaction.TransactionRecord;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;

/**
 * A change to cluster metadata, as it is written to the Raft log (by {@link CommandCodec}) and
 * applied by {@link MetadataImage#apply}. Commands are fully resolved before they are appended:
 * replica assignments, topic ids and timestamps are in the command, so applying one reads no clock,
 * draws no random number and runs no placement. The one value a command takes from the image when it
 * is applied is the start of a producer id block ({@link AllocateProducerIds}), which every voter
 * reads from the same image.
 *
 * <p>Committed offsets of consumer groups ({@link CommitOffsets}, {@link DeleteGroupOffsets}, {@link
 * DeleteOffsets}) live in the same log and image, but are not cluster metadata brokers watch: they
 * leave the metadata version as it is ({@link MetadataImage#apply}); so do the classic groups'
 * generations ({@link StoreClassicGroup}, {@link DeleteClassicGroup}) and the KIP-848 consumer
 * groups' records ({@link UpdateConsumerGroup}, {@link DeleteConsumerGroup}).
 */
public sealed interface MetadataCommand {

    /**
     * Registers a broker, or a new incarnation of a registered one. The broker starts fenced; its
     * first heartbeat unfences it. A new incarnation of an unfenced broker first fences the old one
     * (its leaderships move as in {@link FenceBroker}).
     */
    record RegisterBroker(
            int brokerId, UUID incarnationId, List<Endpoint> endpoints, Optional<String> rack, long timestampMs)
            implements MetadataCommand {
        public RegisterBroker {
            Objects.requireNonNull(incarnationId, "incarnationId");
            endpoints = List.copyOf(endpoints);
            Objects.requireNonNull(rack, "rack");
        }
    }

    /**
     * Fences a broker (it missed its session timeout, or it is shutting down): it leaves every ISR
     * except as the last member, and each partition it led gets the first other live ISR member (in
     * replica order) as leader, or goes offline when there is none and unclean election is off for
     * the topic.
     */
    record FenceBroker(int brokerId, UUID incarnationId) implements MetadataCommand {
        public FenceBroker {
            Objects.requireNonNull(incarnationId, "incarnationId");
        }
    }

    /**
     * Unfences a broker (it heartbeats again). Offline partitions whose ISR holds it get it as leader;
     * offline partitions of topics with unclean election on get it as leader and sole ISR member when
     * it is one of their replicas.
     */
    record UnfenceBroker(int brokerId, UUID incarnationId) implements MetadataCommand {
        public UnfenceBroker {
            Objects.requireNonNull(incarnationId, "incarnationId");
        }
    }

    /** Creates topics, all or none. */
    record CreateTopics(List<NewTopic> topics) implements MetadataCommand {
        public CreateTopics {
            topics = List.copyOf(topics);
        }
    }

    /**
     * A topic to create.
     *
     * @param name the name (Kafka's rules: 1..249 of {@code [a-zA-Z0-9._-]}, not {@code .} or {@code ..})
     * @param topicId a new, non-zero topic id
     * @param assignments the replicas of partition {@code i} at index {@code i}, all of one size
     * @param configs config overrides ({@link TopicConfigs})
     */
    record NewTopic(String name, UUID topicId, List<List<Integer>> assignments, Map<String, String> configs) {
        public NewTopic {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(topicId, "topicId");
            assignments = assignments.stream().map(List::copyOf).toList();
            configs = Map.copyOf(configs);
        }
    }

    /** Deletes a topic. */
    record DeleteTopic(String name) implements MetadataCommand {
        public DeleteTopic {
            Objects.requireNonNull(name, "name");
        }
    }

    /**
     * Adds partitions to a topic, numbered after the existing ones, with the topic's replication
     * factor. {@code currentPartitionCount} must be the topic's partition count when it is applied,
     * so that a client retrying a command that was applied after all cannot add the partitions twice.
     */
    record AddPartitions(String topic, int currentPartitionCount, List<List<Integer>> assignments)
            implements MetadataCommand {
        public AddPartitions {
            Objects.requireNonNull(topic, "topic");
            assignments = assignments.stream().map(List::copyOf).toList();
        }
    }

    /** Sets and removes config overrides of a topic (Kafka's incremental alter). */
    record AlterTopicConfigs(String topic, Map<String, String> set, List<String> remove) implements MetadataCommand {
        public AlterTopicConfigs {
            Objects.requireNonNull(topic, "topic");
            set = Map.copyOf(set);
            remove = List.copyOf(remove);
        }
    }

    /**
     * An ISR change proposed by a partition's leader, accepted only at the current leader epoch and
     * partition epoch. The new ISR holds the leader, only replicas, and only unfenced brokers.
     */
    record AlterPartition(
            String topic, int partition, int leaderId, int leaderEpoch, int partitionEpoch, List<Integer> newIsr)
            implements MetadataCommand {
        public AlterPartition {
            Objects.requireNonNull(topic, "topic");
            newIsr = List.copyOf(newIsr);
        }
    }

    /**
     * Elects leaders. {@link ElectionType#PREFERRED} moves leadership to the preferred replica where
     * it is live and in the ISR; {@link ElectionType#UNCLEAN} gives offline partitions of topics with
     * {@code unclean.leader.election.enable=true} a leader from outside the ISR. Partitions where the
     * election is not possible are left as they are.
     */
    record ElectLeaders(ElectionType type, List<TopicPartition> partitions) implements MetadataCommand {
        public ElectLeaders {
            Objects.requireNonNull(type, "type");
            partitions = List.copyOf(partitions);
        }
    }

    /**
     * Hands broker {@code brokerId} the producer ids {@code [next, next + count)}, where {@code next}
     * is the image's {@link MetadataImage#nextProducerId()}, which moves on by {@code count}: ids are
     * never handed out twice, also across snapshots and restarts (Kafka's AllocateProducerIds). The
     * broker must be registered, unless {@code brokerId} is a coordinator's node id ({@link
     * io.tributary.common.protocol.CoordinatorNodeIds#nodeId}: the block of its transaction
     * coordinator, which gives transactional ids their producer ids); {@code count} is 1 or more (and at most {@link
     * MetadataLimits#maxProducerIdsPerBlock()}, checked before the command is appended). A resent
     * command allocates a second block; the first is then never used, which is safe.
     */
    record AllocateProducerIds(int brokerId, int count) implements MetadataCommand {}

    /**
     * Stores committed offsets of one consumer group, all of them in one entry, each with the
     * timestamp the coordinator leader gave it. An offset of a partition that does not exist when the
     * command is applied (its topic was deleted meanwhile) is dropped: offsets are only ever kept for
     * existing partitions. The group id is not empty and there is at least one offset.
     */
    record CommitOffsets(String groupId, SortedMap<TopicPartition, CommittedOffset> offsets)
            implements MetadataCommand {
        public CommitOffsets {
            Objects.requireNonNull(groupId, "groupId");
            offsets = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(offsets));
        }

        public CommitOffsets(String groupId, Map<TopicPartition, CommittedOffset> offsets) {
            this(groupId, new TreeMap<>(offsets));
        }
    }

    /**
     * Removes every committed offset of a group (Kafka's DeleteGroups); nothing to remove is no change.
     * A classic group's stored generation stays: DeleteGroups sends {@link DeleteClassicGroup} too.
     */
    record DeleteGroupOffsets(String groupId) implements MetadataCommand {
        public DeleteGroupOffsets {
            Objects.requireNonNull(groupId, "groupId");
        }
    }

    /**
     * Removes the committed offsets of some partitions of a group (Kafka's OffsetDelete); partitions
     * without an offset are ignored. The partitions are kept sorted and distinct (the encoding's order).
     */
    record DeleteOffsets(String groupId, List<TopicPartition> partitions) implements MetadataCommand {
        public DeleteOffsets {
            Objects.requireNonNull(groupId, "groupId");
            partitions = partitions.stream().distinct().sorted().toList();
        }
    }

    /**
     * Stores a classic group's last completed generation, replacing whatever was stored for its id
     * (the group coordinator writes the whole generation each time: at the leader's SyncGroup and
     * when the group becomes empty). The group id is not empty and the member ids are not empty and
     * distinct; a new group beyond {@link MetadataLimits#maxClassicGroups()} is refused before the
     * command is appended. Storing the same record again (a resent command) changes nothing.
     */
    record StoreClassicGroup(ClassicGroupRecord group) implements MetadataCommand {
        public StoreClassicGroup {
            Objects.requireNonNull(group, "group");
        }
    }

    /**
     * Forgets a classic group's stored generation (Kafka's DeleteGroups); nothing stored is no change.
     * Its committed offsets are not touched: DeleteGroups also sends {@link DeleteGroupOffsets}, and
     * {@link DeleteGroupOffsets} does not touch the classic record (each command does one thing).
     */
    record DeleteClassicGroup(String groupId) implements MetadataCommand {
        public DeleteClassicGroup {
            Objects.requireNonNull(groupId, "groupId");
        }
    }

    /**
     * Appends records to a KIP-848 consumer group, applied in order ({@link
     * io.tributary.coordinator.group.StoredConsumerGroup#apply}): what one heartbeat or timer tick
     * changed, or a part of it when all of it would not fit in one command (then the next command
     * carries the next records). A group not stored yet is created by its first records. The group id
     * is not empty, member ids are not empty and there is at least one record; a new group beyond
     * {@link MetadataLimits#maxConsumerGroups()} is refused before the command is appended. Every
     * record replaces what it names, so applying the same command twice (a resend) changes nothing
     * more.
     */
    record UpdateConsumerGroup(String groupId, List<ConsumerGroupRecord> records) implements MetadataCommand {
        public UpdateConsumerGroup {
            Objects.requireNonNull(groupId, "groupId");
            records = List.copyOf(records);
        }
    }

    /**
     * Forgets a KIP-848 consumer group (DeleteGroups, or forgotten without members to make room);
     * nothing stored is no change. Its committed offsets are not touched.
     */
    record DeleteConsumerGroup(String groupId) implements MetadataCommand {
        public DeleteConsumerGroup {
            Objects.requireNonNull(groupId, "groupId");
        }
    }

    /**
     * Changes SCRAM credentials (Kafka's AlterUserScramCredentials, after its per-user checks):
     * removes {@code deletions} (one not stored is ignored, so a resent command changes nothing
     * more), then stores {@code upsertions}, each replacing its user's credential for its mechanism.
     * Users are not empty and mechanisms known (1 or 2); the bound on users ({@link
     * MetadataLimits#maxScramUsers()}) is checked before the command is appended. Brokers hold the
     * credentials, so a change bumps the metadata version.
     */
    record AlterScramCredentials(List<ScramDeletion> deletions, List<ScramUpsertion> upsertions)
            implements MetadataCommand {
        public AlterScramCredentials {
            deletions = List.copyOf(deletions);
            upsertions = List.copyOf(upsertions);
        }
    }

    /**
     * The cluster's bootstrap SCRAM credentials ({@code tributary.coordinator.security.bootstrap-scram-users},
     * as Kafka's {@code kafka-storage format --add-scram}): applied only while the image is not
     * bootstrapped yet, storing the credentials and marking it bootstrapped, so they are written once
     * in a cluster's life whatever the coordinators' settings say later (a second command, from
     * another voter's leadership or a restart, changes nothing). Without credentials it only marks
     * the image (same metadata version).
     */
    record BootstrapScramCredentials(List<ScramUpsertion> upsertions) implements MetadataCommand {
        public BootstrapScramCredentials {
            upsertions = List.copyOf(upsertions);
        }
    }

    /**
     * Creates ACLs (Kafka's CreateAcls, after its per-ACL checks on the leader): each is stored
     * once; one already stored is no change (a resent command, or Kafka's answer to creating an ACL
     * twice: success). Every ACL is valid ({@link AclBinding#validate}); the bound on ACLs ({@link
     * MetadataLimits#maxAcls()}) is checked before the command is appended. Brokers hold the ACLs, so
     * a change bumps the metadata version.
     */
    record CreateAcls(List<AclBinding> acls) implements MetadataCommand {
        public CreateAcls {
            acls = List.copyOf(acls);
        }
    }

    /**
     * Deletes ACLs (Kafka's DeleteAcls): the exact ACLs the leader found matching the request's
     * filters on its latest image; one not stored when the command is applied is ignored (a resent
     * command). A change bumps the metadata version.
     */
    record DeleteAcls(List<AclBinding> acls) implements MetadataCommand {
        public DeleteAcls {
            acls = List.copyOf(acls);
        }
    }

    /**
     * Alters client quotas (Kafka's AlterClientQuotas, after its checks on the leader): each change
     * removes and sets values of one entity, in order; an entity left without values is gone. A
     * value already stored is no change (a resent command). The bound on entities ({@link
     * MetadataLimits#maxQuotaEntities()}) is checked before the command is appended. Brokers hold
     * the quotas, so a change bumps the metadata version.
     */
    record AlterClientQuotas(List<QuotaChange> changes) implements MetadataCommand {
        public AlterClientQuotas {
            changes = List.copyOf(changes);
        }
    }

    /** One entity's quota change: the keys whose values are removed, then the values set. */
    record QuotaChange(QuotaEntity entity, Set<QuotaKey> removed, Map<QuotaKey, Double> set) {
        public QuotaChange {
            Objects.requireNonNull(entity, "entity");
            removed = removed.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(removed));
            set = set.isEmpty() ? Map.of() : Collections.unmodifiableMap(new EnumMap<>(set));
        }
    }

    /** A SCRAM credential to remove: a user's credential for one mechanism code. */
    record ScramDeletion(String user, int mechanism) {
        public ScramDeletion {
            Objects.requireNonNull(user, "user");
        }
    }

    /** A SCRAM credential to store for a user and mechanism code (1 SCRAM-SHA-256, 2 SCRAM-SHA-512). */
    record ScramUpsertion(String user, int mechanism, ScramCredentialData credential) {
        public ScramUpsertion {
            Objects.requireNonNull(user, "user");
            Objects.requireNonNull(credential, "credential");
        }
    }

    /**
     * Stores a transactional id's record (the transaction coordinator's decision), replacing the
     * stored one: only when its revision is 0 and nothing is stored for the id, or one more than the
     * stored record's (else STALE_EPOCH: the coordinator computed it from a record that is no longer
     * the latest), with a state the stored one leads to ({@link
     * io.tributary.coordinator.transaction.TransactionState#next()}; a new id's is Empty) and producer
     * ids below the image's {@link MetadataImage#nextProducerId()} (handed out already). Storing the
     * record already stored (a resent command) changes nothing; a new id beyond {@link
     * MetadataLimits#maxTransactionalIds()} is refused before the command is appended.
     */
    record StoreTransaction(TransactionRecord transaction) implements MetadataCommand {
        public StoreTransaction {
            Objects.requireNonNull(transaction, "transaction");
        }
    }

    /**
     * Forgets an expired transactional id whose stored record has {@code revision} (else STALE_EPOCH);
     * nothing stored is no change.
     */
    record DeleteTransaction(String transactionalId, long revision) implements MetadataCommand {
        public DeleteTransaction {
            Objects.requireNonNull(transactionalId, "transactionalId");
        }
    }

    /** The kind of a leader election. */
    enum ElectionType {
        PREFERRED,
        UNCLEAN
    }
}
