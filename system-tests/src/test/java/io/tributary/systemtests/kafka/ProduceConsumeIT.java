package io.tributary.systemtests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/**
 * Differential ({@link Differential}): the main round trip, against each target: an idempotent producer ({@code acks=all})
 * writes {@value #RECORDS} keyed records with headers and explicit timestamps to a {@value
 * #PARTITIONS}-partition topic; a consumer assigned to every partition reads them all back from
 * the beginning. Every key lands in the partition Kafka's default partitioner picks (murmur2 of the
 * key), each partition's offsets are dense from 0, and keys, values, headers and timestamps come
 * back as sent, at the offsets the producer was told. Written down and compared with Apache Kafka's:
 * each partition's record count, end offset and a SHA-256 digest of what the consumer read there
 * (offset, key, value, headers, timestamp relative to the first, timestamp type), and for the
 * acks=0/1 run whether the producer was told offsets and what the tiny-fetch consumer read.
 */
@OnSharedTargets
class ProduceConsumeIT {

    static final int RECORDS = 100_000;
    static final int PARTITIONS = 6;
    /** Distinct keys: each repeats, so a key's records must all share one partition. */
    static final int KEYS = 7_919;
    /** Records per run of the acks=0 and acks=1 test. */
    static final int SMALL_RUN = 2_000;

    @Test
    void idempotentProducerRecordsComeBackIntactInTheDefaultPartitionersPartitions() {
        Differential.assertSameOutcome(ProduceConsumeIT::roundTrip);
    }

    private static void roundTrip(KafkaTarget target, Differential.Outcome outcome) throws Exception {
        KafkaTargets.Kind kind = target.kind();
        String topic = Clients.uniqueTopic("round-trip");
        try (Admin admin = target.admin()) {
            Clients.createTopic(admin, topic, PARTITIONS);
        }
        long baseTimestamp = System.currentTimeMillis() - 3_600_000L;

        RecordMetadata[] sent = produce(target, topic, baseTimestamp);

        int[] perPartition = new int[PARTITIONS];
        for (int i = 0; i < RECORDS; i++) {
            RecordMetadata metadata = sent[i];
            assertThat(metadata.partition())
                    .as("partition of record %d (key %s) on %s", i, key(i), kind)
                    .isEqualTo(BuiltInPartitioner.partitionForKey(key(i).getBytes(StandardCharsets.UTF_8), PARTITIONS));
            assertThat(metadata.timestamp()).as("timestamp of record %d", i).isEqualTo(baseTimestamp + i);
            perPartition[metadata.partition()]++;
        }
        // Dense offsets from 0 as the producer saw them: each partition's offsets are 0..n-1.
        boolean[][] seenOffset = new boolean[PARTITIONS][];
        for (int p = 0; p < PARTITIONS; p++) {
            seenOffset[p] = new boolean[perPartition[p]];
        }
        for (RecordMetadata metadata : sent) {
            assertThat(metadata.offset()).isBetween(0L, (long) perPartition[metadata.partition()] - 1);
            assertThat(seenOffset[metadata.partition()][(int) metadata.offset()])
                    .as("offset %d of partition %d given twice", metadata.offset(), metadata.partition())
                    .isFalse();
            seenOffset[metadata.partition()][(int) metadata.offset()] = true;
        }

        List<TopicPartition> partitions = Clients.partitions(topic, PARTITIONS);
        try (KafkaConsumer<byte[], byte[]> consumer =
                Clients.consumer(target, Map.of(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000"))) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            List<ConsumerRecord<byte[], byte[]>> records = Clients.pollAtLeast(consumer, RECORDS);

            assertThat(records).hasSize(RECORDS);
            MessageDigest[] digests = new MessageDigest[PARTITIONS];
            for (int p = 0; p < PARTITIONS; p++) {
                digests[p] = MessageDigest.getInstance("SHA-256");
            }
            long[] nextOffset = new long[PARTITIONS];
            boolean[] received = new boolean[RECORDS];
            for (ConsumerRecord<byte[], byte[]> record : records) {
                int i = ByteBuffer.wrap(record.headers().lastHeader("seq").value())
                        .getInt();
                assertThat(received[i]).as("record %d received twice", i).isFalse();
                received[i] = true;
                assertThat(record.partition()).as("partition of record %d", i).isEqualTo(sent[i].partition());
                assertThat(record.offset()).as("offset of record %d", i).isEqualTo(sent[i].offset());
                assertThat(record.offset())
                        .as("offsets in partition %d are dense and in order", record.partition())
                        .isEqualTo(nextOffset[record.partition()]++);
                assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo(key(i));
                assertThat(record.value()).isEqualTo(value(i));
                assertThat(record.headers().toArray()).containsExactly(headers(i));
                assertThat(record.timestamp()).isEqualTo(baseTimestamp + i);
                assertThat(record.timestampType()).isEqualTo(TimestampType.CREATE_TIME);
                digest(digests[record.partition()], record, baseTimestamp);
            }
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            Map<TopicPartition, Long> expectedEnds = new HashMap<>();
            for (int p = 0; p < PARTITIONS; p++) {
                expectedEnds.put(partitions.get(p), (long) perPartition[p]);
                assertThat(consumer.position(partitions.get(p))).isEqualTo(perPartition[p]);
            }
            assertThat(ends).isEqualTo(expectedEnds);
            for (int p = 0; p < PARTITIONS; p++) {
                outcome.add(
                        "partition " + p,
                        perPartition[p] + " records, end offset " + ends.get(partitions.get(p)) + ", read back "
                                + HexFormat.of().formatHex(digests[p].digest()));
            }
        }
    }

    /** Adds what a consumer sees of {@code record} to its partition's digest, the timestamp relative to {@code base}. */
    private static void digest(MessageDigest digest, ConsumerRecord<byte[], byte[]> record, long base) {
        ByteBuffer fixed = ByteBuffer.allocate(8 + 8 + 4 + 4 + 4)
                .putLong(record.offset())
                .putLong(record.timestamp() - base)
                .putInt(record.timestampType().id)
                .putInt(record.key().length)
                .putInt(record.value().length);
        digest.update(fixed.array());
        digest.update(record.key());
        digest.update(record.value());
        for (Header header : record.headers()) {
            byte[] name = header.key().getBytes(StandardCharsets.UTF_8);
            byte[] value = header.value() == null ? new byte[0] : header.value();
            digest.update(ByteBuffer.allocate(8)
                    .putInt(name.length)
                    .putInt(value.length)
                    .array());
            digest.update(name);
            digest.update(value);
        }
    }

    /**
     * acks=0 and acks=1 (no idempotence) each write {@value #SMALL_RUN} records into one partition;
     * a consumer whose fetches may carry only 1 KiB per partition and per request (less than one
     * batch: the broker must still return the first batch whole, or the consumer would never make
     * progress) reads both runs back in order.
     */
    @Test
    void acksZeroAndOneAreStoredAndTinyFetchLimitsStillMakeProgress() {
        Differential.assertSameOutcome(ProduceConsumeIT::acksZeroAndOne);
    }

    private static void acksZeroAndOne(KafkaTarget target, Differential.Outcome outcome) throws Exception {
        String topic = Clients.uniqueTopic("acks-0-1");
        try (Admin admin = target.admin()) {
            Clients.createTopic(admin, topic, 1);
        }
        for (String acks : List.of("1", "0")) {
            try (KafkaProducer<byte[], byte[]> producer = Clients.producer(
                    target,
                    Map.of(
                            ProducerConfig.ACKS_CONFIG, acks,
                            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false",
                            ProducerConfig.LINGER_MS_CONFIG, "20"))) {
                List<Future<RecordMetadata>> sends = new ArrayList<>();
                for (int i = 0; i < SMALL_RUN; i++) {
                    sends.add(producer.send(new ProducerRecord<>(
                            topic, 0, null, ("acks" + acks + "-" + i).getBytes(StandardCharsets.UTF_8))));
                }
                producer.flush();
                int withOffset = 0;
                for (Future<RecordMetadata> send : sends) {
                    RecordMetadata metadata = send.get(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS);
                    // acks=0: the producer is told no offset.
                    assertThat(metadata.hasOffset())
                            .as("acks=%s offset known", acks)
                            .isEqualTo(!acks.equals("0"));
                    withOffset += metadata.hasOffset() ? 1 : 0;
                }
                outcome.add("acks=" + acks + " sends told their offset", withOffset + " of " + sends.size());
            }
        }
        TopicPartition partition = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(
                target,
                Map.of(
                        ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "1024",
                        ConsumerConfig.FETCH_MAX_BYTES_CONFIG, "1024"))) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            List<ConsumerRecord<byte[], byte[]>> records = Clients.pollAtLeast(consumer, 2 * SMALL_RUN);

            assertThat(records).hasSize(2 * SMALL_RUN);
            for (int i = 0; i < records.size(); i++) {
                String acks = i < SMALL_RUN ? "1" : "0";
                assertThat(records.get(i).offset()).isEqualTo(i);
                assertThat(new String(records.get(i).value(), StandardCharsets.UTF_8))
                        .isEqualTo("acks" + acks + "-" + (i % SMALL_RUN));
            }
            outcome.add(
                    "read with 1 KiB fetches",
                    records.size() + " records, offsets " + records.getFirst().offset() + ".."
                            + records.getLast().offset() + ", the last "
                            + new String(records.getLast().value(), StandardCharsets.UTF_8));
        }
    }

    private static RecordMetadata[] produce(KafkaTarget target, String topic, long baseTimestamp) throws Exception {
        RecordMetadata[] sent = new RecordMetadata[RECORDS];
        AtomicReference<Exception> firstError = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(RECORDS);
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(
                target,
                Map.of(
                        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
                        ProducerConfig.ACKS_CONFIG, "all",
                        ProducerConfig.LINGER_MS_CONFIG, "5",
                        ProducerConfig.BATCH_SIZE_CONFIG, "65536"))) {
            for (int i = 0; i < RECORDS; i++) {
                int index = i;
                var record = new ProducerRecord<>(
                        topic,
                        null,
                        baseTimestamp + i,
                        key(i).getBytes(StandardCharsets.UTF_8),
                        value(i),
                        List.of(headers(i)));
                producer.send(record, (metadata, exception) -> {
                    if (exception != null) {
                        firstError.compareAndSet(null, exception);
                    } else {
                        sent[index] = metadata;
                    }
                    done.countDown();
                });
            }
            producer.flush();
            assertThat(done.await(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS))
                    .as("every send completed")
                    .isTrue();
        }
        if (firstError.get() != null) {
            throw new AssertionError("a send failed: " + firstError.get(), firstError.get());
        }
        return sent;
    }

    private static String key(int i) {
        return "key-" + (i % KEYS);
    }

    private static byte[] value(int i) {
        return ("value-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static Header[] headers(int i) {
        Header seq = new RecordHeader("seq", ByteBuffer.allocate(4).putInt(i).array());
        // Every tenth record also has an empty-valued header and a repeated key.
        if (i % 10 == 0) {
            return new Header[] {
                seq,
                new RecordHeader("empty", new byte[0]),
                new RecordHeader("seq", ByteBuffer.allocate(4).putInt(i).array())
            };
        }
        return new Header[] {seq, new RecordHeader("trace", ("t" + i).getBytes(StandardCharsets.UTF_8))};
    }
}
