package io.tributary.systemtests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.Test;

/**
 * Differential: the same bad request against every enabled target, and what the client (or, for
 * requests no client would send, the raw response) shows must be the same on all of them and be
 * what Kafka does. Each test collects one outcome per target, asserts them all at once and names
 * every target's outcome in the failure.
 */
@OnSharedTargets
class BadRequestsIT {

    /** What one target did with one bad request, as a comparable string. */
    @FunctionalInterface
    interface Scenario {
        String run(KafkaTarget target) throws Exception;
    }

    @Test
    void aProducerToAnUnknownTopicGivesUpWithATimeoutWhileMetadataSaysUnknown() throws Exception {
        assertEveryTargetAnswers("org.apache.kafka.common.errors.TimeoutException", target -> {
            try (KafkaProducer<byte[], byte[]> producer =
                    Clients.producer(target, Map.of(ProducerConfig.MAX_BLOCK_MS_CONFIG, "2000"))) {
                return failureOf(() -> producer.send(new ProducerRecord<>(Clients.uniqueTopic("no-such"), new byte[1]))
                        .get(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS));
            }
        });
    }

    @Test
    void metadataForAnUnknownTopicIsUnknownTopicOrPartitionAndNotCreated() throws Exception {
        assertEveryTargetAnswers("UNKNOWN_TOPIC_OR_PARTITION, still unknown", target -> {
            String topic = Clients.uniqueTopic("no-such");
            try (RawKafka raw = RawKafka.open(target.ports().getFirst())) {
                short version = raw.version(ApiKeys.METADATA);
                MetadataResponse response = raw.connection()
                        .roundTrip(
                                new MetadataRequest.Builder(List.of(topic), false).build(version),
                                MetadataResponse.class);
                Errors error = response.errors().getOrDefault(topic, Errors.NONE);
                try (Admin admin = target.admin()) {
                    boolean listed =
                            admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic);
                    return error + (listed ? ", created" : ", still unknown");
                }
            }
        });
    }

    @Test
    void aConsumerOfAnUnknownTopicFindsNoPartitionsAndNoOffsets() throws Exception {
        assertEveryTargetAnswers(
                "partitions [], endOffsets org.apache.kafka.common.errors.TimeoutException", target -> {
                    String topic = Clients.uniqueTopic("no-such");
                    try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(target, Map.of())) {
                        String partitions = String.valueOf(consumer.partitionsFor(topic, Duration.ofSeconds(10)));
                        String ends = failureOf(() ->
                                consumer.endOffsets(List.of(new TopicPartition(topic, 0)), Duration.ofSeconds(2)));
                        return "partitions " + partitions + ", endOffsets " + ends;
                    }
                });
    }

    @Test
    void aConsumerPastTheEndWithoutAResetPolicyGetsOffsetOutOfRange() throws Exception {
        assertEveryTargetAnswers("OffsetOutOfRangeException {tp-0=100}", target -> {
            String topic = Clients.uniqueTopic("out-of-range");
            TopicPartition partition = new TopicPartition(topic, 0);
            try (Admin admin = target.admin()) {
                Clients.createTopic(admin, topic, 1);
            }
            try (KafkaProducer<byte[], byte[]> producer = Clients.producer(target, Map.of())) {
                for (int i = 0; i < 5; i++) {
                    producer.send(new ProducerRecord<>(topic, 0, null, new byte[] {(byte) i}));
                }
                producer.flush();
            }
            try (KafkaConsumer<byte[], byte[]> consumer =
                    Clients.consumer(target, Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none"))) {
                consumer.assign(List.of(partition));
                consumer.seek(partition, 100);
                long deadline = System.nanoTime() + Clients.PATIENCE.toNanos();
                while (System.nanoTime() < deadline) {
                    try {
                        consumer.poll(Duration.ofMillis(500));
                    } catch (OffsetOutOfRangeException e) {
                        return "OffsetOutOfRangeException "
                                + e.offsetOutOfRangePartitions().toString().replace(topic, "tp");
                    }
                }
                return "no error within " + Clients.PATIENCE;
            }
        });
    }

    @Test
    void aRecordLargerThanTheBrokerAcceptsIsRecordTooLargeAndTheProducerCarriesOn() throws Exception {
        assertEveryTargetAnswers(
                "org.apache.kafka.common.errors.RecordTooLargeException, then a small record at offset 0", target -> {
                    String topic = Clients.uniqueTopic("too-large");
                    try (Admin admin = target.admin()) {
                        Clients.createTopic(admin, topic, 1);
                    }
                    // The client's own limit is raised, so that the broker is the one to refuse: 2 MiB
                    // is above Kafka's default message.max.bytes (1 MiB + 12).
                    try (KafkaProducer<byte[], byte[]> producer = Clients.producer(
                            target,
                            Map.of(
                                    ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(8 << 20),
                                    ProducerConfig.BUFFER_MEMORY_CONFIG, Integer.toString(32 << 20)))) {
                        String large =
                                failureOf(() -> producer.send(new ProducerRecord<>(topic, 0, null, new byte[2 << 20]))
                                        .get(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS));
                        long offset = producer.send(
                                        new ProducerRecord<>(topic, 0, null, "small".getBytes(StandardCharsets.UTF_8)))
                                .get(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS)
                                .offset();
                        return large + ", then a small record at offset " + offset;
                    }
                });
    }

    @Test
    void aRawProduceToAPartitionTheTopicDoesNotHaveIsUnknownTopicOrPartition() throws Exception {
        assertEveryTargetAnswers("UNKNOWN_TOPIC_OR_PARTITION", target -> {
            String topic = Clients.uniqueTopic("raw-produce");
            TopicDescription description;
            try (Admin admin = target.admin()) {
                description = Clients.createTopic(admin, topic, 1);
            }
            int leaderPort = target.brokerPorts()
                    .get(description.partitions().getFirst().leader().id());
            try (RawKafka raw = RawKafka.open(leaderPort)) {
                return produceError(raw, topic, description.topicId(), 5).name();
            }
        });
    }

    @Test
    void aRawProduceForAnUnknownTopicIsUnknown() throws Exception {
        assertEveryTargetAnswers("unknown", target -> {
            try (RawKafka raw = RawKafka.open(target.ports().getFirst())) {
                short version = raw.version(ApiKeys.PRODUCE);
                Errors error = produceError(raw, Clients.uniqueTopic("no-such"), Uuid.randomUuid(), 0);
                // By name before v13, by id from v13: the matching "unknown" code for each.
                Errors expected = version >= 13 ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION;
                return error == expected ? "unknown" : error + " at Produce v" + version;
            }
        });
    }

    /**
     * The idempotent producer's sequence checks, over raw requests to the leader with a producer
     * id from InitProducerId: a batch sent again is a duplicate, answered without error and with
     * the offset it was first written at; a batch whose sequence leaves a gap is
     * OUT_OF_ORDER_SEQUENCE_NUMBER; the next batch in sequence is written after the first.
     */
    @Test
    void idempotentDuplicatesGetTheirOriginalOffsetAndGapsAreOutOfOrder() throws Exception {
        assertEveryTargetAnswers(
                "first NONE@0, second NONE@2, duplicate of first NONE@0, gap OUT_OF_ORDER_SEQUENCE_NUMBER,"
                        + " next NONE@3, log end 4",
                target -> {
                    String topic = Clients.uniqueTopic("idempotence");
                    TopicDescription description;
                    try (Admin admin = target.admin()) {
                        description = Clients.createTopic(admin, topic, 1);
                    }
                    Uuid id = description.topicId();
                    int leaderPort = target.brokerPorts()
                            .get(description.partitions().getFirst().leader().id());
                    try (RawKafka raw = RawKafka.open(leaderPort)) {
                        short initVersion = raw.version(ApiKeys.INIT_PRODUCER_ID);
                        InitProducerIdResponse init = raw.connection()
                                .roundTrip(
                                        new InitProducerIdRequest.Builder(new InitProducerIdRequestData()
                                                        .setTransactionalId(null)
                                                        .setTransactionTimeoutMs(60_000))
                                                .build(initVersion),
                                        InitProducerIdResponse.class);
                        if (init.data().errorCode() != Errors.NONE.code()) {
                            return "InitProducerId "
                                    + Errors.forCode(init.data().errorCode());
                        }
                        long pid = init.data().producerId();
                        short epoch = init.data().producerEpoch();
                        StringBuilder outcome = new StringBuilder();
                        outcome.append("first ").append(answer(produce(raw, topic, id, 0, batch(pid, epoch, 0, 2))));
                        outcome.append(", second ").append(answer(produce(raw, topic, id, 0, batch(pid, epoch, 2, 1))));
                        outcome.append(", duplicate of first ")
                                .append(answer(produce(raw, topic, id, 0, batch(pid, epoch, 0, 2))));
                        outcome.append(", gap ").append(errorOnly(produce(raw, topic, id, 0, batch(pid, epoch, 7, 1))));
                        outcome.append(", next ").append(answer(produce(raw, topic, id, 0, batch(pid, epoch, 3, 1))));
                        try (Admin admin = target.admin()) {
                            TopicPartition partition = new TopicPartition(topic, 0);
                            long end = admin.listOffsets(Map.of(partition, OffsetSpec.latest()))
                                    .partitionResult(partition)
                                    .get(30, TimeUnit.SECONDS)
                                    .offset();
                            outcome.append(", log end ").append(end);
                        }
                        return outcome.toString();
                    }
                });
    }

    /**
     * KIP-937's timestamp bounds: a topic created with {@code message.timestamp.before.max.ms} of an
     * hour (and Kafka 4's default {@code message.timestamp.after.max.ms}, an hour) is sent one batch
     * over a raw Produce: a record stamped now, one two hours ago, one two hours ahead. The whole
     * batch is refused with INVALID_TIMESTAMP, Kafka's message and a record error naming each
     * refused record by its index in the batch (the milliseconds in the messages differ run to run
     * and are masked); nothing is written.
     */
    @Test
    void recordsOutsideTheTopicsTimestampBoundsAreAnInvalidTimestampWithAnErrorPerRecord() throws Exception {
        String recordError = "Timestamp <ms> of message with offset %d is out of range. The timestamp should be"
                + " within [<ms>, <ms>]";
        assertEveryTargetAnswers(
                "before.max.ms 3600000 DYNAMIC_TOPIC_CONFIG, after.max.ms 3600000 DEFAULT_CONFIG;"
                        + " INVALID_TIMESTAMP 'One or more records have been rejected due to invalid timestamp'"
                        + " base offset -1, log start 0, record errors [1: " + recordError.formatted(1) + ", 2: "
                        + recordError.formatted(2) + "]; log end 0",
                target -> {
                    String topic = Clients.uniqueTopic("timestamp-bounds");
                    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
                    try (Admin admin = target.admin()) {
                        admin.createTopics(List.of(new NewTopic(topic, Optional.of(1), Optional.empty())
                                        .configs(Map.of("message.timestamp.before.max.ms", "3600000"))))
                                .all()
                                .get(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS);
                        TopicDescription description = Clients.awaitLeaders(admin, topic, 1);
                        Config configs = admin.describeConfigs(List.of(resource))
                                .all()
                                .get(30, TimeUnit.SECONDS)
                                .get(resource);
                        StringBuilder outcome = new StringBuilder();
                        outcome.append("before.max.ms ")
                                .append(describe(configs.get("message.timestamp.before.max.ms")))
                                .append(", after.max.ms ")
                                .append(describe(configs.get("message.timestamp.after.max.ms")));
                        long now = System.currentTimeMillis();
                        long twoHoursMs = Duration.ofHours(2).toMillis();
                        MemoryRecords records = MemoryRecords.withRecords(
                                Compression.NONE,
                                new SimpleRecord(now, null, "now".getBytes(StandardCharsets.UTF_8)),
                                new SimpleRecord(now - twoHoursMs, null, "past".getBytes(StandardCharsets.UTF_8)),
                                new SimpleRecord(now + twoHoursMs, null, "future".getBytes(StandardCharsets.UTF_8)));
                        return outcome.append("; ")
                                .append(refusedProduce(
                                        target, admin, description, records, m -> m.replaceAll("-?\\d{10,}", "<ms>")))
                                .toString();
                    }
                });
    }

    /**
     * A compacted topic (issue 17) is sent one batch over a raw Produce: a keyed record and four
     * without a key. The whole batch is refused with INVALID_RECORD, Kafka's partition-level
     * message (which quotes the first three record errors) and a record error per keyless record,
     * by its index in the batch, naming the topic partition (replaced by {@code <tp>}); nothing is
     * written. {@code CompactionIT} compares what a producer is told.
     */
    @Test
    void recordsWithoutAKeyInACompactedTopicAreAnInvalidRecordWithAnErrorPerRecord() throws Exception {
        String recordError = "Compacted topic cannot accept message without key in topic partition <tp>";
        String quoted = "RecordError(batchIndex=%d, message='" + recordError + "')";
        assertEveryTargetAnswers(
                "INVALID_RECORD 'One or more records have been rejected due to 4 record errors in total, and only"
                        + " showing the first three errors at most: [" + quoted.formatted(1) + ", "
                        + quoted.formatted(2) + ", " + quoted.formatted(3) + "]' base offset -1, log start 0,"
                        + " record errors [1: " + recordError + ", 2: " + recordError + ", 3: " + recordError
                        + ", 4: " + recordError + "]; log end 0",
                target -> {
                    String topic = Clients.uniqueTopic("keyless");
                    TopicPartition partition = new TopicPartition(topic, 0);
                    try (Admin admin = target.admin()) {
                        admin.createTopics(List.of(new NewTopic(topic, Optional.of(1), Optional.empty())
                                        .configs(Map.of("cleanup.policy", "compact"))))
                                .all()
                                .get(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS);
                        TopicDescription description = Clients.awaitLeaders(admin, topic, 1);
                        long now = System.currentTimeMillis();
                        MemoryRecords records = MemoryRecords.withRecords(
                                Compression.NONE,
                                record("keyed"),
                                new SimpleRecord(now, null, "a".getBytes(StandardCharsets.UTF_8)),
                                new SimpleRecord(now, null, "b".getBytes(StandardCharsets.UTF_8)),
                                new SimpleRecord(now, null, "c".getBytes(StandardCharsets.UTF_8)),
                                new SimpleRecord(now, null, "d".getBytes(StandardCharsets.UTF_8)));
                        return refusedProduce(
                                target, admin, description, records, m -> m.replace(partition.toString(), "<tp>"));
                    }
                });
    }

    /**
     * Sends {@code records} to partition 0 of the described topic at its leader over a raw Produce
     * and describes the answer (error, message, base offset, log start offset, record errors; each
     * message through {@code mask}) and the partition's log end afterwards.
     */
    private static String refusedProduce(
            KafkaTarget target,
            Admin admin,
            TopicDescription description,
            MemoryRecords records,
            UnaryOperator<String> mask)
            throws Exception {
        TopicPartition partition = new TopicPartition(description.name(), 0);
        int leaderPort = target.brokerPorts()
                .get(description.partitions().getFirst().leader().id());
        StringBuilder outcome = new StringBuilder();
        try (RawKafka raw = RawKafka.open(leaderPort)) {
            var answer = produce(raw, description.name(), description.topicId(), 0, records);
            outcome.append(Errors.forCode(answer.errorCode()))
                    .append(" '")
                    .append(mask.apply(answer.errorMessage()))
                    .append("' base offset ")
                    .append(answer.baseOffset())
                    .append(", log start ")
                    .append(answer.logStartOffset())
                    .append(", record errors ")
                    .append(answer.recordErrors().stream()
                            .map(e -> e.batchIndex() + ": " + mask.apply(e.batchIndexErrorMessage()))
                            .toList());
        }
        long end = admin.listOffsets(Map.of(partition, OffsetSpec.latest()))
                .partitionResult(partition)
                .get(30, TimeUnit.SECONDS)
                .offset();
        return outcome.append("; log end ").append(end).toString();
    }

    private static String describe(ConfigEntry entry) {
        return entry == null ? "absent" : entry.value() + " " + entry.source();
    }

    private static MemoryRecords batch(long producerId, short epoch, int baseSequence, int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = record("seq-" + (baseSequence + i));
        }
        return MemoryRecords.withIdempotentRecords(Compression.NONE, producerId, epoch, baseSequence, records);
    }

    private static String answer(ProduceResponseData.PartitionProduceResponse response) {
        return Errors.forCode(response.errorCode()) + "@" + response.baseOffset();
    }

    private static String errorOnly(ProduceResponseData.PartitionProduceResponse response) {
        return Errors.forCode(response.errorCode()).name();
    }

    /**
     * Tributary only (every Tributary kind; on the degraded one the live non-leader is a follower
     * of the partition): a single Kafka broker leads every partition, so there is no non-leader to
     * ask. Kafka's answer to a Produce at a broker that does not lead the partition is
     * NOT_LEADER_OR_FOLLOWER (code 6), which makes clients refresh their metadata and retry.
     */
    @Test
    void aRawProduceToABrokerThatIsNotTheLeaderIsNotLeaderOrFollower() throws Exception {
        for (KafkaTargets.Kind kind : KafkaTargets.tributaryKindsOrSkip()) {
            KafkaTarget target = KafkaTargets.get(kind);
            String topic = Clients.uniqueTopic("not-leader");
            TopicDescription description;
            try (Admin admin = target.admin()) {
                description = Clients.createTopic(admin, topic, 1);
            }
            int leader = description.partitions().getFirst().leader().id();
            Map<Integer, String> errors = new LinkedHashMap<>();
            for (var broker : target.brokerPorts().entrySet()) {
                if (broker.getKey() != leader) {
                    try (RawKafka raw = RawKafka.open(broker.getValue())) {
                        errors.put(
                                broker.getKey(),
                                produceError(raw, topic, description.topicId(), 0)
                                        .name());
                    }
                }
            }
            assertThat(errors)
                    .as("%s: broker id -> Produce error; the leader is %d", kind, leader)
                    .hasSize(target.brokerCount() - 1);
            assertThat(errors.values())
                    .as("%s: errors %s; %s", kind, errors, target.logsHint())
                    .containsOnly("NOT_LEADER_OR_FOLLOWER");
        }
    }

    /** Sends one record to {@code partition} of the topic (by name or, from v13, by id) with acks=all. */
    static Errors produceError(RawKafka raw, String topic, Uuid topicId, int partition) throws Exception {
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE, record("v"));
        return Errors.forCode(produce(raw, topic, topicId, partition, records).errorCode());
    }

    /** Sends {@code records} to {@code partition} with acks=all and returns the partition's answer. */
    static ProduceResponseData.PartitionProduceResponse produce(
            RawKafka raw, String topic, Uuid topicId, int partition, MemoryRecords records) throws Exception {
        return raw.produce(topic, topicId, partition, (short) -1, records);
    }

    private static SimpleRecord record(String value) {
        return new SimpleRecord(
                System.currentTimeMillis(),
                "k".getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Runs the scenario on every enabled target ({@link Differential}): Kafka's outcome must be
     * {@code expected}, and every other target's must be Kafka's.
     */
    static void assertEveryTargetAnswers(String expected, Scenario scenario) {
        Differential.assertSameOutcome((target, outcome) -> {
            String answer = scenario.run(target);
            outcome.add("outcome", answer);
            if (target.kind() == KafkaTargets.Kind.KAFKA) {
                assertThat(answer).as("Apache Kafka's answer").isEqualTo(expected);
            }
        });
    }

    /** The class of what {@code action} threw (the cause, for an ExecutionException), or "no error". */
    static String failureOf(ThrowingAction action) {
        try {
            action.run();
            return "no error";
        } catch (ExecutionException e) {
            return e.getCause().getClass().getName();
        } catch (Exception e) {
            return e.getClass().getName();
        }
    }

    @FunctionalInterface
    interface ThrowingAction {
        void run() throws Exception;
    }
}
