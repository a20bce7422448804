package io.tributary.broker.api;

import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.log.PartitionLog;
import io.tributary.broker.log.TimestampAndOffset;
import io.tributary.broker.replication.Partition;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;

/**
 * ListOffsets (API 2), versions 1 to 11.
 *
 * <ul>
 *   <li>With an authorizer, a topic without DESCRIBE answers TOPIC_AUTHORIZATION_FAILED on each of
 *       its partitions (offset and timestamp -1), after the topics served, as Kafka orders them.
 *   <li>{@code -2} earliest and {@code -4} earliest local: the log start offset.
 *   <li>The leader epoch of an answer is Kafka's: for latest the leader's current epoch; for
 *       earliest the epoch of the batch at or before the log start, or the current epoch when the
 *       log start is at or past the log end offset at which this broker took that epoch on ({@link
 *       io.tributary.broker.replication.Partition#leaderEpochAt}, as Kafka's leader epoch cache),
 *       so an empty partition answers its current epoch for both.
 *   <li>{@code -1} latest: the high watermark for consumers (replica id -1; the last stable offset
 *       is the same, there are no transactions), the log end offset for replicas and debugging
 *       clients.
 *   <li>{@code -3} max timestamp: the first record with the largest timestamp; a timestamp at
 *       least 0: the first record whose timestamp is at least it. For consumers only records below
 *       the high watermark qualify; none: offset and timestamp -1.
 *   <li>{@code -5} latest tiered and {@code -6} earliest pending upload: there is no tiered
 *       storage, so offset and timestamp -1, as Kafka answers without it.
 *   <li>Leader only, except for the debugging replica id -2; {@code current_leader_epoch} is
 *       checked ({@code FENCED_LEADER_EPOCH}/{@code UNKNOWN_LEADER_EPOCH}).
 * </ul>
 *
 * <p>Thread-safe.
 */
public final class ListOffsetsHandler implements RequestHandler {

    public static final ApiVersionRange VERSIONS = ApiVersionRange.of(ApiKeys.LIST_OFFSETS, 1, 11);

    private final PartitionAccess access;
    private final AccessControl acls;

    /** A handler without an authorizer ({@link AccessControl#OPEN}). */
    public ListOffsetsHandler(ReplicaManager replicas, MetadataView metadata) {
        this(replicas, metadata, AccessControl.OPEN);
    }

    /**
     * @param acls who may list which topic's offsets: DESCRIBE on it, else TOPIC_AUTHORIZATION_FAILED
     *     on its partitions, listed after the served topics as Kafka lists them
     */
    public ListOffsetsHandler(ReplicaManager replicas, MetadataView metadata, AccessControl acls) {
        this.access = new PartitionAccess(replicas, metadata);
        this.acls = Objects.requireNonNull(acls, "acls");
    }

    @Override
    public ApiVersionRange versions() {
        return VERSIONS;
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        ListOffsetsRequest list = request.body(ListOffsetsRequest.class);
        short version = request.header().apiVersion();
        int replicaId = list.replicaId();
        boolean consumer = replicaId == ListOffsetsRequest.CONSUMER_REPLICA_ID;
        PartitionAccess.Need need = PartitionAccess.Need.forReplicaId(replicaId);
        ClusterImage image = access.image();
        ListOffsetsResponseData response = new ListOffsetsResponseData();
        List<ListOffsetsResponseData.ListOffsetsTopicResponse> refused = new ArrayList<>();
        for (ListOffsetsRequestData.ListOffsetsTopic topicData : list.topics()) {
            var topic = PartitionAccess.topicByName(image, topicData.name());
            var topicResponse = new ListOffsetsResponseData.ListOffsetsTopicResponse().setName(topicData.name());
            boolean describable =
                    acls.allowed(request.connection(), AclOperation.DESCRIBE, AclResourceType.TOPIC, topicData.name());
            for (ListOffsetsRequestData.ListOffsetsPartition partitionData : topicData.partitions()) {
                var partitionResponse = new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                        .setPartitionIndex(partitionData.partitionIndex())
                        .setTimestamp(ListOffsetsResponse.UNKNOWN_TIMESTAMP)
                        .setOffset(ListOffsetsResponse.UNKNOWN_OFFSET)
                        .setLeaderEpoch(ListOffsetsResponse.UNKNOWN_EPOCH);
                topicResponse.partitions().add(partitionResponse);
                if (!describable) {
                    partitionResponse.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                    continue;
                }
                PartitionAccess.Resolved resolved =
                        access.resolve(topic, partitionData.partitionIndex(), partitionData.currentLeaderEpoch(), need);
                if (!resolved.isOk()) {
                    partitionResponse.setErrorCode(resolved.error().code());
                    continue;
                }
                Partition partition = resolved.partition().get();
                try {
                    lookup(partition, partitionData.timestamp(), consumer).ifPresent(found -> {
                        partitionResponse.setTimestamp(found.timestamp()).setOffset(found.offset());
                        // The response has a leader epoch from v4 on; writing one below fails.
                        if (version >= 4) {
                            partitionResponse.setLeaderEpoch(
                                    found.leaderEpoch().orElse(ListOffsetsResponse.UNKNOWN_EPOCH));
                        }
                    });
                } catch (RuntimeException e) {
                    partitionResponse.setErrorCode(
                            DataPathErrors.of(e, partition.topicIdPartition()).code());
                }
            }
            (describable ? response.topics() : refused).add(topicResponse);
        }
        response.topics().addAll(refused);
        return new ListOffsetsResponse(response);
    }

    private static Optional<TimestampAndOffset> lookup(Partition partition, long timestamp, boolean consumer) {
        PartitionLog log = partition.log();
        long lastFetchable = consumer ? partition.highWatermark() : log.logEndOffset();
        if (timestamp == ListOffsetsRequest.EARLIEST_TIMESTAMP
                || timestamp == ListOffsetsRequest.EARLIEST_LOCAL_TIMESTAMP) {
            long start = log.logStartOffset();
            return Optional.of(new TimestampAndOffset(
                    ListOffsetsResponse.UNKNOWN_TIMESTAMP, start, partition.leaderEpochAt(start)));
        }
        if (timestamp == ListOffsetsRequest.LATEST_TIMESTAMP) {
            // Kafka answers a leader's current epoch for the latest offset (Partition.fetchOffsetForTimestamp).
            OptionalInt epoch = partition.isLeader()
                    ? OptionalInt.of(partition.leaderEpoch())
                    : partition.leaderEpochAt(lastFetchable);
            return Optional.of(new TimestampAndOffset(ListOffsetsResponse.UNKNOWN_TIMESTAMP, lastFetchable, epoch));
        }
        if (timestamp == ListOffsetsRequest.MAX_TIMESTAMP || timestamp >= 0) {
            return log.listOffset(timestamp).filter(found -> found.offset() < lastFetchable);
        }
        // Latest tiered, earliest pending upload, and any other special value: nothing to point at.
        return Optional.empty();
    }
}
