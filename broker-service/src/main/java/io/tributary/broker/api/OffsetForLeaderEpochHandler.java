package io.tributary.broker.api;

import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.replication.EpochEnd;
import io.tributary.broker.replication.Partition;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclResourceType;
import java.util.Objects;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochResponse;

/**
 * OffsetForLeaderEpoch (API 23), versions 2 to 4: for each partition, the end offset of the largest
 * leader epoch at most the one asked for, from the log's leader-epoch cache (Kafka's semantics, see
 * {@link LeaderEpochs#endOffsetFor}); the latest epoch ends at the log end offset. Followers and
 * consumers (replica id at least -1) are answered by the leader only; the debugging replica id -2
 * (the default before v3) by any replica. {@code current_leader_epoch} is checked.
 *
 * <p>Authorization (with an authorizer): CLUSTER_ACTION on the cluster (a replica) allows every
 * topic; else DESCRIBE on each topic (KIP-320, consumers), a refused topic's partitions being
 * {@code TOPIC_AUTHORIZATION_FAILED}, also when it does not exist, before any other check.
 *
 * <p>Thread-safe.
 */
public final class OffsetForLeaderEpochHandler implements RequestHandler {

    public static final ApiVersionRange VERSIONS = ApiVersionRange.of(ApiKeys.OFFSET_FOR_LEADER_EPOCH, 2, 4);

    private final PartitionAccess access;
    private final AccessControl acls;

    /** A handler without an authorizer ({@link AccessControl#OPEN}). */
    public OffsetForLeaderEpochHandler(ReplicaManager replicas, MetadataView metadata) {
        this(replicas, metadata, AccessControl.OPEN);
    }

    /** @param acls CLUSTER_ACTION on the cluster, else DESCRIBE on each topic */
    public OffsetForLeaderEpochHandler(ReplicaManager replicas, MetadataView metadata, AccessControl acls) {
        this.access = new PartitionAccess(replicas, metadata);
        this.acls = Objects.requireNonNull(acls, "acls");
    }

    @Override
    public ApiVersionRange versions() {
        return VERSIONS;
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        OffsetsForLeaderEpochRequest epochs = request.body(OffsetsForLeaderEpochRequest.class);
        OffsetForLeaderEpochRequestData data = epochs.data();
        PartitionAccess.Need need = PartitionAccess.Need.forReplicaId(data.replicaId());
        ClusterImage image = access.image();
        OffsetForLeaderEpochResponseData response = new OffsetForLeaderEpochResponseData();
        // a replica's probe: its refusal is expected from consumers, so it is not audited
        boolean replica = acls.allowedQuietly(
                request.connection(),
                AclOperation.CLUSTER_ACTION,
                AclResourceType.CLUSTER,
                AclResourceType.CLUSTER_NAME);
        for (OffsetForLeaderEpochRequestData.OffsetForLeaderTopic topicData : data.topics()) {
            var topic = PartitionAccess.topicByName(image, topicData.topic());
            var topicResult =
                    new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult().setTopic(topicData.topic());
            boolean describable = replica
                    || acls.allowed(
                            request.connection(), AclOperation.DESCRIBE, AclResourceType.TOPIC, topicData.topic());
            for (OffsetForLeaderEpochRequestData.OffsetForLeaderPartition partitionData : topicData.partitions()) {
                var result = new OffsetForLeaderEpochResponseData.EpochEndOffset()
                        .setPartition(partitionData.partition())
                        .setLeaderEpoch(OffsetsForLeaderEpochResponse.UNDEFINED_EPOCH)
                        .setEndOffset(OffsetsForLeaderEpochResponse.UNDEFINED_EPOCH_OFFSET);
                topicResult.partitions().add(result);
                if (!describable) {
                    result.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                    continue;
                }
                PartitionAccess.Resolved resolved =
                        access.resolve(topic, partitionData.partition(), partitionData.currentLeaderEpoch(), need);
                if (!resolved.isOk()) {
                    result.setErrorCode(resolved.error().code());
                    continue;
                }
                Partition partition = resolved.partition().get();
                EpochEnd end = EpochEnd.endOffsetFor(
                        partition.log().leaderEpochs(),
                        partitionData.leaderEpoch(),
                        partition.log().logEndOffset());
                result.setErrorCode(Errors.NONE.code())
                        .setLeaderEpoch(end.epoch())
                        .setEndOffset(end.endOffset());
            }
            response.topics().add(topicResult);
        }
        return new OffsetsForLeaderEpochResponse(response);
    }
}
