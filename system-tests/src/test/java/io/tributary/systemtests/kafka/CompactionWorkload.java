package io.tributary.systemtests.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * A seeded workload for a compacted single-partition topic, the model of what compaction keeps, and
 * the consumer's view of the partition, for {@link CompactionIT}.
 *
 * <p>The workload is a list of steps drawn from a seed before anything is sent: each step is one
 * batch of 1 to {@value #MAX_RECORDS_PER_STEP} records from one of {@link #PRODUCERS} (idempotent
 * or not, each with its own compression), keys from a small set (so that every key has several
 * versions), about one record in six a tombstone (null value), some with headers; now and then a
 * step is a single record without a key, which a compacted topic refuses. Steps are sent one after
 * the other, each flushed before the next, so the records land at the same offsets on every target
 * whatever the producers' batching. Every record carries an explicit timestamp, {@link
 * #STEP_INTERVAL_MS} after the previous step's, from a base in the past: a topic whose {@code
 * segment.ms} is shorter than that interval rolls segments by these timestamps (Kafka and Tributary
 * both roll on the record time of the incoming batch against the segment's first), and a sentinel
 * stamped later afterwards closes the segment holding the last step, so every step lies in a closed,
 * cleanable segment on every target, wherever each put its other segment boundaries.
 */
final class CompactionWorkload {

    /** Records in a step are 1 to this many. */
    static final int MAX_RECORDS_PER_STEP = 6;

    /** Milliseconds between the timestamps of two consecutive steps. */
    static final long STEP_INTERVAL_MS = 20_000;

    /**
     * The producers, by name: two idempotent (acks=all) and three not (one request in flight, so a
     * retry cannot reorder), compressed with gzip, zstd, lz4, snappy and not at all. A long linger
     * keeps each step in one batch: the step's flush sends it.
     */
    static final Map<String, Map<String, Object>> PRODUCERS = producers();

    private static Map<String, Map<String, Object>> producers() {
        Map<String, Map<String, Object>> producers = new LinkedHashMap<>();
        producers.put("idempotent-gzip", idempotent("gzip"));
        producers.put("idempotent-zstd", idempotent("zstd"));
        producers.put("plain-lz4", plain("lz4"));
        producers.put("plain-snappy", plain("snappy"));
        producers.put("plain-none", plain("none"));
        return Map.copyOf(producers);
    }

    private static Map<String, Object> idempotent(String compression) {
        return Map.of(
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.COMPRESSION_TYPE_CONFIG, compression,
                ProducerConfig.LINGER_MS_CONFIG, "60000");
    }

    private static Map<String, Object> plain(String compression) {
        return Map.of(
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false",
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1",
                ProducerConfig.COMPRESSION_TYPE_CONFIG, compression,
                ProducerConfig.LINGER_MS_CONFIG, "60000");
    }

    /** One record of a step; {@code key} null only in a keyless step, {@code value} null: a tombstone. */
    record Planned(String key, String value, long timestampMs, List<String> headers) {}

    /** One batch from one producer. */
    record Step(int index, String producer, List<Planned> records) {
        boolean keyless() {
            return records.size() == 1 && records.getFirst().key() == null;
        }
    }

    /** A record as written (its offset from the producer) or as read back. */
    record Rec(long offset, String key, String value, long timestampMs, List<String> headers) {
        String line(long baseTimestampMs) {
            String shown =
                    value == null ? "<tombstone>" : value.length() > 40 ? "<" + value.length() + " chars>" : value;
            return offset + " " + key + "=" + shown + " t+" + (timestampMs - baseTimestampMs)
                    + (headers.isEmpty() ? "" : " " + headers);
        }
    }

    /** What writing some steps gave: the records written and the refusals, as lines. */
    record Written(List<Rec> records, List<String> refusals) {}

    private final List<Step> steps;
    private final long baseTimestampMs;

    private CompactionWorkload(List<Step> steps, long baseTimestampMs) {
        this.steps = List.copyOf(steps);
        this.baseTimestampMs = baseTimestampMs;
    }

    /**
     * Draws {@code stepCount} steps over {@code keyCount} keys from {@code seed}, the first stamped
     * {@code baseTimestampMs}.
     */
    static CompactionWorkload draw(long seed, int stepCount, int keyCount, long baseTimestampMs) {
        Random random = new Random(seed);
        List<String> producerNames = List.copyOf(new TreeMap<>(PRODUCERS).keySet());
        List<Step> steps = new ArrayList<>();
        for (int s = 0; s < stepCount; s++) {
            String producer = producerNames.get(random.nextInt(producerNames.size()));
            long timestamp = baseTimestampMs + s * STEP_INTERVAL_MS;
            List<Planned> records = new ArrayList<>();
            if (s > 0 && random.nextInt(12) == 0) {
                records.add(new Planned(null, "keyless-" + s, timestamp, List.of()));
            } else {
                int count = 1 + random.nextInt(MAX_RECORDS_PER_STEP);
                for (int r = 0; r < count; r++) {
                    String key = "k" + random.nextInt(keyCount);
                    String value = random.nextInt(6) == 0 ? null : "v" + s + "." + r;
                    List<String> headers = random.nextInt(3) == 0
                            ? List.of("h=" + s + "." + r, "n=" + random.nextInt(100))
                            : List.of();
                    records.add(new Planned(key, value, timestamp + r, headers));
                }
            }
            steps.add(new Step(s, producer, records));
        }
        return new CompactionWorkload(steps, baseTimestampMs);
    }

    long baseTimestampMs() {
        return baseTimestampMs;
    }

    int stepCount() {
        return steps.size();
    }

    /** The timestamp of step {@code index}'s first record. */
    long stepTimestampMs(int index) {
        return steps.get(index).records().getFirst().timestampMs();
    }

    /**
     * Sends steps {@code from} (inclusive) to {@code to} (exclusive) to partition 0 of {@code topic},
     * each flushed before the next. A keyless step must be refused; its refusal (exception class and
     * message, the topic's name replaced by {@code <topic>}) is written down. Every keyed record
     * must be written.
     */
    Written write(KafkaTarget target, String topic, int from, int to) throws Exception {
        Map<String, KafkaProducer<byte[], byte[]>> producers = new HashMap<>();
        List<Rec> written = new ArrayList<>();
        List<String> refusals = new ArrayList<>();
        try {
            for (Step step : steps.subList(from, to)) {
                KafkaProducer<byte[], byte[]> producer = producers.computeIfAbsent(
                        step.producer(), name -> Clients.producer(target, PRODUCERS.get(name)));
                List<Future<RecordMetadata>> sends = new ArrayList<>();
                for (Planned record : step.records()) {
                    sends.add(producer.send(new ProducerRecord<>(
                            topic,
                            0,
                            record.timestampMs(),
                            bytes(record.key()),
                            bytes(record.value()),
                            headers(record.headers()))));
                }
                producer.flush();
                if (step.keyless()) {
                    refusals.add("step " + step.index() + " keyless via " + step.producer() + ": "
                            + refusal(sends.getFirst(), topic));
                    continue;
                }
                for (int r = 0; r < sends.size(); r++) {
                    long offset = sends.get(r)
                            .get(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS)
                            .offset();
                    Planned record = step.records().get(r);
                    written.add(new Rec(offset, record.key(), record.value(), record.timestampMs(), record.headers()));
                }
            }
        } finally {
            producers.values().forEach(p -> p.close(Duration.ofSeconds(10)));
        }
        return new Written(written, refusals);
    }

    private static String refusal(Future<RecordMetadata> send, String topic) throws Exception {
        try {
            RecordMetadata metadata = send.get(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS);
            throw new AssertionError(
                    "a record without a key was written to a compacted topic at offset " + metadata.offset());
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            return cause.getClass().getName() + ": "
                    + String.valueOf(cause.getMessage()).replace(topic, "<topic>");
        }
    }

    /**
     * Writes one record to partition 0 of {@code topic} (acks=all, not compressed), stamped {@code
     * timestampMs} (the producer's clock when empty), and returns it as written.
     */
    static Rec writeSentinel(KafkaTarget target, String topic, String key, String value, Optional<Long> timestampMs)
            throws Exception {
        try (KafkaProducer<byte[], byte[]> producer =
                Clients.producer(target, Map.of(ProducerConfig.ACKS_CONFIG, "all"))) {
            RecordMetadata metadata = producer.send(
                            new ProducerRecord<>(topic, 0, timestampMs.orElse(null), bytes(key), bytes(value)))
                    .get(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS);
            return new Rec(metadata.offset(), key, value, metadata.timestamp(), List.of());
        }
    }

    /**
     * The model of compaction below the sentinel: each key's latest record at its original offset,
     * in offset order; tombstones dropped when {@code tombstonesExpired}, else kept as the latest.
     */
    static List<Rec> survivors(List<Rec> written, boolean tombstonesExpired) {
        Map<String, Rec> latest = new HashMap<>();
        for (Rec record : written) {
            latest.merge(record.key(), record, (a, b) -> b.offset() > a.offset() ? b : a);
        }
        return latest.values().stream()
                .filter(r -> !tombstonesExpired || r.value() != null)
                .sorted((a, b) -> Long.compare(a.offset(), b.offset()))
                .toList();
    }

    /**
     * What compaction has not done yet in {@code read} below {@code sentinelOffset}: keys read more
     * than once and, when {@code tombstonesExpire}, tombstones still there. Empty once the cleaner
     * has cleaned everything below the sentinel's segment.
     */
    static List<String> uncleaned(List<Rec> read, long sentinelOffset, boolean tombstonesExpire) {
        List<String> problems = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Rec record : read) {
            if (record.offset() >= sentinelOffset) {
                continue;
            }
            if (!seen.add(record.key())) {
                problems.add("key " + record.key() + " again at offset " + record.offset());
            }
            if (tombstonesExpire && record.value() == null) {
                problems.add("tombstone of " + record.key() + " still at offset " + record.offset());
            }
        }
        return problems;
    }

    /** Reads partition 0 of {@code topic} from its beginning up to {@code endOffset} (exclusive). */
    static List<Rec> readAll(KafkaTarget target, String topic, long endOffset) {
        TopicPartition partition = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(target, Map.of())) {
            consumer.assign(List.of(partition));
            return Clients.readFromStart(consumer, List.of(partition), Map.of(partition, endOffset)).stream()
                    .map(CompactionWorkload::rec)
                    .toList();
        }
    }

    /**
     * The first record a consumer positioned at {@code offset} receives: where a fetch inside a
     * removed range lands.
     */
    static long firstOffsetFrom(KafkaConsumer<byte[], byte[]> consumer, TopicPartition partition, long offset) {
        consumer.seek(partition, offset);
        long deadline = System.nanoTime() + Clients.PATIENCE.toNanos();
        while (System.nanoTime() < deadline) {
            var records = consumer.poll(Duration.ofMillis(200));
            if (!records.isEmpty()) {
                return records.iterator().next().offset();
            }
        }
        throw new AssertionError("no record from offset " + offset + " within " + Clients.PATIENCE);
    }

    private static Rec rec(ConsumerRecord<byte[], byte[]> record) {
        List<String> headers = new ArrayList<>();
        for (Header header : record.headers()) {
            headers.add(header.key() + "=" + new String(header.value(), StandardCharsets.UTF_8));
        }
        return new Rec(record.offset(), text(record.key()), text(record.value()), record.timestamp(), headers);
    }

    private static RecordHeaders headers(List<String> headers) {
        RecordHeaders result = new RecordHeaders();
        for (String header : headers) {
            int equals = header.indexOf('=');
            result.add(header.substring(0, equals), bytes(header.substring(equals + 1)));
        }
        return result;
    }

    private static byte[] bytes(String text) {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }
}
