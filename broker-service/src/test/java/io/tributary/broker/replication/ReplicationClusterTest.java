package io.tributary.broker.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.broker.cluster.FakeControlPlane;
import io.tributary.broker.cluster.PartitionInfo;
import io.tributary.broker.log.PartitionLog;
import io.tributary.broker.log.ReadResult;
import io.tributary.common.testing.KafkaTestConnection;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three brokers in one process, each with its own logs, index store and Kafka listener on
 * 127.0.0.1, following one in-memory coordinator: replication end to end over the wire.
 */
class ReplicationClusterTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration LAG = Duration.ofSeconds(1);
    private static final String TOPIC = "orders";

    @TempDir
    Path dir;

    private final FakeControlPlane coordinator = new FakeControlPlane();
    private final List<ReplicationTestBroker> brokers = new ArrayList<>();
    private int nextValue;

    @BeforeEach
    void startCluster() {
        ReplicationConfig config = ReplicationConfig.defaults()
                .withLagTime(LAG, Duration.ofMillis(100))
                .withFetchTiming(Duration.ofMillis(100), Duration.ofMillis(100));
        for (int id = 0; id < 3; id++) {
            brokers.add(new ReplicationTestBroker(id, dir.resolve("broker-" + id), coordinator, config).start());
        }
        for (ReplicationTestBroker broker : brokers) {
            await().atMost(WAIT).until(broker.follower::isActive);
        }
        long version = coordinator.createTopic(TOPIC, 1, 3, Map.of()).version();
        for (ReplicationTestBroker broker : brokers) {
            await().atMost(WAIT).until(() -> broker.follower.image().version() >= version);
        }
    }

    @AfterEach
    void stopCluster() {
        brokers.forEach(ReplicationTestBroker::stop);
    }

    private ReplicationTestBroker broker(int id) {
        return brokers.get(id);
    }

    @Test
    void acksAllCompletesOnceEveryFollowerHasTheBatchAndTheLogsAreIdentical() throws Exception {
        PartitionInfo info = coordinator.partitionInfo(TOPIC, 0);
        assertThat(info.leader()).isZero();
        assertThat(info.isr()).containsExactlyInAnyOrder(0, 1, 2);

        for (int i = 0; i < 20; i++) {
            assertThat(produce(broker(0), (short) -1, 5)).isEqualTo(Errors.NONE);
            // acks=all answered: the leader's high watermark passed the batch, so each follower had it.
            long hw = broker(0).partition(TOPIC, 0).highWatermark();
            assertThat(hw).isEqualTo((i + 1) * 5L);
            for (int f = 1; f < 3; f++) {
                assertThat(broker(f).partition(TOPIC, 0).log().logEndOffset()).isGreaterThanOrEqualTo(hw);
            }
        }

        awaitIdenticalLogs(0, 1, 2);
        // The followers learn the high watermark on their next fetch.
        await().atMost(WAIT).untilAsserted(() -> {
            for (int f = 1; f < 3; f++) {
                assertThat(broker(f).partition(TOPIC, 0).highWatermark()).isEqualTo(100L);
            }
        });
        assertThat(coordinator.alterPartitions()).isZero();
    }

    @Test
    void aStoppedFollowerLeavesTheIsrThroughAlterPartitionAndRejoinsOnceCaughtUp() throws Exception {
        produce(broker(0), (short) -1, 3);
        broker(2).stop();

        await().atMost(WAIT)
                .until(() -> coordinator.partitionInfo(TOPIC, 0).isr().equals(List.of(0, 1)));
        // Applied by the leader from the committed answer (or the image), not proposed alone.
        await().atMost(WAIT)
                .until(() -> broker(0).partition(TOPIC, 0).info().isr().equals(List.of(0, 1)));
        assertThat(coordinator.alterPartitions()).isGreaterThanOrEqualTo(1);

        // acks=all needs only the ISR now.
        for (int i = 0; i < 10; i++) {
            assertThat(produce(broker(0), (short) -1, 4)).isEqualTo(Errors.NONE);
        }
        assertThat(broker(0).partition(TOPIC, 0).highWatermark()).isEqualTo(43L);

        broker(2).start();
        await().atMost(WAIT)
                .until(() -> coordinator.partitionInfo(TOPIC, 0).isr().containsAll(List.of(0, 1, 2)));
        await().atMost(WAIT)
                .until(() -> broker(0).partition(TOPIC, 0).info().isr().size() == 3);
        awaitIdenticalLogs(0, 1, 2);
    }

    @Test
    void aNewLeaderMakesTheOldLeadersDivergentSuffixGoAndEveryLogEndsIdentical() throws Exception {
        for (int i = 0; i < 4; i++) {
            assertThat(produce(broker(0), (short) -1, 5)).isEqualTo(Errors.NONE);
        }
        awaitIdenticalLogs(0, 1, 2);
        long committed = broker(0).partition(TOPIC, 0).log().logEndOffset();
        assertThat(committed).isEqualTo(20);

        // The followers go away; the leader takes writes only it has (acks=1).
        broker(1).stop();
        broker(2).stop();
        for (int i = 0; i < 3; i++) {
            assertThat(produce(broker(0), (short) 1, 7)).isEqualTo(Errors.NONE);
        }
        assertThat(broker(0).partition(TOPIC, 0).log().logEndOffset()).isEqualTo(committed + 21);

        // The leader dies; broker 1 is elected with a new epoch (as the coordinators' liveness does).
        broker(0).stop();
        coordinator.electLeader(TOPIC, 0, 1, List.of(1, 2));
        broker(1).start();
        broker(2).start();
        await().atMost(WAIT)
                .until(() -> broker(1).partition(TOPIC, 0).isLeader()
                        && broker(1).partition(TOPIC, 0).leaderEpoch() == 1);
        for (int i = 0; i < 2; i++) {
            assertThat(produce(broker(1), (short) -1, 3)).isEqualTo(Errors.NONE);
        }
        assertThat(broker(1).partition(TOPIC, 0).log().logEndOffset()).isEqualTo(committed + 6);

        // The old leader returns as a follower: its epoch-0 suffix past offset 20 must go.
        broker(0).start();
        await().atMost(WAIT)
                .until(() -> coordinator.partitionInfo(TOPIC, 0).isr().containsAll(List.of(0, 1, 2)));
        awaitIdenticalLogs(1, 0, 2);
        PartitionLog old = broker(0).partition(TOPIC, 0).log();
        assertThat(old.logEndOffset()).isEqualTo(committed + 6);
        assertThat(old.leaderEpochs()).extracting(e -> e.epoch()).containsExactly(0, 1);
        assertThat(broker(0).partition(TOPIC, 0).highWatermark()).isLessThanOrEqualTo(committed + 6);
    }

    // ------------------------------------------------------------------------------------------

    private void awaitIdenticalLogs(int reference, int... others) {
        await().atMost(WAIT).untilAsserted(() -> {
            List<String> expected =
                    batches(broker(reference).partition(TOPIC, 0).log());
            assertThat(expected).as("broker %d's batches", reference).isNotEmpty();
            for (int other : others) {
                assertThat(batches(broker(other).partition(TOPIC, 0).log()))
                        .as("broker %d's log against broker %d's", other, reference)
                        .isEqualTo(expected);
            }
        });
    }

    /** Every batch of the log, as base offset and hex bytes (leader epoch and CRC included). */
    private static List<String> batches(PartitionLog log) {
        List<String> result = new ArrayList<>();
        long offset = log.logStartOffset();
        long end = log.logEndOffset();
        while (offset < end) {
            ReadResult read = log.read(offset, Integer.MAX_VALUE, Long.MAX_VALUE);
            MemoryRecords memory = toMemory(read.records());
            long next = offset;
            for (MutableRecordBatch batch : memory.batches()) {
                ByteBuffer bytes = ByteBuffer.allocate(batch.sizeInBytes());
                batch.writeTo(bytes);
                result.add(batch.baseOffset() + ":" + HexFormat.of().formatHex(bytes.array()));
                next = batch.nextOffset();
            }
            if (next == offset) {
                break;
            }
            offset = next;
        }
        return result;
    }

    private static MemoryRecords toMemory(Records records) {
        return ReplicationTestRecords.toMemory(records);
    }

    private Errors produce(ReplicationTestBroker leader, short acks, int count) throws IOException {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            int value = nextValue++;
            records[i] = new SimpleRecord(
                    1000L + value,
                    ("k" + value).getBytes(StandardCharsets.US_ASCII),
                    ("v" + value).getBytes(StandardCharsets.US_ASCII));
        }
        var request = ReplicationTestRecords.produceRequest(TOPIC, acks, 30_000, records);
        try (KafkaTestConnection connection = KafkaTestConnection.open(leader.port())) {
            ProduceResponse response = connection.roundTrip(request, ProduceResponse.class);
            ProduceResponseData.PartitionProduceResponse partition = response.data()
                    .responses()
                    .iterator()
                    .next()
                    .partitionResponses()
                    .getFirst();
            return Errors.forCode(partition.errorCode());
        }
    }
}
