package io.tributary.broker.api;

import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.replication.EpochEnd;
import io.tributary.broker.replication.Partition;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
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
 * <p>Thread-safe.
 */
public final class OffsetForLeaderEpochHandler implements RequestHandler {

    public static final ApiVersionRange VERSIONS = ApiVersionRange.of(ApiKeys.OFFSET_FOR_LEADER_EPOCH, 2, 4);

    private final PartitionAccess access;

    public OffsetForLeaderEpochHandler(ReplicaManager replicas, MetadataView metadata) {
        this.access = new PartitionAccess(replicas, metadata);
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
        for (OffsetForLeaderEpochRequestData.OffsetForLeaderTopic topicData : data.topics()) {
            var topic = PartitionAccess.topicByName(image, topicData.topic());
            var topicResult =
                    new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult().setTopic(topicData.topic());
            for (OffsetForLeaderEpochRequestData.OffsetForLeaderPartition partitionData : topicData.partitions()) {
                var result = new OffsetForLeaderEpochResponseData.EpochEndOffset()
                        .setPartition(partitionData.partition())
                        .setLeaderEpoch(OffsetsForLeaderEpochResponse.UNDEFINED_EPOCH)
                        .setEndOffset(OffsetsForLeaderEpochResponse.UNDEFINED_EPOCH_OFFSET);
                topicResult.partitions().add(result);
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
