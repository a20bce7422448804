package io.tributary.coordinator.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.protocol.ConnectionInfo;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.coordinator.metadata.Fixtures;
import io.tributary.coordinator.metadata.MetadataImage;
import io.tributary.coordinator.transaction.MarkerChannel;
import io.tributary.coordinator.transaction.TransactionConfig;
import io.tributary.coordinator.transaction.TransactionCoordinator;
import io.tributary.coordinator.transaction.TransactionRecord;
import io.tributary.coordinator.transaction.TransactionState;
import io.tributary.coordinator.transaction.TransactionStore;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AddOffsetsToTxnRequest;
import org.apache.kafka.common.requests.AddOffsetsToTxnResponse;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnResponse;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.EndTxnResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The transaction APIs of a coordinator's Kafka listener, through kafka-clients' own request and
 * response serialization at every advertised version: a producer's whole transaction (InitProducerId,
 * AddPartitionsToTxn, AddOffsetsToTxn, EndTxn), fencing by a second InitProducerId, unknown
 * partitions, bad requests, and NOT_COORDINATOR on a voter that does not lead.
 */
class TransactionHandlersTest {

    private final Map<String, TransactionRecord> stored = new TreeMap<>();
    private final List<MarkerChannel.Markers> markers = new ArrayList<>();
    private final AtomicBoolean leader = new AtomicBoolean(true);
    private long nextProducerId = 100;
    private final MetadataImage image =
            Fixtures.liveBrokers(1, 1).apply(Fixtures.createTopic("t", List.of(List.of(0), List.of(0))));

    private final TransactionStore store = new TransactionStore() {
        @Override
        public Optional<TransactionRecord> get(String id) {
            return Optional.ofNullable(stored.get(id));
        }

        @Override
        public Collection<TransactionRecord> all() {
            return List.copyOf(stored.values());
        }

        @Override
        public void store(TransactionRecord record) {
            stored.put(record.transactionalId(), record);
        }

        @Override
        public void delete(String id, long revision) {
            stored.remove(id);
        }
    };

    private final TransactionCoordinator coordinator = new TransactionCoordinator(
            store,
            () -> nextProducerId++,
            (m, ack) -> markers.add(m),
            TransactionConfig.DEFAULTS,
            () -> 1_000_000L,
            () -> 3);

    private final Map<ApiKeys, RequestHandler> handlers = new TreeMap<>();

    TransactionHandlersTest() {
        for (RequestHandler h :
                TransactionHandlers.all(new TransactionHandlers.Context(coordinator, leader::get, () -> image))) {
            handlers.put(h.versions().apiKey(), h);
        }
    }

    private AbstractResponse send(AbstractRequest.Builder<?> builder, int version) {
        AbstractRequest built = builder.build((short) version);
        return send(built.apiKey(), built.version(), built.serialize());
    }

    /** Sends a request's bytes as they are (also what kafka-clients' builders refuse to build). */
    private AbstractResponse send(ApiKeys api, short version, ByteBufferAccessor bytes) {
        RequestHandler handler = handlers.get(api);
        assertThat(handler.versions().contains(version))
                .as("%s v%d advertised", api, version)
                .isTrue();
        AbstractRequest parsed = AbstractRequest.parseRequest(api, version, bytes).request;
        AbstractResponse response = handler.handle(new KafkaRequest(
                new RequestHeader(api, version, "producer", 1),
                parsed,
                new ConnectionInfo("c", new InetSocketAddress("127.0.0.1", 40000), "test")));
        var answer = MessageUtil.toByteBufferAccessor(response.data(), version).buffer();
        return AbstractResponse.parseResponse(api, new ByteBufferAccessor(answer), version);
    }

    private InitProducerIdResponse init(String id, int version) {
        return (InitProducerIdResponse) send(
                new InitProducerIdRequest.Builder(new InitProducerIdRequestData()
                        .setTransactionalId(id)
                        .setTransactionTimeoutMs(60_000)
                        .setProducerId(-1)
                        .setProducerEpoch((short) -1)),
                version);
    }

    private Map<TopicPartition, Errors> add(String id, long pid, short epoch, int version, TopicPartition... tps) {
        AddPartitionsToTxnResponse r = (AddPartitionsToTxnResponse)
                send(AddPartitionsToTxnRequest.Builder.forClient(id, pid, epoch, List.of(tps)), version);
        return r.errors().getOrDefault(AddPartitionsToTxnResponse.V3_AND_BELOW_TXN_ID, Map.of());
    }

    private Errors end(String id, long pid, short epoch, boolean commit, int version) {
        return ((EndTxnResponse) send(
                        new EndTxnRequest.Builder(
                                new EndTxnRequestData()
                                        .setTransactionalId(id)
                                        .setProducerId(pid)
                                        .setProducerEpoch(epoch)
                                        .setCommitted(commit),
                                false),
                        version))
                .error();
    }

    private Errors addOffsets(String id, long pid, short epoch, String group, int version) {
        AddOffsetsToTxnResponse r = (AddOffsetsToTxnResponse) send(
                new AddOffsetsToTxnRequest.Builder(new AddOffsetsToTxnRequestData()
                        .setTransactionalId(id)
                        .setProducerId(pid)
                        .setProducerEpoch(epoch)
                        .setGroupId(group)),
                version);
        return Errors.forCode(r.data().errorCode());
    }

    @ParameterizedTest(name = "v{0}")
    @ValueSource(ints = {0, 1, 2, 3})
    void aTransactionIsCommittedThroughEveryVersion(int version) {
        InitProducerIdResponse first = init("txn", Math.min(version + 2, 5));
        assertThat(first.error()).isEqualTo(Errors.NONE);
        long pid = first.data().producerId();
        short epoch = first.data().producerEpoch();
        assertThat(epoch).isZero();
        TopicPartition t0 = new TopicPartition("t", 0);
        TopicPartition t1 = new TopicPartition("t", 1);
        assertThat(add("txn", pid, epoch, version, t0, t1))
                .containsOnly(Map.entry(t0, Errors.NONE), Map.entry(t1, Errors.NONE));
        assertThat(addOffsets("txn", pid, epoch, "g", version)).isEqualTo(Errors.NONE);
        assertThat(end("txn", pid, epoch, true, version)).isEqualTo(Errors.NONE);
        assertThat(stored.get("txn").state()).isEqualTo(TransactionState.PREPARE_COMMIT);
        assertThat(stored.get("txn").groups()).containsExactly("g");
        assertThat(markers).singleElement().satisfies(m -> {
            assertThat(m.commit()).isTrue();
            assertThat(m.coordinatorEpoch()).isEqualTo(3);
            assertThat(m.partitions())
                    .containsExactlyInAnyOrder(
                            new io.tributary.coordinator.metadata.TopicPartition("t", 0),
                            new io.tributary.coordinator.metadata.TopicPartition("t", 1));
        });
        assertThat(end("txn", pid, epoch, true, version))
                .as("a retry while the markers are written")
                .isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
        assertThat(end("txn", pid, epoch, false, version)).isEqualTo(Errors.INVALID_TXN_STATE);
    }

    @Test
    void aSecondInstanceFencesTheFirstAndAbortsItsTransaction() {
        InitProducerIdResponse first = init("txn", 4);
        long pid = first.data().producerId();
        short epoch = first.data().producerEpoch();
        TopicPartition t0 = new TopicPartition("t", 0);
        assertThat(add("txn", pid, epoch, 3, t0)).containsOnly(Map.entry(t0, Errors.NONE));
        assertThat(init("txn", 4).error())
                .as("the open transaction is aborted first")
                .isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
        assertThat(markers).singleElement().satisfies(m -> {
            assertThat(m.commit()).isFalse();
            assertThat(m.producerEpoch()).isEqualTo((short) (epoch + 1));
        });
        assertThat(add("txn", pid, epoch, 3, t0)).containsOnly(Map.entry(t0, Errors.PRODUCER_FENCED));
        assertThat(end("txn", pid, epoch, true, 3)).isEqualTo(Errors.PRODUCER_FENCED);
        assertThat(add("txn", pid + 1, epoch, 3, t0)).containsOnly(Map.entry(t0, Errors.INVALID_PRODUCER_ID_MAPPING));
    }

    @Test
    void unknownPartitionsAreNamedAndTheOthersNotAttempted() {
        InitProducerIdResponse first = init("txn", 5);
        long pid = first.data().producerId();
        TopicPartition good = new TopicPartition("t", 1);
        TopicPartition beyond = new TopicPartition("t", 2);
        TopicPartition missing = new TopicPartition("nope", 0);
        assertThat(add("txn", pid, (short) 0, 3, good, beyond, missing))
                .containsOnly(
                        Map.entry(good, Errors.OPERATION_NOT_ATTEMPTED),
                        Map.entry(beyond, Errors.UNKNOWN_TOPIC_OR_PARTITION),
                        Map.entry(missing, Errors.UNKNOWN_TOPIC_OR_PARTITION));
        assertThat(stored.get("txn").state()).isEqualTo(TransactionState.EMPTY);
    }

    @Test
    void addingNoPartitionChangesNothing() {
        InitProducerIdResponse first = init("txn", 4);
        assertThat(add("txn", first.data().producerId(), (short) 0, 3)).isEmpty();
        assertThat(stored.get("txn").state()).isEqualTo(TransactionState.EMPTY);
    }

    @Test
    void badRequestsAndANonLeaderAreRefused() {
        InitProducerIdRequestData empty = new InitProducerIdRequestData()
                .setTransactionalId("")
                .setTransactionTimeoutMs(60_000)
                .setProducerId(-1)
                .setProducerEpoch((short) -1);
        InitProducerIdResponse emptyId = (InitProducerIdResponse)
                send(ApiKeys.INIT_PRODUCER_ID, (short) 4, MessageUtil.toByteBufferAccessor(empty, (short) 4));
        assertThat(emptyId.error()).isEqualTo(Errors.INVALID_REQUEST);
        InitProducerIdResponse halfKnown = (InitProducerIdResponse) send(
                new InitProducerIdRequest.Builder(new InitProducerIdRequestData()
                        .setTransactionalId("txn")
                        .setTransactionTimeoutMs(60_000)
                        .setProducerId(5)
                        .setProducerEpoch((short) -1)),
                4);
        assertThat(halfKnown.error()).isEqualTo(Errors.INVALID_REQUEST);
        InitProducerIdResponse tooLong = (InitProducerIdResponse) send(
                new InitProducerIdRequest.Builder(new InitProducerIdRequestData()
                        .setTransactionalId("txn")
                        .setTransactionTimeoutMs(900_001)
                        .setProducerId(-1)
                        .setProducerEpoch((short) -1)),
                4);
        assertThat(tooLong.error()).isEqualTo(Errors.INVALID_TRANSACTION_TIMEOUT);
        InitProducerIdResponse idempotent = init(null, 4);
        assertThat(idempotent.error()).isEqualTo(Errors.NONE);
        assertThat(idempotent.data().producerEpoch()).isZero();
        assertThat(addOffsets("txn", 1, (short) 0, "", 4)).isEqualTo(Errors.INVALID_GROUP_ID);
        assertThat(end("unknown", 1, (short) 0, true, 4)).isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING);

        leader.set(false);
        assertThat(init("txn", 4).error()).isEqualTo(Errors.NOT_COORDINATOR);
        TopicPartition t0 = new TopicPartition("t", 0);
        assertThat(add("txn", 1, (short) 0, 3, t0)).containsOnly(Map.entry(t0, Errors.NOT_COORDINATOR));
        assertThat(addOffsets("txn", 1, (short) 0, "g", 4)).isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(end("txn", 1, (short) 0, true, 4)).isEqualTo(Errors.NOT_COORDINATOR);
    }
}
