package io.tributary.broker.api;

import static io.tributary.broker.api.DataPathFixture.REPLICATED;
import static io.tributary.broker.api.DataPathFixture.fetchRequest;
import static io.tributary.broker.api.DataPathFixture.produceRequest;
import static io.tributary.broker.api.DataPathFixture.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.broker.api.DataPathFixture.Fetch;
import io.tributary.broker.replication.Partition;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker that is not active (fenced by the coordinators, or cut off from them past its session)
 * acknowledges no acks=all produce and does not advance a high watermark as leader.
 */
class FencedLeaderTest {

    @TempDir
    Path dir;

    private DataPathFixture broker;

    @BeforeEach
    void open() {
        broker = new DataPathFixture(dir);
    }

    @AfterEach
    void close() {
        broker.close();
    }

    private ProduceResponseData.PartitionProduceResponse produce(ProduceRequest request) {
        ProduceResponse response = broker.call(broker.produce, request, ProduceResponse.class);
        return response.data()
                .responses()
                .iterator()
                .next()
                .partitionResponses()
                .getFirst();
    }

    @Test
    void aLeaderFencedWhileWaitingForTheIsrDoesNotAcknowledge() throws Exception {
        var pending = CompletableFuture.supplyAsync(
                () -> produce(produceRequest(9, (short) -1, 60_000, "replicated", REPLICATED, 0, records(2))));
        Partition partition = broker.partition("replicated", 0);
        await().until(() -> partition.log().logEndOffset() == 2);

        broker.metadata.setActive(false);
        partition.recordFollowerFetch(1, 2);

        assertThat(Errors.forCode(pending.get().errorCode())).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
    }

    @Test
    void aFencedLeaderRefusesProduceAndItsFollowersFetchesSoItsHighWatermarkStays() {
        var appended = produce(produceRequest(9, (short) 1, 30_000, "replicated", REPLICATED, 0, records(3)));
        assertThat(Errors.forCode(appended.errorCode())).isEqualTo(Errors.NONE);
        Partition partition = broker.partition("replicated", 0);
        assertThat(partition.highWatermark()).isZero();

        broker.metadata.setActive(false);

        var refused = produce(produceRequest(9, (short) -1, 30_000, "replicated", REPLICATED, 0, records(1)));
        assertThat(Errors.forCode(refused.errorCode())).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        FetchResponse fetched = broker.call(
                broker.fetch,
                fetchRequest(12, 1, 0, 1, 1024 * 1024, new Fetch("replicated", REPLICATED, 0, 3)),
                FetchResponse.class);
        assertThat(Errors.forCode(fetched.data()
                        .responses()
                        .getFirst()
                        .partitions()
                        .getFirst()
                        .errorCode()))
                .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        assertThat(partition.highWatermark()).isZero();
        assertThat(partition.log().logEndOffset()).isEqualTo(3);
    }
}
