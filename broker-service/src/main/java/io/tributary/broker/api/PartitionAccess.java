package io.tributary.broker.api;

import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.cluster.PartitionInfo;
import io.tributary.broker.cluster.TopicInfo;
import io.tributary.broker.replication.Partition;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.common.protocol.KafkaRequest;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * Finds the local replica a request names and applies the checks every data-path handler makes,
 * in Kafka's order: the topic and partition exist ({@code UNKNOWN_TOPIC_OR_PARTITION}, or {@code
 * UNKNOWN_TOPIC_ID} by id); this broker holds a replica ({@code NOT_LEADER_OR_FOLLOWER}); the
 * client's {@code current_leader_epoch}, unless -1, equals the replica's ({@code
 * FENCED_LEADER_EPOCH} when older, {@code UNKNOWN_LEADER_EPOCH} when newer); and, for leadership
 * work, that this replica leads and the broker is active (registered and not fenced), else {@code
 * NOT_LEADER_OR_FOLLOWER}.
 *
 * <p>Thread-safe (stateless over thread-safe collaborators).
 */
final class PartitionAccess {

    /** What a request may use: the replica, or the error to answer. */
    record Resolved(Optional<Partition> partition, Errors error) {

        static Resolved ok(Partition partition) {
            return new Resolved(Optional.of(partition), Errors.NONE);
        }

        static Resolved failed(Errors error) {
            return new Resolved(Optional.empty(), error);
        }

        boolean isOk() {
            return error == Errors.NONE;
        }
    }

    /** Who leads, for NOT_LEADER_OR_FOLLOWER hints. */
    record LeaderHint(int leaderId, int leaderEpoch, Optional<BrokerInfo> broker) {}

    /** Whether the replica must be the leader. */
    enum Need {
        LEADER,
        ANY_REPLICA;

        /** Kafka's replica id -2 of a debugging client, answered by any replica. */
        static final int DEBUGGING_REPLICA_ID = -2;

        /**
         * What a request's {@code replica_id} asks for: a debugging client (-2) may read any replica,
         * everyone else (consumers -1, followers) the leader.
         */
        static Need forReplicaId(int replicaId) {
            return replicaId == DEBUGGING_REPLICA_ID ? ANY_REPLICA : LEADER;
        }
    }

    static final int NO_EPOCH = -1;

    private final ReplicaManager replicas;
    private final MetadataView metadata;

    PartitionAccess(ReplicaManager replicas, MetadataView metadata) {
        this.replicas = Objects.requireNonNull(replicas, "replicas");
        this.metadata = Objects.requireNonNull(metadata, "metadata");
    }

    MetadataView metadata() {
        return metadata;
    }

    ClusterImage image() {
        return metadata.image();
    }

    /** The topic named {@code name}, or UNKNOWN_TOPIC_OR_PARTITION. */
    static Optional<TopicInfo> topicByName(ClusterImage image, String name) {
        return image.topic(name);
    }

    /** The topic with {@code id}. */
    static Optional<TopicInfo> topicById(ClusterImage image, Uuid id) {
        return id == null || Uuid.ZERO_UUID.equals(id) ? Optional.empty() : image.topic(id);
    }

    Resolved resolve(Optional<TopicInfo> topic, int partitionIndex, int currentLeaderEpoch, Need need) {
        if (topic.isEmpty() || topic.get().partition(partitionIndex).isEmpty()) {
            return Resolved.failed(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        }
        Optional<Partition> local = replicas.partition(topic.get().name(), partitionIndex);
        if (local.isEmpty()
                || !local.get().topicIdPartition().topicId().equals(topic.get().id())) {
            return Resolved.failed(Errors.NOT_LEADER_OR_FOLLOWER);
        }
        Partition partition = local.get();
        if (currentLeaderEpoch != NO_EPOCH) {
            int epoch = partition.leaderEpoch();
            if (currentLeaderEpoch < epoch) {
                return Resolved.failed(Errors.FENCED_LEADER_EPOCH);
            }
            if (currentLeaderEpoch > epoch) {
                return Resolved.failed(Errors.UNKNOWN_LEADER_EPOCH);
            }
        }
        if (need == Need.LEADER && (!partition.isLeader() || !metadata.isActive())) {
            return Resolved.failed(Errors.NOT_LEADER_OR_FOLLOWER);
        }
        return Resolved.ok(partition);
    }

    /** Who leads the partition in the current image, for hints in responses. */
    LeaderHint leaderHint(ClusterImage image, Optional<TopicInfo> topic, int partitionIndex) {
        Optional<PartitionInfo> info = topic.flatMap(t -> t.partition(partitionIndex));
        int leader = info.map(PartitionInfo::leader).orElse(PartitionInfo.NO_LEADER);
        int epoch = info.map(PartitionInfo::leaderEpoch).orElse(NO_EPOCH);
        return new LeaderHint(leader, epoch, leader < 0 ? Optional.empty() : image.broker(leader));
    }

    /**
     * The endpoint clients of the listener {@code request} came in on use to reach {@code broker};
     * empty when it has none there (the hint is then left out, as Kafka does).
     */
    static Optional<BrokerEndpoint> endpoint(BrokerInfo broker, KafkaRequest request) {
        return broker.endpoint(ClusterViews.listenerOf(request));
    }
}
