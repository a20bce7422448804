package io.tributary.gateway.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.gateway.problem.ProblemException;
import io.tributary.gateway.problem.ProblemType;
import io.tributary.gateway.testing.SharedKafka;
import io.tributary.gateway.testing.TestConsumers;
import io.tributary.gateway.testing.TestTopics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link TableReader} against the real broker with a real consumer: the table is the model's (the
 * latest value of each key whose latest record is not a tombstone, records past the vector left out)
 * while no digest map ever holds more than {@code maxKeys} keys, however small.
 */
@ExtendWith(SharedKafka.class)
class TableReaderTest {

    private static Admin admin;
    private static KafkaProducer<byte[], byte[]> producer;
    private static int topics;

    @BeforeAll
    static void connect() {
        admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrapServers()));
        producer = new KafkaProducer<>(Map.of(
                "bootstrap.servers",
                SharedKafka.bootstrapServers(),
                "key.serializer",
                ByteArraySerializer.class,
                "value.serializer",
                ByteArraySerializer.class));
    }

    @AfterAll
    static void close() {
        producer.close();
        admin.close();
    }

    private static KafkaConsumer<byte[], byte[]> consumer() {
        return TestConsumers.bytes(
                Map.of("auto.offset.reset", "none", "max.poll.records", 50, "fetch.max.wait.ms", 100));
    }

    private static synchronized String topic(int partitions) {
        String name = "table-reader-" + (++topics) + "-" + Long.toHexString(System.nanoTime() & 0xffffff);
        TestTopics.create(admin, name, partitions, Map.of("cleanup.policy", "compact"));
        return name;
    }

    private static void send(String topic, int partition, String key, String value) throws Exception {
        producer.send(new ProducerRecord<>(
                        topic,
                        partition,
                        key.getBytes(StandardCharsets.UTF_8),
                        value == null ? null : value.getBytes(StandardCharsets.UTF_8)))
                .get(30, TimeUnit.SECONDS);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    /** The table read with {@code limits}, key to value, failing on a key given twice. */
    private static Map<String, String> read(
            String topic, List<Integer> partitions, TableReader.Limits limits, TableReader.Result[] result)
            throws Exception {
        Map<String, String> table = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> c = consumer()) {
            TableReader reader = new TableReader(c, limits);
            TreeMap<Integer, Long> vector = reader.endOffsets(topic, partitions);
            result[0] = reader.read(topic, vector, (ConsumerRecord<byte[], byte[]> r) -> {
                assertThat(r.offset()).isLessThan(vector.get(r.partition()));
                String previous = table.put(r.partition() + "/" + text(r.key()), text(r.value()));
                assertThat(previous).as("key %s given once", text(r.key())).isNull();
                return true;
            });
        }
        return table;
    }

    private static TableReader.Limits limits(int maxKeys, int maxScans) {
        return new TableReader.Limits(maxKeys, maxScans, Duration.ofMillis(500), Duration.ofSeconds(15));
    }

    /**
     * Seeded random writes (new keys, overwrites, tombstones, keys deleted and written again) in two
     * partitions; read with a digest map of 7 keys, many times fewer than the live keys.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 12, 13})
    void theTableIsTheLatestLiveValueOfEachKeyWithinMaxKeys(long seed) throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        String topic = topic(2);
        Map<String, String> model = new HashMap<>();
        for (int i = 0; i < 400; i++) {
            int partition = random.nextInt(2);
            String key = "k" + random.nextInt(90);
            String value = random.nextInt(5) == 0 ? null : "v" + i;
            // one producer, in order per partition; flushed before the read
            producer.send(new ProducerRecord<>(
                    topic,
                    partition,
                    key.getBytes(StandardCharsets.UTF_8),
                    value == null ? null : value.getBytes(StandardCharsets.UTF_8)));
            if (value == null) {
                model.remove(partition + "/" + key);
            } else {
                model.put(partition + "/" + key, value);
            }
        }
        producer.flush();
        TableReader.Result[] result = new TableReader.Result[1];
        Map<String, String> table = read(topic, List.of(0, 1), limits(7, 1_000), result);

        assertThat(table).as("seed %d", seed).isEqualTo(model);
        assertThat(result[0].complete()).isTrue();
        assertThat(result[0].records()).isEqualTo(model.size());
        assertThat(result[0].mostKeysHeld()).as("seed %d: the bound", seed).isBetween(1, 7);
        assertThat(result[0].scans())
                .as("seed %d: more than one window per partition", seed)
                .isGreaterThan(2L * model.size() / 7);
        assertThat(result[0].missedKeys()).isZero();
    }

    @Test
    void recordsWrittenAfterTheVectorAreNotInTheTable() throws Exception {
        String topic = topic(1);
        send(topic, 0, "a", "1");
        send(topic, 0, "b", "2");
        Map<String, String> table = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> c = consumer()) {
            TableReader reader = new TableReader(c, limits(100, 10));
            TreeMap<Integer, Long> vector = reader.endOffsets(topic, List.of(0));
            send(topic, 0, "a", "3");
            send(topic, 0, "b", null);
            send(topic, 0, "c", "4");
            TableReader.Result result = reader.read(topic, vector, r -> {
                table.put(text(r.key()), text(r.value()));
                return true;
            });
            assertThat(vector).containsExactly(Map.entry(0, 2L));
            assertThat(result.scans()).isEqualTo(2);
        }
        assertThat(table).containsExactlyInAnyOrderEntriesOf(Map.of("a", "1", "b", "2"));
    }

    @Test
    void aSinkThatStopsEndsTheReadIncomplete() throws Exception {
        String topic = topic(1);
        for (int i = 0; i < 5; i++) {
            send(topic, 0, "k" + i, "v");
        }
        int[] taken = {0};
        try (KafkaConsumer<byte[], byte[]> c = consumer()) {
            TableReader reader = new TableReader(c, limits(100, 10));
            TableReader.Result result = reader.read(topic, reader.endOffsets(topic, List.of(0)), r -> ++taken[0] < 2);
            assertThat(result.complete()).isFalse();
        }
        assertThat(taken[0]).isEqualTo(2);
    }

    @Test
    void aPartitionNeedingMoreScansThanTheBoundIsTableTooLarge() throws Exception {
        String topic = topic(1);
        for (int i = 0; i < 40; i++) {
            send(topic, 0, "k" + i, "v" + i);
        }
        try (KafkaConsumer<byte[], byte[]> c = consumer()) {
            TableReader reader = new TableReader(c, limits(4, 6));
            var vector = reader.endOffsets(topic, List.of(0));
            assertThatThrownBy(() -> reader.read(topic, vector, r -> true))
                    .isInstanceOfSatisfying(ProblemException.class, e -> {
                        assertThat(e.type()).isEqualTo(ProblemType.TABLE_TOO_LARGE);
                        assertThat(e.getMessage()).contains("Partition 0", "max-scans", "max-keys");
                    });
        }
    }

    @Test
    void anEmptyPartitionIsAnEmptyTable() throws Exception {
        String topic = topic(2);
        send(topic, 1, "only", "1");
        TableReader.Result[] result = new TableReader.Result[1];
        assertThat(read(topic, List.of(0, 1), limits(3, 10), result)).containsExactly(Map.entry("1/only", "1"));
        assertThat(result[0].records()).isEqualTo(1);
    }
}
