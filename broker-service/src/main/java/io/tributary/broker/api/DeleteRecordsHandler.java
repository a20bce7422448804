package io.tributary.broker.api;

import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.replication.Partition;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclResourceType;
import java.util.Objects;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteRecordsResponse;

/**
 * DeleteRecords (API 21), versions 0 to 2: moves each partition's log start offset up to the
 * requested offset ({@code -1}: the high watermark) on the leader and answers the new low
 * watermark (the leader's log start offset; followers follow through issue 7's fetcher). An offset
 * above the high watermark, or another negative one, is {@code OFFSET_OUT_OF_RANGE}; asking a
 * non-leader is {@code NOT_LEADER_OR_FOLLOWER}. With an authorizer, a topic the caller may not
 * DELETE is {@code TOPIC_AUTHORIZATION_FAILED} on its partitions (low watermark -1), also when it
 * does not exist, before any other check, as in Kafka.
 *
 * <p>Thread-safe.
 */
public final class DeleteRecordsHandler implements RequestHandler {

    public static final ApiVersionRange VERSIONS = ApiVersionRange.of(ApiKeys.DELETE_RECORDS, 0, 2);

    private static final long HIGH_WATERMARK = -1L;

    private final PartitionAccess access;
    private final AccessControl acls;

    /** A handler without an authorizer ({@link AccessControl#OPEN}). */
    public DeleteRecordsHandler(ReplicaManager replicas, MetadataView metadata) {
        this(replicas, metadata, AccessControl.OPEN);
    }

    /** @param acls who may delete records of which topic: DELETE on it */
    public DeleteRecordsHandler(ReplicaManager replicas, MetadataView metadata, AccessControl acls) {
        this.access = new PartitionAccess(replicas, metadata);
        this.acls = Objects.requireNonNull(acls, "acls");
    }

    @Override
    public ApiVersionRange versions() {
        return VERSIONS;
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        DeleteRecordsRequestData data = request.body(DeleteRecordsRequest.class).data();
        ClusterImage image = access.image();
        DeleteRecordsResponseData response = new DeleteRecordsResponseData();
        for (DeleteRecordsRequestData.DeleteRecordsTopic topicData : data.topics()) {
            var topic = PartitionAccess.topicByName(image, topicData.name());
            var topicResult = new DeleteRecordsResponseData.DeleteRecordsTopicResult().setName(topicData.name());
            boolean deletable =
                    acls.allowed(request.connection(), AclOperation.DELETE, AclResourceType.TOPIC, topicData.name());
            for (DeleteRecordsRequestData.DeleteRecordsPartition partitionData : topicData.partitions()) {
                var result = new DeleteRecordsResponseData.DeleteRecordsPartitionResult()
                        .setPartitionIndex(partitionData.partitionIndex())
                        .setLowWatermark(DeleteRecordsResponse.INVALID_LOW_WATERMARK);
                topicResult.partitions().add(result);
                if (!deletable) {
                    result.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                    continue;
                }
                PartitionAccess.Resolved resolved = access.resolve(
                        topic, partitionData.partitionIndex(), PartitionAccess.NO_EPOCH, PartitionAccess.Need.LEADER);
                if (!resolved.isOk()) {
                    result.setErrorCode(resolved.error().code());
                    continue;
                }
                Partition partition = resolved.partition().get();
                long highWatermark = partition.highWatermark();
                long offset = partitionData.offset() == HIGH_WATERMARK ? highWatermark : partitionData.offset();
                if (offset < 0 || offset > highWatermark) {
                    result.setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code());
                    continue;
                }
                try {
                    partition.log().deleteRecordsBefore(offset);
                    partition.signalChange();
                    result.setErrorCode(Errors.NONE.code())
                            .setLowWatermark(partition.log().logStartOffset());
                } catch (RuntimeException e) {
                    result.setErrorCode(
                            DataPathErrors.of(e, partition.topicIdPartition()).code());
                }
            }
            response.topics().add(topicResult);
        }
        return new DeleteRecordsResponse(response);
    }
}
