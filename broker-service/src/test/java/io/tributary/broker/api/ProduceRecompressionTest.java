package io.tributary.broker.api;

import static io.tributary.broker.api.DataPathFixture.ME;
import static io.tributary.broker.api.DataPathFixture.ORDERS;
import static io.tributary.broker.api.DataPathFixture.ORDERS_EPOCH;
import static io.tributary.broker.api.DataPathFixture.OTHER_BROKER_PORT;
import static io.tributary.broker.api.DataPathFixture.produceRequest;
import static io.tributary.broker.testing.FixedMetadataView.broker;
import static io.tributary.broker.testing.FixedMetadataView.image;
import static io.tributary.broker.testing.FixedMetadataView.topic;
import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.TopicInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Produce to a topic whose {@code compression.type} is a codec: the leader stores the batch in
 * that codec, and the data-path metrics count the rewritten batch and its bytes in and out; a batch
 * already in the topic's codec is not counted.
 */
class ProduceRecompressionTest {

    @TempDir
    Path dir;

    private DataPathFixture broker;

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    /** What the handler reported, one line per call. */
    private final List<String> reported = new ArrayList<>();

    private final DataPathMetrics metrics = new DataPathMetrics() {
        @Override
        public void produced(long bytes, long records) {
            reported.add(records + " records produced");
        }

        @Override
        public void fetched(long bytes, FetchSource source) {
            throw new AssertionError("this test does not fetch");
        }

        @Override
        public void fetchWaited(FetchWaitOutcome outcome) {
            throw new AssertionError("this test does not fetch");
        }

        @Override
        public void recompressed(int batches, long bytesIn, long bytesOut) {
            reported.add(batches + " batches, " + bytesIn + " bytes in, " + bytesOut + " bytes out");
        }
    };

    @Test
    void aBatchOfAnotherCodecIsStoredInTheTopicsAndCounted() {
        broker = new DataPathFixture(dir, Duration.ofSeconds(30), metrics);
        List<TopicInfo> topics = new ArrayList<>(DataPathFixture.topics());
        topics.set(0, topic("orders", ORDERS, 2, List.of(ME), ORDERS_EPOCH, Map.of("compression.type", "zstd")));
        ClusterImage before =
                image(1, List.of(broker(0, 19092), broker(1, OTHER_BROKER_PORT)), DataPathFixture.topics());
        broker.replicas.onImage(before, image(2, List.of(broker(0, 19092), broker(1, OTHER_BROKER_PORT)), topics));
        MemoryRecords gzip = MemoryRecords.withRecords(Compression.gzip().build(), DataPathFixture.simple(0, 5));
        int sentBytes = gzip.sizeInBytes();

        var answer = broker.produceOne(produceRequest(13, (short) 1, 30_000, "orders", ORDERS, 0, gzip));
        var again = broker.produceOne(produceRequest(
                13,
                (short) 1,
                30_000,
                "orders",
                ORDERS,
                0,
                MemoryRecords.withRecords(Compression.zstd().build(), DataPathFixture.simple(5, 2))));

        assertThat(answer.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(again.errorCode()).isEqualTo(Errors.NONE.code());
        List<RecordBatch> stored = new ArrayList<>();
        broker.partition("orders", 0)
                .log()
                .read(0, Integer.MAX_VALUE, Long.MAX_VALUE)
                .records()
                .batches()
                .forEach(stored::add);
        assertThat(stored).extracting(RecordBatch::compressionType).containsOnly(CompressionType.ZSTD);
        assertThat(reported)
                .containsExactly(
                        "5 records produced",
                        "1 batches, " + sentBytes + " bytes in, "
                                + stored.getFirst().sizeInBytes() + " bytes out",
                        "2 records produced");
    }
}
