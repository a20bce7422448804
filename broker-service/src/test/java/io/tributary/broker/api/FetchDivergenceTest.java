package io.tributary.broker.api;

import static io.tributary.broker.api.DataPathFixture.REPLICATED;
import static io.tributary.broker.api.DataPathFixture.produceRequest;
import static io.tributary.broker.api.DataPathFixture.records;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The leader's side of KIP-320 for follower 1 of {@code replicated} (led by broker 0 in epoch 1). */
class FetchDivergenceTest {

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

    private FetchResponseData.PartitionData followerFetch(long offset, int lastFetchedEpoch) {
        var topic = new FetchRequestData.FetchTopic().setTopic("replicated");
        topic.partitions()
                .add(new FetchRequestData.FetchPartition()
                        .setPartition(0)
                        .setFetchOffset(offset)
                        .setPartitionMaxBytes(1 << 20)
                        .setCurrentLeaderEpoch(1)
                        .setLastFetchedEpoch(lastFetchedEpoch));
        var data = new FetchRequestData()
                .setReplicaId(1)
                .setMaxWaitMs(0)
                .setMinBytes(0)
                .setMaxBytes(1 << 20)
                .setSessionEpoch(-1);
        data.topics().add(topic);
        return broker.call(broker.fetch, new FetchRequest(data, (short) 12), FetchResponse.class)
                .data()
                .responses()
                .getFirst()
                .partitions()
                .getFirst();
    }

    @Test
    void aFollowerAheadInAnEpochTheLeaderHasLearnsWhereItEnds() {
        var produced = broker.call(
                broker.produce,
                produceRequest(9, (short) 1, 30_000, "replicated", REPLICATED, 0, records(4)),
                ProduceResponse.class);
        assertThat(produced.data()
                        .responses()
                        .iterator()
                        .next()
                        .partitionResponses()
                        .getFirst()
                        .errorCode())
                .isZero();

        var answer = followerFetch(6, 1);

        assertThat(FetchResponse.isDivergingEpoch(answer)).isTrue();
        assertThat(answer.divergingEpoch().epoch()).isEqualTo(1);
        assertThat(answer.divergingEpoch().endOffset()).isEqualTo(4);
        assertThat(FetchResponse.recordsSize(answer)).isZero();
    }

    @Test
    void aLeaderWithoutEpochsAnswersOutOfRangeRatherThanAnUndefinedDivergence() {
        var answer = followerFetch(6, 0);

        assertThat(FetchResponse.isDivergingEpoch(answer)).isFalse();
        assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.OFFSET_OUT_OF_RANGE);
        assertThat(answer.highWatermark()).isZero();
        assertThat(answer.logStartOffset()).isZero();
    }
}
