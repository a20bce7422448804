package io.tributary.systemtests.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Differential ({@link Differential}): {@code AdminClient} against each target: create (and create again), describe with topic ids,
 * list offsets (earliest, latest, by timestamp, max timestamp), delete records, alter and describe
 * configs, create partitions, delete topics. Each scenario asserts Kafka's behaviour and writes down
 * what the admin client was told (offsets and timestamps, config values with their source, type and
 * flags, the exception of each refused call, normalised: no topic names, ids or broker ids); every
 * target's outcome must be Apache Kafka's. Each scenario runs on every target at the same time
 * ({@link Differential#assertSameOutcomeAtOnce}): a few admin calls and waits for metadata, each
 * target its own topics, nothing that depends on timing; the first one also starts the targets
 * (Apache Kafka beside the first Tributary cluster, see {@link KafkaTargets#get}).
 */
@OnSharedTargets
class AdminClientIT {

    /** Timestamps of the list-offsets topic's records, by offset: the largest is at offset 6. */
    private static final long[] TIMESTAMPS = {1000, 2000, 3000, 4000, 5000, 6000, 9000, 7000, 8000};

    @Test
    void createDescribeAndCreateAgain() {
        Differential.assertSameOutcomeAtOnce(AdminClientIT::createDescribeAndCreateAgainOn);
    }

    private static void createDescribeAndCreateAgainOn(KafkaTarget target, Differential.Outcome outcome)
            throws Exception {
        String topic = Clients.uniqueTopic("admin-create");
        try (Admin admin = target.admin()) {
            TopicDescription created = Clients.createTopic(admin, topic, 3);
            outcome.add(
                    "created",
                    "internal " + created.isInternal() + ", topic id " + describe(created.topicId()) + ", "
                            + created.partitions().size() + " partitions");

            assertThat(created.name()).isEqualTo(topic);
            assertThat(created.isInternal()).isFalse();
            assertThat(created.topicId()).isNotNull().isNotEqualTo(Uuid.ZERO_UUID);
            assertThat(created.partitions()).hasSize(3);
            // The cluster's default replication factor; the leader is a live broker, the ISR every
            // replica but a stopped broker's (on the degraded target: 3 replicas, 2 in sync).
            Set<Integer> brokerIds = target.brokerPorts().keySet();
            created.partitions().forEach(p -> {
                outcome.add(
                        "partition " + p.partition(),
                        "leader first replica "
                                + (p.leader().id() == p.replicas().getFirst().id())
                                + ", replicas the default replication factor "
                                + (p.replicas().size() == target.defaultReplicationFactor())
                                + ", isr the live replicas "
                                + p.isr().stream().allMatch(n -> brokerIds.contains(n.id())));
                assertThat(p.leader().id()).isIn(brokerIds);
                List<Integer> replicas = p.replicas().stream().map(Node::id).toList();
                assertThat(replicas)
                        .as("replicas of %s", p)
                        .hasSize(target.defaultReplicationFactor())
                        .doesNotHaveDuplicates()
                        .startsWith(p.leader().id());
                assertThat(p.isr())
                        .extracting(Node::id)
                        .as("ISR of %s", p)
                        .containsExactlyInAnyOrderElementsOf(replicas.stream()
                                .filter(r -> !target.stoppedBrokers().contains(r))
                                .toList());
            });
            // The same topic, found by its id.
            TopicDescription byId = admin.describeTopics(TopicCollection.ofTopicIds(List.of(created.topicId())))
                    .allTopicIds()
                    .get(30, TimeUnit.SECONDS)
                    .get(created.topicId());
            assertThat(byId.name()).isEqualTo(topic);
            outcome.add("described by id", byId.name().equals(topic) ? "the same topic" : byId.name());
            outcome.add(
                    "listed",
                    admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic));

            String again =
                    BadRequestsIT.failureOf(() -> get(admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1)))
                            .all()));
            outcome.add("created again", again);
            assertThat(again).isEqualTo(TopicExistsException.class.getName());
        }
    }

    @Test
    void describeClusterListsEveryBroker() {
        Differential.assertSameOutcomeAtOnce(AdminClientIT::describeClusterListsEveryBrokerOn);
    }

    private static void describeClusterListsEveryBrokerOn(KafkaTarget target, Differential.Outcome outcome)
            throws Exception {
        try (Admin admin = target.admin()) {
            DescribeClusterResult cluster = admin.describeCluster();

            Collection<Node> nodes = get(cluster.nodes());
            assertThat(nodes)
                    .extracting(Node::id)
                    .containsExactlyInAnyOrderElementsOf(target.brokerPorts().keySet());
            nodes.forEach(node ->
                    assertThat(node.port()).isEqualTo(target.brokerPorts().get(node.id())));
            assertThat(get(cluster.clusterId())).isNotBlank();
            outcome.add(
                    "nodes",
                    "every live broker "
                            + nodes.stream()
                                    .map(Node::id)
                                    .collect(Collectors.toSet())
                                    .equals(target.brokerPorts().keySet())
                            + ", at its listener's port");
            outcome.add("cluster id", "not blank");
            Node controller = get(cluster.controller());
            outcome.add(
                    "controller",
                    "one of the live brokers " + target.brokerPorts().containsKey(controller.id()));
        }
    }

    /**
     * Delegation-token calls on a PLAINTEXT listener: refused (a connection that did not
     * authenticate may not ask for tokens), each with the same error on both.
     */
    @Test
    void delegationTokenCallsOnAPlaintextListenerAreRefused() {
        Differential.assertSameOutcomeAtOnce(AdminClientIT::delegationTokenCallsOnAPlaintextListenerAreRefusedOn);
    }

    private static void delegationTokenCallsOnAPlaintextListenerAreRefusedOn(
            KafkaTarget target, Differential.Outcome outcome) throws Exception {
        byte[] hmac = "not-a-token-hmac".getBytes(StandardCharsets.UTF_8);
        try (Admin admin = target.admin()) {
            outcome.add("create", errorOf(admin.createDelegationToken().delegationToken()));
            outcome.add("describe", errorOf(admin.describeDelegationToken().delegationTokens()));
            outcome.add("renew", errorOf(admin.renewDelegationToken(hmac).expiryTimestamp()));
            outcome.add("expire", errorOf(admin.expireDelegationToken(hmac).expiryTimestamp()));
        }
    }

    /** The class of the error {@code call} fails with, or what it answered. */
    private static String errorOf(KafkaFuture<?> call) throws Exception {
        try {
            return "answered " + call.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause().getClass().getSimpleName();
        }
    }

    @Test
    void listOffsetsEarliestLatestByTimestampAndMaxTimestamp() {
        Differential.assertSameOutcomeAtOnce(AdminClientIT::listOffsetsEarliestLatestByTimestampAndMaxTimestampOn);
    }

    private static void listOffsetsEarliestLatestByTimestampAndMaxTimestampOn(
            KafkaTarget target, Differential.Outcome outcome) throws Exception {
        String topic = Clients.uniqueTopic("admin-offsets");
        TopicPartition partition = new TopicPartition(topic, 0);
        try (Admin admin = target.admin()) {
            Clients.createTopic(admin, topic, 1);
            assertThat(offsets(admin, partition, OffsetSpec.earliest()).offset())
                    .isZero();
            assertThat(offsets(admin, partition, OffsetSpec.latest()).offset()).isZero();

            outcome.add(
                    "empty: earliest, latest",
                    describe(offsets(admin, partition, OffsetSpec.earliest())) + ", "
                            + describe(offsets(admin, partition, OffsetSpec.latest())));
            produceWithTimestamps(target, topic);
            Map<String, OffsetSpec> specs = new LinkedHashMap<>();
            specs.put("earliest", OffsetSpec.earliest());
            specs.put("latest", OffsetSpec.latest());
            specs.put("timestamp 3500", OffsetSpec.forTimestamp(3500));
            specs.put("timestamp 7000", OffsetSpec.forTimestamp(7000));
            specs.put("timestamp 10000", OffsetSpec.forTimestamp(10_000));
            specs.put("max timestamp", OffsetSpec.maxTimestamp());
            for (var spec : specs.entrySet()) {
                outcome.add(spec.getKey(), describe(offsets(admin, partition, spec.getValue())));
            }

            assertThat(offsets(admin, partition, OffsetSpec.earliest()).offset())
                    .isZero();
            assertThat(offsets(admin, partition, OffsetSpec.latest()).offset()).isEqualTo(TIMESTAMPS.length);
            // The first offset whose timestamp is at or after the one asked for.
            ListOffsetsResultInfo byTime = offsets(admin, partition, OffsetSpec.forTimestamp(3500));
            assertThat(byTime.offset()).isEqualTo(3);
            assertThat(byTime.timestamp()).isEqualTo(4000);
            ListOffsetsResultInfo exact = offsets(admin, partition, OffsetSpec.forTimestamp(7000));
            assertThat(exact.offset()).isEqualTo(6);
            assertThat(exact.timestamp()).isEqualTo(9000);
            // After every timestamp: no offset.
            assertThat(offsets(admin, partition, OffsetSpec.forTimestamp(10_000))
                            .offset())
                    .isEqualTo(-1);
            ListOffsetsResultInfo max = offsets(admin, partition, OffsetSpec.maxTimestamp());
            assertThat(max.offset()).isEqualTo(6);
            assertThat(max.timestamp()).isEqualTo(9000);
        }
    }

    @Test
    void deleteRecordsMovesTheLogStartAndConsumersStartThere() {
        Differential.assertSameOutcomeAtOnce(AdminClientIT::deleteRecordsMovesTheLogStartAndConsumersStartThereOn);
    }

    private static void deleteRecordsMovesTheLogStartAndConsumersStartThereOn(
            KafkaTarget target, Differential.Outcome outcome) throws Exception {
        String topic = Clients.uniqueTopic("admin-delete-records");
        TopicPartition partition = new TopicPartition(topic, 0);
        try (Admin admin = target.admin()) {
            Clients.createTopic(admin, topic, 1);
            produceWithTimestamps(target, topic);

            long lowWatermark = get(admin.deleteRecords(Map.of(partition, RecordsToDelete.beforeOffset(4)))
                            .lowWatermarks()
                            .get(partition))
                    .lowWatermark();

            outcome.add("low watermark", lowWatermark);
            outcome.add(
                    "earliest, latest",
                    describe(offsets(admin, partition, OffsetSpec.earliest())) + ", "
                            + describe(offsets(admin, partition, OffsetSpec.latest())));
            assertThat(lowWatermark).isEqualTo(4);
            assertThat(offsets(admin, partition, OffsetSpec.earliest()).offset())
                    .isEqualTo(4);
            assertThat(offsets(admin, partition, OffsetSpec.latest()).offset()).isEqualTo(TIMESTAMPS.length);
        }
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(target, Map.of())) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long start = consumer.position(partition);
            outcome.add("a consumer from the beginning starts at", start);
            assertThat(start).isEqualTo(4);
            List<ConsumerRecord<byte[], byte[]>> records = Clients.pollAtLeast(consumer, TIMESTAMPS.length - 4);
            outcome.add(
                    "a consumer from the beginning reads",
                    records.stream()
                            .map(r -> r.offset() + "=" + new String(r.value(), StandardCharsets.UTF_8))
                            .toList());
            assertThat(records).extracting(ConsumerRecord::offset).containsExactly(4L, 5L, 6L, 7L, 8L);
            assertThat(records)
                    .extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
                    .containsExactly("v4", "v5", "v6", "v7", "v8");
        }
    }

    @Test
    void alterAndDescribeTopicConfigs() {
        Differential.assertSameOutcomeAtOnce(AdminClientIT::alterAndDescribeTopicConfigsOn);
    }

    private static void alterAndDescribeTopicConfigsOn(KafkaTarget target, Differential.Outcome outcome)
            throws Exception {
        KafkaTargets.Kind kind = target.kind();
        String topic = Clients.uniqueTopic("admin-configs");
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        try (Admin admin = target.admin()) {
            Clients.createTopic(admin, topic, 1);
            ConfigEntry before = retention(admin, resource);
            outcome.add("retention.ms before", describe(before));
            assertThat(before.value()).isEqualTo("604800000");
            assertThat(before.source()).isNotEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);

            get(admin.incrementalAlterConfigs(Map.of(
                            resource,
                            List.of(new AlterConfigOp(
                                    new ConfigEntry("retention.ms", "123456"), AlterConfigOp.OpType.SET))))
                    .all());

            Awaitility.await("retention.ms set on " + kind)
                    .atMost(Clients.PATIENCE)
                    .untilAsserted(() -> {
                        ConfigEntry set = retention(admin, resource);
                        assertThat(set.value()).isEqualTo("123456");
                        assertThat(set.source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
                    });
            outcome.add("retention.ms set", describe(retention(admin, resource)));

            get(admin.incrementalAlterConfigs(Map.of(
                            resource,
                            List.of(new AlterConfigOp(
                                    new ConfigEntry("retention.ms", ""), AlterConfigOp.OpType.DELETE))))
                    .all());
            Awaitility.await("retention.ms back to the default on " + kind)
                    .atMost(Clients.PATIENCE)
                    .untilAsserted(
                            () -> assertThat(retention(admin, resource).value()).isEqualTo("604800000"));
            outcome.add("retention.ms deleted", describe(retention(admin, resource)));

            // A name that is no topic config is refused, and nothing changes.
            String unknown = BadRequestsIT.failureOf(() -> get(admin.incrementalAlterConfigs(Map.of(
                            resource,
                            List.of(new AlterConfigOp(
                                    new ConfigEntry("no.such.config", "1"), AlterConfigOp.OpType.SET))))
                    .all()));
            outcome.add("an unknown config set", unknown);
            assertThat(unknown).isEqualTo(InvalidConfigurationException.class.getName());
            outcome.add("retention.ms after", describe(retention(admin, resource)));
        }
    }

    @Test
    void createPartitionsGrowsATopicAndRefusesToShrinkIt() {
        Differential.assertSameOutcomeAtOnce(AdminClientIT::createPartitionsGrowsATopicAndRefusesToShrinkItOn);
    }

    private static void createPartitionsGrowsATopicAndRefusesToShrinkItOn(
            KafkaTarget target, Differential.Outcome outcome) throws Exception {
        String topic = Clients.uniqueTopic("admin-partitions");
        try (Admin admin = target.admin()) {
            Uuid id = Clients.createTopic(admin, topic, 2).topicId();

            get(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(5)))
                    .all());

            TopicDescription grown = Clients.awaitLeaders(admin, topic, 5);
            assertThat(grown.topicId()).isEqualTo(id);
            outcome.add(
                    "grown",
                    grown.partitions().size() + " partitions, the same topic id "
                            + grown.topicId().equals(id));
            String shrink =
                    BadRequestsIT.failureOf(() -> get(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(3)))
                            .all()));
            String same =
                    BadRequestsIT.failureOf(() -> get(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(5)))
                            .all()));
            outcome.add("shrunk to 3", shrink);
            outcome.add("increased to 5 again", same);
            assertThat(shrink).isEqualTo(InvalidPartitionsException.class.getName());
        }
    }

    @Test
    void deleteTopicsMakesTheTopicUnknown() {
        Differential.assertSameOutcomeAtOnce(AdminClientIT::deleteTopicsMakesTheTopicUnknownOn);
    }

    private static void deleteTopicsMakesTheTopicUnknownOn(KafkaTarget target, Differential.Outcome outcome)
            throws Exception {
        KafkaTargets.Kind kind = target.kind();
        String topic = Clients.uniqueTopic("admin-delete");
        try (Admin admin = target.admin()) {
            Clients.createTopic(admin, topic, 2);

            get(admin.deleteTopics(List.of(topic)).all());

            Awaitility.await(topic + " gone on " + kind)
                    .atMost(Clients.PATIENCE)
                    .pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> {
                        assertThat(get(admin.listTopics().names())).doesNotContain(topic);
                        assertThatThrownBy(() ->
                                        get(admin.describeTopics(List.of(topic)).allTopicNames()))
                                .isInstanceOf(ExecutionException.class)
                                .cause()
                                .isInstanceOf(UnknownTopicOrPartitionException.class);
                    });
            outcome.add(
                    "listed after the delete", get(admin.listTopics().names()).contains(topic));
            String described = BadRequestsIT.failureOf(
                    () -> get(admin.describeTopics(List.of(topic)).allTopicNames()));
            String again = BadRequestsIT.failureOf(
                    () -> get(admin.deleteTopics(List.of(topic)).all()));
            outcome.add("described after the delete", described);
            outcome.add("deleted again", again);
            assertThat(again).isEqualTo(UnknownTopicOrPartitionException.class.getName());
        }
    }

    private static void produceWithTimestamps(KafkaTarget target, String topic) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer =
                Clients.producer(target, Map.of(ProducerConfig.ACKS_CONFIG, "all"))) {
            for (int i = 0; i < TIMESTAMPS.length; i++) {
                producer.send(new ProducerRecord<>(
                                topic, 0, TIMESTAMPS[i], null, ("v" + i).getBytes(StandardCharsets.UTF_8)))
                        .get(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS);
            }
        }
    }

    /** A topic id as a client can compare it: present (not null, not zero) or not. */
    private static String describe(Uuid topicId) {
        return topicId == null || topicId.equals(Uuid.ZERO_UUID) ? "missing" : "present";
    }

    private static String describe(ListOffsetsResultInfo info) {
        return "offset " + info.offset() + " timestamp " + info.timestamp() + " leader epoch "
                + info.leaderEpoch().map(e -> "present").orElse("none");
    }

    private static String describe(ConfigEntry entry) {
        return entry.value() + " (" + entry.source() + ", read-only " + entry.isReadOnly() + ", sensitive "
                + entry.isSensitive() + ", type " + entry.type() + ")";
    }

    private static ListOffsetsResultInfo offsets(Admin admin, TopicPartition partition, OffsetSpec spec)
            throws Exception {
        return get(admin.listOffsets(Map.of(partition, spec)).partitionResult(partition));
    }

    private static ConfigEntry retention(Admin admin, ConfigResource resource) throws Exception {
        Config config = get(admin.describeConfigs(List.of(resource)).all()).get(resource);
        ConfigEntry entry = config.get("retention.ms");
        assertThat(entry).as("retention.ms in %s", config).isNotNull();
        return entry;
    }

    private static <T> T get(KafkaFuture<T> future) throws Exception {
        return future.get(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }
}
