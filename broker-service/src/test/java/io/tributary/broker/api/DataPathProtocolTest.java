package io.tributary.broker.api;

import static io.tributary.broker.api.DataPathFixture.ORDERS;
import static io.tributary.broker.api.DataPathFixture.ORDERS_EPOCH;
import static io.tributary.broker.api.DataPathFixture.REMOTE;
import static io.tributary.broker.api.DataPathFixture.fetchRequest;
import static io.tributary.broker.api.DataPathFixture.idempotent;
import static io.tributary.broker.api.DataPathFixture.produceRequest;
import static io.tributary.broker.api.DataPathFixture.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.broker.api.DataPathFixture.Fetch;
import io.tributary.common.protocol.KafkaProtocolServer;
import io.tributary.common.protocol.ProtocolMetrics;
import io.tributary.common.protocol.ProtocolServerConfig;
import io.tributary.common.testing.KafkaTestConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteRecordsResponse;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data path over the wire: common's Kafka listener on 127.0.0.1 with the five handlers, a fixed
 * cluster image, and requests written and responses parsed by kafka-clients' own classes.
 */
class DataPathProtocolTest {

    @TempDir
    Path dir;

    private DataPathFixture broker;
    private KafkaProtocolServer server;

    @BeforeEach
    void start() {
        startBroker();
    }

    private void startBroker() {
        broker = new DataPathFixture(dir);
        server = new KafkaProtocolServer(
                ProtocolServerConfig.defaults("test", "127.0.0.1", 0),
                broker.handlers(),
                new ProtocolMetrics(new SimpleMeterRegistry(), "test"));
        server.start();
    }

    @AfterEach
    void stop() {
        server.close();
        broker.close();
    }

    private void restartBroker() {
        stop();
        startBroker();
    }

    private KafkaTestConnection connect() throws Exception {
        return KafkaTestConnection.open(server.port());
    }

    private static ProduceResponseData.PartitionProduceResponse produced(ProduceResponse response) {
        return response.data()
                .responses()
                .iterator()
                .next()
                .partitionResponses()
                .getFirst();
    }

    private static FetchResponseData.PartitionData fetched(FetchResponse response) {
        return response.data().responses().getFirst().partitions().getFirst();
    }

    static List<String> values(FetchResponseData.PartitionData data) {
        List<String> values = new ArrayList<>();
        for (RecordBatch batch : ((Records) data.records()).batches()) {
            for (Record record : batch) {
                values.add(record.offset() + "=" + StandardCharsets.US_ASCII.decode(record.value()));
            }
        }
        return values;
    }

    @Test
    void apiVersionsAdvertisesTheDataPathApis() throws Exception {
        try (var connection = connect()) {
            var keys = connection.apiVersions().data().apiKeys();

            assertThat(keys)
                    .extracting(
                            ApiVersionsResponseData.ApiVersion::apiKey,
                            ApiVersionsResponseData.ApiVersion::minVersion,
                            ApiVersionsResponseData.ApiVersion::maxVersion)
                    .contains(
                            tuple(ApiKeys.PRODUCE.id, (short) 0, (short) 13),
                            tuple(ApiKeys.FETCH.id, (short) 4, (short) 18),
                            tuple(ApiKeys.LIST_OFFSETS.id, (short) 1, (short) 11),
                            tuple(ApiKeys.OFFSET_FOR_LEADER_EPOCH.id, (short) 2, (short) 4),
                            tuple(ApiKeys.DELETE_RECORDS.id, (short) 0, (short) 2));
        }
    }

    @Test
    void producedRecordsComeBackWithDenseOffsetsThroughTheSocket() throws Exception {
        try (var connection = connect()) {
            List<Long> bases = new ArrayList<>();
            for (int count : new int[] {3, 1, 2}) {
                bases.add(produced(connection.roundTrip(
                                produceRequest(9, (short) 1, 30_000, "orders", ORDERS, 0, records(count)),
                                ProduceResponse.class))
                        .baseOffset());
            }

            var data = fetched(connection.roundTrip(
                    fetchRequest(13, -1, 0, 0, Integer.MAX_VALUE, new Fetch("", ORDERS, 0, 0)), FetchResponse.class));

            assertThat(bases).containsExactly(0L, 3L, 4L);
            assertThat(values(data)).containsExactly("0=v0", "1=v1", "2=v2", "3=v0", "4=v0", "5=v1");
            assertThat(data.highWatermark()).isEqualTo(6);
        }
    }

    @Test
    void aDuplicateIdempotentBatchGetsItsOriginalOffsetsAndAGapIsOutOfOrder() throws Exception {
        try (var connection = connect()) {
            connection.roundTrip(
                    produceRequest(11, (short) -1, 30_000, "orders", ORDERS, 0, idempotent(9, 0, 0, 4)),
                    ProduceResponse.class);
            var first = produced(connection.roundTrip(
                    produceRequest(11, (short) -1, 30_000, "orders", ORDERS, 0, idempotent(9, 0, 4, 2)),
                    ProduceResponse.class));

            var retry = produced(connection.roundTrip(
                    produceRequest(11, (short) -1, 30_000, "orders", ORDERS, 0, idempotent(9, 0, 4, 2)),
                    ProduceResponse.class));
            var gap = produced(connection.roundTrip(
                    produceRequest(11, (short) -1, 30_000, "orders", ORDERS, 0, idempotent(9, 0, 8, 1)),
                    ProduceResponse.class));

            assertThat(first.baseOffset()).isEqualTo(4);
            assertThat(Errors.forCode(retry.errorCode())).isEqualTo(Errors.NONE);
            assertThat(retry.baseOffset()).isEqualTo(4);
            assertThat(Errors.forCode(gap.errorCode())).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
            assertThat(broker.partition("orders", 0).log().logEndOffset()).isEqualTo(6);
        }
    }

    @Test
    void theProducerStateSurvivesARestart() throws Exception {
        try (var connection = connect()) {
            connection.roundTrip(
                    produceRequest(9, (short) 1, 30_000, "orders", ORDERS, 1, idempotent(21, 3, 0, 2)),
                    ProduceResponse.class);
        }
        restartBroker();
        try (var connection = connect()) {
            var retry = produced(connection.roundTrip(
                    produceRequest(9, (short) 1, 30_000, "orders", ORDERS, 1, idempotent(21, 3, 0, 2)),
                    ProduceResponse.class));
            var gap = produced(connection.roundTrip(
                    produceRequest(9, (short) 1, 30_000, "orders", ORDERS, 1, idempotent(21, 3, 5, 1)),
                    ProduceResponse.class));

            assertThat(Errors.forCode(retry.errorCode())).isEqualTo(Errors.NONE);
            assertThat(retry.baseOffset()).isZero();
            assertThat(Errors.forCode(gap.errorCode())).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
            assertThat(broker.partition("orders", 1).log().logEndOffset()).isEqualTo(2);
        }
    }

    @Test
    void aLongPollFetchIsAnsweredWhenAnotherConnectionProduces() throws Exception {
        try (var consumer = connect();
                var producer = connect()) {
            RequestHeader header = consumer.send(
                    fetchRequest(12, -1, 60_000, 1, Integer.MAX_VALUE, new Fetch("orders", ORDERS, 0, 0)));
            var partition = broker.partition("orders", 0);
            await().until(() -> partition.changeSignal().getNumberOfDependents() > 0);

            producer.roundTrip(
                    produceRequest(9, (short) 1, 30_000, "orders", ORDERS, 0, records(2)), ProduceResponse.class);

            assertThat(values(fetched(consumer.receive(header, FetchResponse.class))))
                    .containsExactly("0=v0", "1=v1");
        }
    }

    @Test
    void acksZeroGetsNoResponseAndTheConnectionGoesOn() throws Exception {
        try (var connection = connect()) {
            connection.send(produceRequest(9, (short) 0, 30_000, "orders", ORDERS, 0, records(3)));

            // The next response on the connection is the fetch's: the produce got none.
            var data = fetched(connection.roundTrip(
                    fetchRequest(12, -1, 0, 0, Integer.MAX_VALUE, new Fetch("orders", ORDERS, 0, 0)),
                    FetchResponse.class));
            assertThat(values(data)).hasSize(3);
        }
    }

    @Test
    void aFailedAcksZeroProduceClosesTheConnection() throws Exception {
        try (var connection = connect()) {
            connection.send(produceRequest(9, (short) 0, 30_000, "remote", REMOTE, 0, records(1)));

            assertThat(connection.closedByServer()).isTrue();
        }
    }

    @Test
    void offsetsAndDeletionOverTheWire() throws Exception {
        try (var connection = connect()) {
            connection.roundTrip(
                    produceRequest(9, (short) 1, 30_000, "orders", ORDERS, 0, records(5)), ProduceResponse.class);
            var deleteData = new DeleteRecordsRequestData().setTimeoutMs(1000);
            var deleteTopic = new DeleteRecordsRequestData.DeleteRecordsTopic().setName("orders");
            deleteTopic
                    .partitions()
                    .add(new DeleteRecordsRequestData.DeleteRecordsPartition()
                            .setPartitionIndex(0)
                            .setOffset(2));
            deleteData.topics().add(deleteTopic);

            var deleted = connection.roundTrip(
                    new DeleteRecordsRequest.Builder(deleteData).build((short) 2), DeleteRecordsResponse.class);
            var listTopic = new ListOffsetsRequestData.ListOffsetsTopic().setName("orders");
            listTopic
                    .partitions()
                    .add(new ListOffsetsRequestData.ListOffsetsPartition()
                            .setPartitionIndex(0)
                            .setTimestamp(ListOffsetsRequest.EARLIEST_TIMESTAMP)
                            .setCurrentLeaderEpoch(ORDERS_EPOCH));
            var listed = connection.roundTrip(
                    ListOffsetsRequest.Builder.forConsumer(false, IsolationLevel.READ_COMMITTED)
                            .setTargetTimes(List.of(listTopic))
                            .build((short) 11),
                    ListOffsetsResponse.class);
            var outOfRange = fetched(connection.roundTrip(
                    fetchRequest(12, -1, 0, 0, Integer.MAX_VALUE, new Fetch("orders", ORDERS, 0, 0)),
                    FetchResponse.class));

            assertThat(deleted.data()
                            .topics()
                            .find("orders")
                            .partitions()
                            .find(0)
                            .lowWatermark())
                    .isEqualTo(2);
            assertThat(listed.topics().getFirst().partitions().getFirst().offset())
                    .isEqualTo(2);
            assertThat(Errors.forCode(outOfRange.errorCode())).isEqualTo(Errors.OFFSET_OUT_OF_RANGE);
            assertThat(outOfRange.logStartOffset()).isEqualTo(2);
        }
    }

    @Test
    void notLeaderAndFencedEpochsOverTheWire() throws Exception {
        try (var connection = connect()) {
            var notLeader = produced(connection.roundTrip(
                    produceRequest(13, (short) 1, 30_000, "remote", REMOTE, 0, records(1)), ProduceResponse.class));
            var fenced = fetched(connection.roundTrip(
                    fetchRequest(17, -1, 0, 0, Integer.MAX_VALUE, new Fetch("", ORDERS, 0, 0, 1024, ORDERS_EPOCH - 1)),
                    FetchResponse.class));

            assertThat(Errors.forCode(notLeader.errorCode())).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
            assertThat(notLeader.currentLeader().leaderId()).isEqualTo(1);
            assertThat(Errors.forCode(fenced.errorCode())).isEqualTo(Errors.FENCED_LEADER_EPOCH);
        }
    }

    @Test
    void aRequestForAProduceVersionBelowTheServedOnesClosesTheConnection() throws Exception {
        try (var connection = connect()) {
            // Advertised from v0 for librdkafka's sake, but v2 is not served.
            var request = produceRequest(3, (short) 1, 30_000, "orders", ORDERS, 0, records(1));
            var frame = request.serializeWithHeader(new RequestHeader(ApiKeys.PRODUCE, (short) 3, "test", 1));
            // The header's request_api_version (int16 at byte 2) becomes 2.
            frame.putShort(2, (short) 2);

            connection.writeFrame(frame);

            assertThat(connection.closedByServer()).isTrue();
            assertThat(broker.partition("orders", 0).log().logEndOffset()).isZero();
        }
    }
}
