package io.tributary.broker.api;

import io.tributary.broker.cluster.BrokerEndpoint;
import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.MetadataView;
import io.tributary.broker.cluster.TopicInfo;
import io.tributary.broker.log.AppendResult;
import io.tributary.broker.log.InvalidRecordException;
import io.tributary.broker.log.InvalidTimestampException;
import io.tributary.broker.log.RecompressionStats;
import io.tributary.broker.log.RecordError;
import io.tributary.broker.replication.Partition;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.common.protocol.AccessControl;
import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.common.security.acl.AclOperation;
import io.tributary.common.security.acl.AclResourceType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;

/**
 * Produce (API 0), versions 3 to 13: appends each partition's batch as leader and answers with its
 * base offset.
 *
 * <ul>
 *   <li>acks=0: appended, no response (the listener sends none); if any partition fails, the
 *       connection is closed instead, as in Kafka, so the client refreshes its metadata; acks=1: answered once in the leader's log; acks=-1:
 *       answered once the high watermark passes the batch, waiting parked (no polling) up to the
 *       request's {@code timeout_ms}, bounded by {@code maxTimeout}, then {@code
 *       REQUEST_TIMED_OUT}; refused before appending with {@code NOT_ENOUGH_REPLICAS} when the ISR
 *       is smaller than {@code min.insync.replicas} (capped at the partition's replica count, as
 *       Kafka does: {@link io.tributary.broker.replication.Partition#effectiveMinInsyncReplicas()});
 *       {@code NOT_LEADER_OR_FOLLOWER} when, by the
 *       time the ISR has it, this broker is no longer active (fenced) or no longer leads in the
 *       epoch it appended in; {@code NOT_ENOUGH_REPLICAS_AFTER_APPEND} when the ISR shrank below
 *       {@code min.insync.replicas} while waiting. Other acks: {@code INVALID_REQUIRED_ACKS}.
 *   <li>Per partition: {@code UNKNOWN_TOPIC_ID} for v13's topic ids, then {@code
 *       TOPIC_AUTHORIZATION_FAILED} without WRITE on the topic (with an authorizer; also for a topic
 *       that does not exist), {@code UNKNOWN_TOPIC_OR_PARTITION}, {@code NOT_LEADER_OR_FOLLOWER} with the current leader and its endpoint (v10+),
 *       {@code INVALID_RECORD} (not exactly one magic-2 batch, Kafka's request validation), {@code
 *       CORRUPT_MESSAGE}, {@code MESSAGE_TOO_LARGE}, {@code OUT_OF_ORDER_SEQUENCE_NUMBER}, {@code
 *       INVALID_PRODUCER_EPOCH}, {@code UNSUPPORTED_FOR_MESSAGE_FORMAT} for transactional batches,
 *       {@code INVALID_TIMESTAMP} (a record outside {@code message.timestamp.before.max.ms} / {@code
 *       after.max.ms}) and {@code INVALID_RECORD} for records without a key in a compacted topic,
 *       both with the log start offset and {@code RecordErrors}: each refused record's index in the
 *       batch and Kafka's message.
 *   <li>An idempotent producer's retried batch is answered with its original offsets.
 * </ul>
 *
 * <p>Thread-safe.
 */
public final class ProduceHandler implements RequestHandler {

    /** Produce versions served: v3 (magic 2) to v13 (topic ids). */
    public static final ApiVersionRange VERSIONS = ApiVersionRange.of(ApiKeys.PRODUCE, 3, 13);

    private final PartitionAccess access;
    private final Duration maxTimeout;
    private final DataPathMetrics metrics;
    private final AccessControl acls;

    /** A handler without an authorizer ({@link AccessControl#OPEN}). */
    public ProduceHandler(
            ReplicaManager replicas, MetadataView metadata, Duration maxTimeout, DataPathMetrics metrics) {
        this(replicas, metadata, maxTimeout, metrics, AccessControl.OPEN);
    }

    /** @param acls who may write which topic: WRITE on each, else TOPIC_AUTHORIZATION_FAILED on its partitions */
    public ProduceHandler(
            ReplicaManager replicas,
            MetadataView metadata,
            Duration maxTimeout,
            DataPathMetrics metrics,
            AccessControl acls) {
        this.access = new PartitionAccess(replicas, metadata);
        this.maxTimeout = Objects.requireNonNull(maxTimeout, "maxTimeout");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.acls = Objects.requireNonNull(acls, "acls");
    }

    @Override
    public ApiVersionRange versions() {
        return VERSIONS;
    }

    /** One partition's answer, filled in as it goes. */
    private static final class Slot {
        final ProduceResponseData.PartitionProduceResponse response;
        Partition partition;
        long waitFor = -1;
        int appendEpoch = -1;

        Slot(int index) {
            response = new ProduceResponseData.PartitionProduceResponse()
                    .setIndex(index)
                    .setBaseOffset(ProduceResponse.INVALID_OFFSET)
                    .setLogAppendTimeMs(-1)
                    .setLogStartOffset(-1);
        }

        void fail(Errors error, String message) {
            response.setErrorCode(error.code()).setErrorMessage(message);
        }
    }

    @Override
    public AbstractResponse handle(KafkaRequest request) {
        ProduceRequest produce = request.body(ProduceRequest.class);
        short version = request.header().apiVersion();
        short acks = produce.acks();
        ProduceRequestData data = produce.data();
        ClusterImage image = access.image();
        boolean byId = version >= 13;
        Map<Integer, BrokerInfo> hintedBrokers = new HashMap<>();
        ProduceResponseData response = new ProduceResponseData();
        List<Slot> waiting = new ArrayList<>();
        for (ProduceRequestData.TopicProduceData topicData : data.topicData()) {
            Optional<TopicInfo> topic = byId
                    ? PartitionAccess.topicById(image, topicData.topicId())
                    : PartitionAccess.topicByName(image, topicData.name());
            String name = topic.map(TopicInfo::name).orElse(topicData.name());
            var topicResponse =
                    new ProduceResponseData.TopicProduceResponse().setName(name).setTopicId(topicData.topicId());
            // Kafka's order: an unknown topic id (no name to check), then WRITE on the topic (also
            // for a topic that does not exist), then the request's acks.
            boolean writable = (byId && topic.isEmpty())
                    || acls.allowed(request.connection(), AclOperation.WRITE, AclResourceType.TOPIC, name);
            for (ProduceRequestData.PartitionProduceData partitionData : topicData.partitionData()) {
                Slot slot = new Slot(partitionData.index());
                topicResponse.partitionResponses().add(slot.response);
                if (byId && topic.isEmpty()) {
                    slot.fail(Errors.UNKNOWN_TOPIC_ID, null);
                    continue;
                }
                if (!writable) {
                    slot.fail(Errors.TOPIC_AUTHORIZATION_FAILED, null);
                    continue;
                }
                if (acks != 0 && acks != 1 && acks != -1) {
                    slot.fail(Errors.INVALID_REQUIRED_ACKS, "acks must be 0, 1 or -1, not " + acks);
                    continue;
                }
                PartitionAccess.Resolved resolved = access.resolve(
                        topic, partitionData.index(), PartitionAccess.NO_EPOCH, PartitionAccess.Need.LEADER);
                if (!resolved.isOk()) {
                    slot.fail(resolved.error(), null);
                    if (resolved.error() == Errors.NOT_LEADER_OR_FOLLOWER && version >= 10) {
                        PartitionAccess.LeaderHint hint = access.leaderHint(image, topic, partitionData.index());
                        slot.response
                                .currentLeader()
                                .setLeaderId(hint.leaderId())
                                .setLeaderEpoch(hint.leaderEpoch());
                        hint.broker().ifPresent(b -> hintedBrokers.put(b.id(), b));
                    }
                    continue;
                }
                slot.partition = resolved.partition().get();
                append(slot, partitionData.records(), version, acks);
                if (acks == -1 && slot.waitFor >= 0) {
                    waiting.add(slot);
                }
            }
            response.responses().add(topicResponse);
        }
        if (acks == 0) {
            failWithoutResponseIfAnyFailed(response);
        }
        awaitReplication(waiting, Duration.ofMillis(Math.max(0, produce.timeout())));
        for (BrokerInfo broker : hintedBrokers.values()) {
            PartitionAccess.endpoint(broker, request)
                    .ifPresent(endpoint -> addNodeEndpoint(response, broker, endpoint));
        }
        return new ProduceResponse(response);
    }

    private void append(Slot slot, BaseRecords baseRecords, short version, short acks) {
        Partition partition = slot.partition;
        if (!(baseRecords instanceof MemoryRecords records)) {
            slot.fail(Errors.INVALID_RECORD, "a produce request carries records in memory");
            return;
        }
        try {
            ProduceRequest.validateRecords(version, records);
        } catch (ApiException e) {
            slot.fail(Errors.forException(e), e.getMessage());
            return;
        }
        if (acks == -1 && partition.info().isr().size() < partition.effectiveMinInsyncReplicas()) {
            slot.fail(
                    Errors.NOT_ENOUGH_REPLICAS,
                    "the ISR has " + partition.info().isr().size() + " replicas, min.insync.replicas is "
                            + partition.effectiveMinInsyncReplicas());
            return;
        }
        long bytes = records.sizeInBytes();
        long count = 0;
        for (MutableRecordBatch batch : records.batches()) {
            count += batch.lastOffset() - batch.baseOffset() + 1;
        }
        try {
            slot.appendEpoch = partition.leaderEpoch();
            AppendResult result = partition.appendAsLeader(records);
            slot.response
                    .setBaseOffset(result.firstOffset())
                    .setLogAppendTimeMs(result.logAppendTimeMs().orElse(-1))
                    .setLogStartOffset(result.logStartOffset());
            slot.waitFor = result.lastOffset() + 1;
            if (!result.duplicate()) {
                metrics.produced(bytes, count);
                RecompressionStats recompression = result.recompression();
                if (recompression.batches() > 0) {
                    metrics.recompressed(recompression.batches(), recompression.bytesIn(), recompression.bytesOut());
                }
            }
        } catch (RuntimeException e) {
            Errors error = DataPathErrors.of(e, partition.topicIdPartition());
            slot.fail(error, e.getMessage());
            if (error == Errors.OUT_OF_ORDER_SEQUENCE_NUMBER || error == Errors.INVALID_PRODUCER_EPOCH) {
                slot.response.setLogStartOffset(partition.log().logStartOffset());
            }
            List<RecordError> recordErrors = switch (e) {
                case InvalidTimestampException invalid -> invalid.recordErrors();
                case InvalidRecordException invalid -> invalid.recordErrors();
                default -> List.of();
            };
            if (!recordErrors.isEmpty()) {
                // Kafka's answer to a record validation failure: the log start offset and an error
                // per refused record, by its index in the batch.
                slot.response.setLogStartOffset(partition.log().logStartOffset());
                for (RecordError recordError : recordErrors) {
                    slot.response
                            .recordErrors()
                            .add(new ProduceResponseData.BatchIndexAndErrorMessage()
                                    .setBatchIndex(recordError.batchIndex())
                                    .setBatchIndexErrorMessage(recordError.message()));
                }
            }
        }
    }

    /** Waits (parked) for the high watermark of every acks=-1 partition to pass its batch. */
    private void awaitReplication(List<Slot> waiting, Duration requested) {
        if (waiting.isEmpty()) {
            return;
        }
        Duration timeout = requested.compareTo(maxTimeout) > 0 ? maxTimeout : requested;
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Slot slot : waiting) {
            try {
                long left = Math.max(0, deadline - System.nanoTime());
                boolean reached =
                        slot.partition.awaitHighWatermark(slot.waitFor, Duration.ofNanos(left), slot.appendEpoch);
                if (!access.metadata().isActive()
                        || !slot.partition.isLeader()
                        || slot.partition.leaderEpoch() != slot.appendEpoch) {
                    // A fenced or deposed leader acknowledges nothing: the client retries at the
                    // current leader (an idempotent producer's retry is deduplicated there).
                    slot.fail(
                            Errors.NOT_LEADER_OR_FOLLOWER,
                            "this broker stopped leading (or was fenced) while waiting for the in-sync replicas");
                } else if (!reached) {
                    slot.fail(Errors.REQUEST_TIMED_OUT, "the in-sync replicas did not all get the batch in time");
                } else if (slot.partition.info().isr().size() < slot.partition.effectiveMinInsyncReplicas()) {
                    // The ISR shrank below min.insync.replicas while waiting (Kafka's
                    // checkEnoughReplicasReachOffset): written, but not to enough replicas.
                    slot.fail(
                            Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
                            "the ISR shrank to " + slot.partition.info().isr().size()
                                    + " replicas, below min.insync.replicas "
                                    + slot.partition.effectiveMinInsyncReplicas() + ", after the append");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                slot.fail(Errors.REQUEST_TIMED_OUT, "interrupted while waiting for the in-sync replicas");
            }
        }
    }

    /**
     * An acks=0 producer gets no response, so, as Kafka does, a failed partition closes the
     * connection instead: the exception makes the listener close it, and the client, seeing the
     * disconnect, refreshes its metadata (a moved leader is the usual cause).
     */
    private static void failWithoutResponseIfAnyFailed(ProduceResponseData response) {
        for (ProduceResponseData.TopicProduceResponse topic : response.responses()) {
            for (ProduceResponseData.PartitionProduceResponse partition : topic.partitionResponses()) {
                Errors error = Errors.forCode(partition.errorCode());
                if (error != Errors.NONE) {
                    throw error.exception("acks=0 produce to " + topic.name() + "-" + partition.index() + " failed: "
                            + error.name() + "; closing the connection");
                }
            }
        }
    }

    private static void addNodeEndpoint(ProduceResponseData response, BrokerInfo broker, BrokerEndpoint endpoint) {
        response.nodeEndpoints()
                .add(new ProduceResponseData.NodeEndpoint()
                        .setNodeId(broker.id())
                        .setHost(endpoint.host())
                        .setPort(endpoint.port())
                        .setRack(broker.rack() == null || broker.rack().isEmpty() ? null : broker.rack()));
    }
}
