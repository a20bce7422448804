package io.tributary.broker.api;

import static io.tributary.broker.api.DataPathFixture.ORDERS;
import static io.tributary.broker.api.DataPathFixture.REMOTE;
import static io.tributary.broker.api.DataPathFixture.idempotent;
import static io.tributary.broker.api.DataPathFixture.produceRequest;
import static io.tributary.broker.api.DataPathFixture.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.TopicInfo;
import io.tributary.broker.testing.FixedMetadataView;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ProduceHandlerTest {

    @TempDir
    Path dir;

    private DataPathFixture broker;

    @BeforeEach
    void start() {
        broker = new DataPathFixture(dir);
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private ProduceResponseData.PartitionProduceResponse produce(
            int version, short acks, String topic, Uuid id, int partition, MemoryRecords records) {
        return broker.produceOne(produceRequest(version, acks, 30_000, topic, id, partition, records));
    }

    @ParameterizedTest(name = "Produce v{0}")
    @ValueSource(ints = {3, 9, 12, 13})
    void offsetsAreDenseAcrossRequests(int version) {
        var first = produce(version, (short) 1, "orders", ORDERS, 0, records(3));
        var second = produce(version, (short) 1, "orders", ORDERS, 0, records(2));

        assertThat(Errors.forCode(first.errorCode())).isEqualTo(Errors.NONE);
        assertThat(first.baseOffset()).isZero();
        assertThat(second.baseOffset()).isEqualTo(3);
        assertThat(second.logStartOffset()).isZero();
        assertThat(broker.partition("orders", 0).log().logEndOffset()).isEqualTo(5);
    }

    @Test
    void aRetriedIdempotentBatchGetsItsOriginalOffsets() {
        produce(9, (short) -1, "orders", ORDERS, 0, idempotent(77, 0, 0, 2));
        var original = produce(9, (short) -1, "orders", ORDERS, 0, idempotent(77, 0, 2, 3));

        var retry = produce(9, (short) -1, "orders", ORDERS, 0, idempotent(77, 0, 2, 3));

        assertThat(Errors.forCode(retry.errorCode())).isEqualTo(Errors.NONE);
        assertThat(retry.baseOffset()).isEqualTo(original.baseOffset()).isEqualTo(2);
        assertThat(broker.partition("orders", 0).log().logEndOffset()).isEqualTo(5);
    }

    @Test
    void aSequenceGapIsOutOfOrder() {
        produce(9, (short) 1, "orders", ORDERS, 0, idempotent(77, 0, 0, 2));

        var gap = produce(9, (short) 1, "orders", ORDERS, 0, idempotent(77, 0, 5, 1));

        assertThat(Errors.forCode(gap.errorCode())).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
    }

    @Test
    void anOlderProducerEpochIsInvalid() {
        produce(9, (short) 1, "orders", ORDERS, 0, idempotent(77, 3, 0, 1));

        var stale = produce(9, (short) 1, "orders", ORDERS, 0, idempotent(77, 2, 1, 1));

        assertThat(Errors.forCode(stale.errorCode())).isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
    }

    @Test
    void transactionalBatchesAreUnsupported() {
        MemoryRecords transactional = MemoryRecords.withTransactionalRecords(
                Compression.NONE, 77, (short) 0, 0, new SimpleRecord("x".getBytes()));

        var answer = produce(9, (short) 1, "orders", ORDERS, 0, transactional);

        assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.UNSUPPORTED_FOR_MESSAGE_FORMAT);
    }

    @Test
    void unknownTopicsAndPartitionsAreNamed() {
        assertThat(Errors.forCode(
                        produce(9, (short) 1, "nope", null, 0, records(1)).errorCode()))
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(Errors.forCode(
                        produce(9, (short) 1, "orders", ORDERS, 7, records(1)).errorCode()))
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(Errors.forCode(produce(13, (short) 1, "", new Uuid(99, 99), 0, records(1))
                        .errorCode()))
                .isEqualTo(Errors.UNKNOWN_TOPIC_ID);
    }

    @Test
    void aFollowerAnswersNotLeaderWithTheLeaderAndItsEndpoint() {
        ProduceResponse response = broker.call(
                broker.produce,
                produceRequest(10, (short) 1, 30_000, "remote", REMOTE, 0, records(1)),
                ProduceResponse.class);

        var partition = response.data()
                .responses()
                .iterator()
                .next()
                .partitionResponses()
                .getFirst();
        assertThat(Errors.forCode(partition.errorCode())).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        assertThat(partition.currentLeader().leaderId()).isEqualTo(1);
        assertThat(partition.currentLeader().leaderEpoch()).isEqualTo(2);
        assertThat(response.data().nodeEndpoints()).singleElement().satisfies(node -> {
            assertThat(node.nodeId()).isEqualTo(1);
            assertThat(node.port()).isEqualTo(DataPathFixture.OTHER_BROKER_PORT);
        });
    }

    @Test
    void aFencedOrUnregisteredBrokerLeadsNothing() {
        broker.metadata.setActive(false);

        var answer = produce(9, (short) 1, "orders", ORDERS, 0, records(1));

        assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        assertThat(broker.partition("orders", 0).log().logEndOffset()).isZero();
    }

    @Test
    void acksAllWithTheLeaderAloneInTheIsrCompletesAtOnce() {
        var answer = produce(9, (short) -1, "orders", ORDERS, 0, records(2));

        assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.NONE);
        assertThat(broker.partition("orders", 0).highWatermark()).isEqualTo(2);
    }

    @Test
    void acksAllBelowMinInsyncReplicasIsRefusedBeforeAppending() {
        var answer = produce(9, (short) -1, "strict", DataPathFixture.STRICT, 0, records(1));

        assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.NOT_ENOUGH_REPLICAS);
        assertThat(broker.partition("strict", 0).log().logEndOffset()).isZero();
        // acks=1 does not need the ISR.
        assertThat(Errors.forCode(produce(9, (short) 1, "strict", DataPathFixture.STRICT, 0, records(1))
                        .errorCode()))
                .isEqualTo(Errors.NONE);
    }

    @Test
    void minInsyncReplicasAboveTheReplicaCountIsCappedAtItAsKafkaDoes() {
        // one replica, min.insync.replicas=2: Kafka 4 takes acks=all (the effective minimum is the
        // replica count); refusing with NOT_ENOUGH_REPLICAS would refuse every acks=all write for ever
        var answer = produce(9, (short) -1, "lonely", DataPathFixture.LONELY, 0, records(2));

        assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.NONE);
        assertThat(broker.partition("lonely", 0).highWatermark()).isEqualTo(2);
    }

    @Test
    void acksAllTimesOutWhenTheIsrDoesNotCatchUp() {
        var answer = broker.produceOne(
                produceRequest(9, (short) -1, 0, "replicated", DataPathFixture.REPLICATED, 0, records(1)));

        assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.REQUEST_TIMED_OUT);
    }

    @Test
    void acksAllCompletesWhenTheFollowerFetchesPastTheBatch() throws Exception {
        var pending = CompletableFuture.supplyAsync(() -> broker.produceOne(
                produceRequest(9, (short) -1, 60_000, "replicated", DataPathFixture.REPLICATED, 0, records(2))));
        var partition = broker.partition("replicated", 0);
        await().until(() -> partition.log().logEndOffset() == 2);

        partition.recordFollowerFetch(1, 2);

        assertThat(Errors.forCode(pending.get().errorCode())).isEqualTo(Errors.NONE);
    }

    @Test
    void badAcksAreInvalid() {
        assertThat(Errors.forCode(
                        produce(9, (short) 2, "orders", ORDERS, 0, records(1)).errorCode()))
                .isEqualTo(Errors.INVALID_REQUIRED_ACKS);
    }

    @Test
    void aCorruptBatchIsACorruptMessage() {
        MemoryRecords records = records(2);
        ByteBuffer buffer = records.buffer();
        int last = buffer.limit() - 1;
        buffer.put(last, (byte) (buffer.get(last) ^ 0xff));

        assertThat(Errors.forCode(
                        produce(9, (short) 1, "orders", ORDERS, 0, records).errorCode()))
                .isEqualTo(Errors.CORRUPT_MESSAGE);
    }

    @Test
    void twoBatchesInOnePartitionAreAnInvalidRecord() {
        MemoryRecords one = records(1);
        MemoryRecords two = records(1);
        ByteBuffer both = ByteBuffer.allocate(one.sizeInBytes() + two.sizeInBytes());
        both.put(one.buffer().duplicate()).put(two.buffer().duplicate()).flip();

        var answer = produce(9, (short) 1, "orders", ORDERS, 0, MemoryRecords.readableRecords(both));

        assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.INVALID_RECORD);
    }

    /** Sets topic configs on "orders" through a new cluster image, as the coordinators would. */
    private void setOrdersConfigs(Map<String, String> configs) {
        ClusterImage image = broker.metadata.image();
        List<TopicInfo> topics = new ArrayList<>(DataPathFixture.topics());
        topics.set(0, FixedMetadataView.topic("orders", ORDERS, 2, List.of(0), 5, configs));
        ClusterImage next =
                FixedMetadataView.image(2, List.copyOf(image.brokers().values()), topics);
        broker.replicas.onImage(image, next);
        broker.metadata.setImage(next);
    }

    @Test
    void aBatchAboveTheTopicsMaxMessageBytesIsTooLarge() {
        setOrdersConfigs(Map.of("max.message.bytes", "100"));

        var answer = produce(9, (short) 1, "orders", ORDERS, 0, records(20));

        assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.MESSAGE_TOO_LARGE);
    }

    @Test
    void aRecordOlderThanTheTopicAllowsIsAnInvalidTimestampNamingItsIndexInTheBatch() {
        produce(9, (short) 1, "orders", ORDERS, 0, records(2));
        // the fixture's records are stamped in 1970, far more than an hour before the broker's clock
        setOrdersConfigs(Map.of("message.timestamp.before.max.ms", "3600000"));

        var answer = produce(9, (short) 1, "orders", ORDERS, 0, records(3));

        assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.INVALID_TIMESTAMP);
        assertThat(answer.errorMessage()).isEqualTo("One or more records have been rejected due to invalid timestamp");
        assertThat(answer.baseOffset()).isEqualTo(-1);
        assertThat(answer.logStartOffset()).isZero();
        assertThat(answer.recordErrors())
                .extracting(ProduceResponseData.BatchIndexAndErrorMessage::batchIndex)
                .containsExactly(0, 1, 2);
        assertThat(answer.recordErrors().getFirst().batchIndexErrorMessage())
                .startsWith("Timestamp 1000 of message with offset 0 is out of range. The timestamp should be"
                        + " within [")
                .endsWith("]");
        assertThat(broker.partition("orders", 0).log().logEndOffset()).isEqualTo(2);
    }

    @Test
    void byDefaultARecordMoreThanAnHourAheadIsAnInvalidTimestampAndItsBatchMatesAreNotWritten() {
        long year2100Ms = 4_102_444_800_000L;
        MemoryRecords records = MemoryRecords.withRecords(
                Compression.gzip().build(),
                new SimpleRecord(1_000L, "k".getBytes(), "now-ish".getBytes()),
                new SimpleRecord(year2100Ms, "k".getBytes(), "future".getBytes()));

        var answer = produce(13, (short) -1, "", ORDERS, 0, records);

        assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.INVALID_TIMESTAMP);
        assertThat(answer.recordErrors()).singleElement().satisfies(error -> {
            assertThat(error.batchIndex()).isEqualTo(1);
            assertThat(error.batchIndexErrorMessage())
                    .startsWith("Timestamp " + year2100Ms + " of message with offset 1 is out of range.");
        });
        assertThat(broker.partition("orders", 0).log().logEndOffset()).isZero();
    }

    @Test
    void recordsWithoutAKeyInACompactedTopicAreAnInvalidRecordNamingEachByItsIndexInTheBatch() {
        setOrdersConfigs(Map.of("cleanup.policy", "compact"));
        MemoryRecords records = MemoryRecords.withRecords(
                Compression.NONE,
                new SimpleRecord(1_000L, "k".getBytes(), "keyed".getBytes()),
                new SimpleRecord(1_000L, null, "keyless".getBytes()));

        var answer = produce(13, (short) -1, "", ORDERS, 0, records);

        String keyless = "Compacted topic cannot accept message without key in topic partition orders-0";
        assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.INVALID_RECORD);
        assertThat(answer.errorMessage())
                .isEqualTo("One or more records have been rejected due to 1 record errors in total, and only showing"
                        + " the first three errors at most: [RecordError(batchIndex=1, message='" + keyless + "')]");
        assertThat(answer.logStartOffset()).isZero();
        assertThat(answer.recordErrors()).singleElement().satisfies(error -> {
            assertThat(error.batchIndex()).isEqualTo(1);
            assertThat(error.batchIndexErrorMessage()).isEqualTo(keyless);
        });
        assertThat(broker.partition("orders", 0).log().logEndOffset()).isZero();
    }

    @Test
    void aLogAppendTimeTopicTakesAnyTimestamp() {
        setOrdersConfigs(Map.of(
                "message.timestamp.type", "LogAppendTime",
                "message.timestamp.before.max.ms", "0",
                "message.timestamp.after.max.ms", "0"));

        var answer = produce(9, (short) 1, "orders", ORDERS, 0, records(2));

        assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.NONE);
        assertThat(answer.recordErrors()).isEmpty();
        assertThat(answer.logAppendTimeMs()).isPositive();
    }
}
