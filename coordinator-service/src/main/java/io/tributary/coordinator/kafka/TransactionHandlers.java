package io.tributary.coordinator.kafka;

import io.tributary.common.protocol.ApiVersionRange;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.coordinator.metadata.MetadataImage;
import io.tributary.coordinator.metadata.TopicPartition;
import io.tributary.coordinator.transaction.TransactionCoordinator;
import io.tributary.coordinator.transaction.TransactionCoordinator.ProducerIdAndEpoch;
import io.tributary.coordinator.transaction.TransactionException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResultCollection;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AddOffsetsToTxnRequest;
import org.apache.kafka.common.requests.AddOffsetsToTxnResponse;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnResponse;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.EndTxnResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;

/**
 * The transaction coordinator's Kafka APIs on a coordinator's listener: what a transactional
 * producer sends to the node FindCoordinator(TRANSACTION) named (the metadata Raft leader). Each is
 * a thin translation of the request to {@link TransactionCoordinator} and of its {@link
 * TransactionException} to the error code; a coordinator that does not lead answers
 * NOT_COORDINATOR, on which kafka-clients looks its coordinator up again.
 *
 * <ul>
 *   <li>InitProducerId (22) v0-v5 (v6, KIP-939's two-phase commit, is unstable and not advertised):
 *       with a transactional id, {@link TransactionCoordinator#initProducerId}; an empty one is
 *       INVALID_REQUEST, a producer id without an epoch (or the other way round) too; without one, a
 *       new producer id at epoch 0, as Kafka's coordinator answers an idempotent producer.
 *   <li>AddPartitionsToTxn (24) v0-v3, a producer's request (v4 and v5 are the brokers' batched
 *       verification, served once the brokers send it): partitions of unknown topics or beyond a
 *       topic's count are UNKNOWN_TOPIC_OR_PARTITION and the others OPERATION_NOT_ATTEMPTED, as
 *       Kafka; else every partition gets the one answer of {@link TransactionCoordinator#addPartitions}.
 *   <li>AddOffsetsToTxn (25) v0-v4: an empty group id is INVALID_GROUP_ID; else {@link
 *       TransactionCoordinator#addOffsets}.
 *   <li>EndTxn (26) v0-v4 (v5 is KIP-890's second protocol, which needs the {@code
 *       transaction.version} feature Tributary does not advertise yet): {@link
 *       TransactionCoordinator#endTxn}.
 * </ul>
 *
 * <p>Authorization is the listener's ({@code RequestAuthorizer}: WRITE on the transactional id,
 * WRITE on the topics of AddPartitionsToTxn, READ on the group of AddOffsetsToTxn), before a
 * handler runs.
 *
 * <p>Thread-safety: thread-safe (the coordinator is).
 */
public final class TransactionHandlers {

    private TransactionHandlers() {}

    /** What every handler needs: the coordinator, whether this voter leads, the latest image. */
    public record Context(TransactionCoordinator coordinator, BooleanSupplier isLeader, Supplier<MetadataImage> image) {
        public Context {
            Objects.requireNonNull(coordinator, "coordinator");
            Objects.requireNonNull(isLeader, "isLeader");
            Objects.requireNonNull(image, "image");
        }
    }

    /** Every handler of the transaction APIs. */
    public static List<RequestHandler> all(Context context) {
        return List.of(
                new InitProducerId(context), new AddPartitions(context), new AddOffsets(context), new EndTxn(context));
    }

    /** What every handler has: the context and the versions it serves. */
    private abstract static class Handler implements RequestHandler {
        final Context context;
        private final ApiVersionRange versions;

        Handler(Context context, ApiVersionRange versions) {
            this.context = context;
            this.versions = versions;
        }

        @Override
        public final ApiVersionRange versions() {
            return versions;
        }

        /** Runs a request on the coordinator: NONE, or the error it was refused with. */
        static Errors outcome(Runnable request) {
            try {
                request.run();
                return Errors.NONE;
            } catch (TransactionException e) {
                return e.error();
            }
        }
    }

    private static final long NO_PRODUCER_ID = -1;
    private static final short NO_PRODUCER_EPOCH = -1;

    /** InitProducerId, served by the transaction coordinator. */
    public static final class InitProducerId extends Handler {

        public static final ApiVersionRange VERSIONS = ApiVersionRange.of(ApiKeys.INIT_PRODUCER_ID, 0, 5);

        InitProducerId(Context context) {
            super(context, VERSIONS);
        }

        @Override
        public AbstractResponse handle(KafkaRequest request) {
            InitProducerIdRequestData data =
                    request.body(InitProducerIdRequest.class).data();
            if (!context.isLeader().getAsBoolean()) {
                return answer(Errors.NOT_COORDINATOR, NO_PRODUCER_ID, NO_PRODUCER_EPOCH);
            }
            boolean hasId = data.producerId() != NO_PRODUCER_ID;
            boolean hasEpoch = data.producerEpoch() != NO_PRODUCER_EPOCH;
            if (hasId != hasEpoch || "".equals(data.transactionalId())) {
                return answer(Errors.INVALID_REQUEST, NO_PRODUCER_ID, NO_PRODUCER_EPOCH);
            }
            try {
                ProducerIdAndEpoch answer = data.transactionalId() == null
                        ? context.coordinator().newIdempotentProducer()
                        : context.coordinator()
                                .initProducerId(
                                        data.transactionalId(),
                                        data.transactionTimeoutMs(),
                                        data.producerId(),
                                        data.producerEpoch());
                return answer(Errors.NONE, answer.producerId(), answer.producerEpoch());
            } catch (TransactionException e) {
                return answer(e.error(), NO_PRODUCER_ID, NO_PRODUCER_EPOCH);
            }
        }

        private static InitProducerIdResponse answer(Errors error, long producerId, short epoch) {
            return new InitProducerIdResponse(new InitProducerIdResponseData()
                    .setErrorCode(error.code())
                    .setProducerId(producerId)
                    .setProducerEpoch(epoch));
        }
    }

    /** AddPartitionsToTxn from a producer (v0-v3). */
    public static final class AddPartitions extends Handler {

        public static final ApiVersionRange VERSIONS = ApiVersionRange.of(ApiKeys.ADD_PARTITIONS_TO_TXN, 0, 3);

        AddPartitions(Context context) {
            super(context, VERSIONS);
        }

        @Override
        public AbstractResponse handle(KafkaRequest request) {
            AddPartitionsToTxnRequestData data =
                    request.body(AddPartitionsToTxnRequest.class).data();
            List<TopicPartition> partitions = new ArrayList<>();
            for (AddPartitionsToTxnTopic topic : data.v3AndBelowTopics()) {
                for (int p : topic.partitions()) {
                    partitions.add(new TopicPartition(topic.name(), p));
                }
            }
            Map<TopicPartition, Errors> answers = new HashMap<>();
            if (!context.isLeader().getAsBoolean()) {
                partitions.forEach(tp -> answers.put(tp, Errors.NOT_COORDINATOR));
                return answer(answers);
            }
            MetadataImage image = context.image().get();
            List<TopicPartition> unknown = partitions.stream()
                    .filter(tp -> image.partitionState(tp).isEmpty())
                    .toList();
            if (!unknown.isEmpty()) {
                partitions.forEach(tp -> answers.put(
                        tp, unknown.contains(tp) ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.OPERATION_NOT_ATTEMPTED));
                return answer(answers);
            }
            Errors error = outcome(() -> context.coordinator()
                    .addPartitions(
                            data.v3AndBelowTransactionalId(),
                            data.v3AndBelowProducerId(),
                            data.v3AndBelowProducerEpoch(),
                            partitions));
            partitions.forEach(tp -> answers.put(tp, error));
            return answer(answers);
        }

        private static AddPartitionsToTxnResponse answer(Map<TopicPartition, Errors> answers) {
            AddPartitionsToTxnTopicResultCollection topics = new AddPartitionsToTxnTopicResultCollection();
            new TreeMap<>(answers).forEach((tp, error) -> {
                AddPartitionsToTxnTopicResult topic = topics.find(tp.topic());
                if (topic == null) {
                    topic = new AddPartitionsToTxnTopicResult().setName(tp.topic());
                    topics.add(topic);
                }
                topic.resultsByPartition()
                        .add(new AddPartitionsToTxnPartitionResult()
                                .setPartitionIndex(tp.partition())
                                .setPartitionErrorCode(error.code()));
            });
            return new AddPartitionsToTxnResponse(
                    new AddPartitionsToTxnResponseData().setResultsByTopicV3AndBelow(topics));
        }
    }

    /** AddOffsetsToTxn. */
    public static final class AddOffsets extends Handler {

        public static final ApiVersionRange VERSIONS = ApiVersionRange.of(ApiKeys.ADD_OFFSETS_TO_TXN, 0, 4);

        AddOffsets(Context context) {
            super(context, VERSIONS);
        }

        @Override
        public AbstractResponse handle(KafkaRequest request) {
            AddOffsetsToTxnRequestData data =
                    request.body(AddOffsetsToTxnRequest.class).data();
            Errors error;
            if (!context.isLeader().getAsBoolean()) {
                error = Errors.NOT_COORDINATOR;
            } else if (data.groupId().isEmpty()) {
                error = Errors.INVALID_GROUP_ID;
            } else {
                error = outcome(() -> context.coordinator()
                        .addOffsets(data.transactionalId(), data.producerId(), data.producerEpoch(), data.groupId()));
            }
            return new AddOffsetsToTxnResponse(new AddOffsetsToTxnResponseData().setErrorCode(error.code()));
        }
    }

    /** EndTxn (v0-v4). */
    public static final class EndTxn extends Handler {

        public static final ApiVersionRange VERSIONS = ApiVersionRange.of(ApiKeys.END_TXN, 0, 4);

        EndTxn(Context context) {
            super(context, VERSIONS);
        }

        @Override
        public AbstractResponse handle(KafkaRequest request) {
            EndTxnRequestData data = request.body(EndTxnRequest.class).data();
            Errors error = context.isLeader().getAsBoolean()
                    ? outcome(() -> context.coordinator()
                            .endTxn(data.transactionalId(), data.producerId(), data.producerEpoch(), data.committed()))
                    : Errors.NOT_COORDINATOR;
            return new EndTxnResponse(new EndTxnResponseData()
                    .setErrorCode(error.code())
                    .setProducerId(NO_PRODUCER_ID)
                    .setProducerEpoch(NO_PRODUCER_EPOCH));
        }
    }
}
