package io.tributary.broker.api;

import static io.tributary.broker.api.DataPathFixture.ORDERS;
import static io.tributary.broker.api.DataPathFixture.fetchRequest;
import static io.tributary.broker.api.DataPathFixture.produceRequest;
import static io.tributary.broker.api.DataPathFixture.records;
import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.protocol.ConnectionInfo;
import io.tributary.common.protocol.KafkaRequest;
import io.tributary.common.protocol.RequestHandler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.network.Send;
import org.apache.kafka.common.network.TransferableChannel;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteRecordsResponse;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every data-path handler answers at every version it advertises, through kafka-clients' codec
 * ({@link Wire}): a response field that a version cannot carry fails here, not on a client's
 * connection (ListOffsets below v4 has no leader epoch, for example).
 */
class DataPathVersionsTest {

    @TempDir
    Path dir;

    private DataPathFixture broker;

    @BeforeEach
    void start() {
        broker = new DataPathFixture(dir);
        broker.partition("orders", 0).appendAsLeader(records(3));
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    @Test
    void produceAtEveryVersion() {
        for (short v = broker.produce.versions().minVersion();
                v <= broker.produce.versions().maxVersion();
                v++) {
            ProduceResponse response =
                    Wire.call(broker.produce, produceRequest(v, (short) 1, 1000, "orders", ORDERS, 0, records(2)));
            var partition = response.data()
                    .responses()
                    .iterator()
                    .next()
                    .partitionResponses()
                    .getFirst();
            assertThat(Errors.forCode(partition.errorCode())).as("v" + v).isEqualTo(Errors.NONE);
        }
    }

    @Test
    void fetchAtEveryVersion() throws IOException {
        for (short v = broker.fetch.versions().minVersion();
                v <= broker.fetch.versions().maxVersion();
                v++) {
            FetchResponse response = viaSend(
                    broker.fetch,
                    fetchRequest(v, -1, 0, 1, 1024 * 1024, new DataPathFixture.Fetch("orders", ORDERS, 0, 0)));
            var partition = response.data().responses().getFirst().partitions().getFirst();
            assertThat(Errors.forCode(partition.errorCode())).as("v" + v).isEqualTo(Errors.NONE);
            assertThat(partition.highWatermark()).as("v" + v).isEqualTo(3);
            assertThat(FetchResponse.recordsOrFail(partition).sizeInBytes())
                    .as("v" + v)
                    .isPositive();
        }
    }

    /**
     * Calls {@code handler} and encodes its response as the listener does ({@code toSend}, which
     * writes file regions with {@code transferFrom}), then parses it back: {@link Wire}'s in-memory
     * codec cannot encode the file regions of a Fetch response.
     */
    private static FetchResponse viaSend(RequestHandler handler, AbstractRequest built) throws IOException {
        short v = built.version();
        AbstractRequest parsed = AbstractRequest.parseRequest(built.apiKey(), v, built.serialize()).request;
        RequestHeader header = new RequestHeader(built.apiKey(), v, "test-client", 7);
        AbstractResponse response = handler.handle(new KafkaRequest(
                header, parsed, new ConnectionInfo("test", new InetSocketAddress("127.0.0.1", 40000), "test")));
        Send send = response.toSend(header.toResponseHeader(), v);
        var out = new CollectingChannel();
        while (!send.completed()) {
            send.writeTo(out);
        }
        ByteBuffer bytes = ByteBuffer.wrap(out.bytes.toByteArray());
        bytes.getInt(); // the size prefix
        return (FetchResponse) AbstractResponse.parseResponse(bytes, header);
    }

    /** A channel that keeps what is written, including file regions. */
    private static final class CollectingChannel implements TransferableChannel {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        @Override
        public boolean hasPendingWrites() {
            return false;
        }

        @Override
        public long transferFrom(FileChannel fileChannel, long position, long count) throws IOException {
            ByteBuffer buffer = ByteBuffer.allocate((int) count);
            int read = fileChannel.read(buffer, position);
            bytes.write(buffer.array(), 0, Math.max(read, 0));
            return Math.max(read, 0);
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) {
            long written = 0;
            for (int i = offset; i < offset + length; i++) {
                written += write(srcs[i]);
            }
            return written;
        }

        @Override
        public long write(ByteBuffer[] srcs) {
            return write(srcs, 0, srcs.length);
        }

        @Override
        public int write(ByteBuffer src) {
            int n = src.remaining();
            byte[] chunk = new byte[n];
            src.get(chunk);
            bytes.write(chunk, 0, n);
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {}
    }

    @Test
    void listOffsetsAtEveryVersion() {
        for (short v = broker.listOffsets.versions().minVersion();
                v <= broker.listOffsets.versions().maxVersion();
                v++) {
            for (long timestamp :
                    new long[] {ListOffsetsRequest.EARLIEST_TIMESTAMP, ListOffsetsRequest.LATEST_TIMESTAMP, 0L}) {
                var topic = new ListOffsetsRequestData.ListOffsetsTopic().setName("orders");
                topic.partitions()
                        .add(new ListOffsetsRequestData.ListOffsetsPartition()
                                .setPartitionIndex(0)
                                .setTimestamp(timestamp)
                                .setCurrentLeaderEpoch(-1));
                ListOffsetsRequest request = ListOffsetsRequest.Builder.forConsumer(
                                false, IsolationLevel.READ_UNCOMMITTED)
                        .setTargetTimes(List.of(topic))
                        .build(v);
                ListOffsetsResponse response = Wire.call(broker.listOffsets, request);
                var partition = response.topics().getFirst().partitions().getFirst();
                assertThat(Errors.forCode(partition.errorCode()))
                        .as("v%d at %d", v, timestamp)
                        .isEqualTo(Errors.NONE);
                assertThat(partition.offset())
                        .as("v%d at %d", v, timestamp)
                        .isEqualTo(timestamp == ListOffsetsRequest.LATEST_TIMESTAMP ? 3 : 0);
            }
        }
    }

    @Test
    void offsetForLeaderEpochAtEveryVersion() {
        var handler = broker.offsetForLeaderEpoch;
        for (short v = handler.versions().minVersion(); v <= handler.versions().maxVersion(); v++) {
            // A replica id is in the request from v3 (the builders refuse v2, which a follower sends).
            var data =
                    DataPathFixture.ordersEpochEndData(v >= 3 ? 1 : OffsetsForLeaderEpochRequest.CONSUMER_REPLICA_ID);
            OffsetsForLeaderEpochResponse response = Wire.call(handler, new OffsetsForLeaderEpochRequest(data, v));
            var partition =
                    response.data().topics().iterator().next().partitions().getFirst();
            assertThat(Errors.forCode(partition.errorCode())).as("v" + v).isEqualTo(Errors.NONE);
            assertThat(partition.endOffset()).as("v" + v).isEqualTo(3);
        }
    }

    @Test
    void deleteRecordsAtEveryVersion() {
        var handler = broker.deleteRecords;
        for (short v = handler.versions().minVersion(); v <= handler.versions().maxVersion(); v++) {
            var data = DataPathFixture.deleteRecordsData("orders", 1);
            DeleteRecordsResponse response = Wire.call(handler, new DeleteRecordsRequest.Builder(data).build(v));
            var partition = DataPathFixture.onlyPartition(response);
            assertThat(Errors.forCode(partition.errorCode())).as("v" + v).isEqualTo(Errors.NONE);
            assertThat(partition.lowWatermark()).as("v" + v).isEqualTo(1);
        }
    }
}
