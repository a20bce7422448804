package io.tributary.systemtests.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
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
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code AdminClient} against each target: create (and create again), describe with topic ids,
 * list offsets (earliest, latest, by timestamp, max timestamp), delete records, alter and describe
 * configs, create partitions, delete topics. The expectations are Kafka's behaviour, so a target
 * passes when it answers as Kafka does.
 */
@ExtendWith(KafkaTargets.class)
class AdminClientIT {

    /** Timestamps of the list-offsets topic's records, by offset: the largest is at offset 6. */
    private static final long[] TIMESTAMPS = {1000, 2000, 3000, 4000, 5000, 6000, 9000, 7000, 8000};

    static List<KafkaTargets.Kind> targets() {
        return KafkaTargets.enabledList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void createDescribeAndCreateAgain(KafkaTargets.Kind kind) throws Exception {
        KafkaTarget target = KafkaTargets.get(kind);
        String topic = Clients.uniqueTopic("admin-create");
        try (Admin admin = target.admin()) {
            TopicDescription created = Clients.createTopic(admin, topic, 3);

            assertThat(created.name()).isEqualTo(topic);
            assertThat(created.isInternal()).isFalse();
            assertThat(created.topicId()).isNotNull().isNotEqualTo(Uuid.ZERO_UUID);
            assertThat(created.partitions()).hasSize(3);
            // The cluster's default replication factor; the leader is a live broker, the ISR every
            // replica but a stopped broker's (on the degraded target: 3 replicas, 2 in sync).
            Set<Integer> brokerIds = target.brokerPorts().keySet();
            created.partitions().forEach(p -> {
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
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains(topic);

            assertThatThrownBy(() -> get(admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1)))
                            .all()))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(TopicExistsException.class);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void describeClusterListsEveryBroker(KafkaTargets.Kind kind) throws Exception {
        KafkaTarget target = KafkaTargets.get(kind);
        try (Admin admin = target.admin()) {
            DescribeClusterResult cluster = admin.describeCluster();

            Collection<Node> nodes = get(cluster.nodes());
            assertThat(nodes)
                    .extracting(Node::id)
                    .containsExactlyInAnyOrderElementsOf(target.brokerPorts().keySet());
            nodes.forEach(node ->
                    assertThat(node.port()).isEqualTo(target.brokerPorts().get(node.id())));
            assertThat(get(cluster.clusterId())).isNotBlank();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void listOffsetsEarliestLatestByTimestampAndMaxTimestamp(KafkaTargets.Kind kind) throws Exception {
        KafkaTarget target = KafkaTargets.get(kind);
        String topic = Clients.uniqueTopic("admin-offsets");
        TopicPartition partition = new TopicPartition(topic, 0);
        try (Admin admin = target.admin()) {
            Clients.createTopic(admin, topic, 1);
            assertThat(offsets(admin, partition, OffsetSpec.earliest()).offset())
                    .isZero();
            assertThat(offsets(admin, partition, OffsetSpec.latest()).offset()).isZero();

            produceWithTimestamps(target, topic);

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

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void deleteRecordsMovesTheLogStartAndConsumersStartThere(KafkaTargets.Kind kind) throws Exception {
        KafkaTarget target = KafkaTargets.get(kind);
        String topic = Clients.uniqueTopic("admin-delete-records");
        TopicPartition partition = new TopicPartition(topic, 0);
        try (Admin admin = target.admin()) {
            Clients.createTopic(admin, topic, 1);
            produceWithTimestamps(target, topic);

            long lowWatermark = get(admin.deleteRecords(Map.of(partition, RecordsToDelete.beforeOffset(4)))
                            .lowWatermarks()
                            .get(partition))
                    .lowWatermark();

            assertThat(lowWatermark).isEqualTo(4);
            assertThat(offsets(admin, partition, OffsetSpec.earliest()).offset())
                    .isEqualTo(4);
            assertThat(offsets(admin, partition, OffsetSpec.latest()).offset()).isEqualTo(TIMESTAMPS.length);
        }
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(target, Map.of())) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            assertThat(consumer.position(partition)).isEqualTo(4);
            List<ConsumerRecord<byte[], byte[]>> records = Clients.pollAtLeast(consumer, TIMESTAMPS.length - 4);
            assertThat(records).extracting(ConsumerRecord::offset).containsExactly(4L, 5L, 6L, 7L, 8L);
            assertThat(records)
                    .extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
                    .containsExactly("v4", "v5", "v6", "v7", "v8");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void alterAndDescribeTopicConfigs(KafkaTargets.Kind kind) throws Exception {
        KafkaTarget target = KafkaTargets.get(kind);
        String topic = Clients.uniqueTopic("admin-configs");
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        try (Admin admin = target.admin()) {
            Clients.createTopic(admin, topic, 1);
            ConfigEntry before = retention(admin, resource);
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

            get(admin.incrementalAlterConfigs(Map.of(
                            resource,
                            List.of(new AlterConfigOp(
                                    new ConfigEntry("retention.ms", ""), AlterConfigOp.OpType.DELETE))))
                    .all());
            Awaitility.await("retention.ms back to the default on " + kind)
                    .atMost(Clients.PATIENCE)
                    .untilAsserted(
                            () -> assertThat(retention(admin, resource).value()).isEqualTo("604800000"));

            // A name that is no topic config is refused, and nothing changes.
            assertThatThrownBy(() -> get(admin.incrementalAlterConfigs(Map.of(
                                    resource,
                                    List.of(new AlterConfigOp(
                                            new ConfigEntry("no.such.config", "1"), AlterConfigOp.OpType.SET))))
                            .all()))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(InvalidConfigurationException.class);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void createPartitionsGrowsATopicAndRefusesToShrinkIt(KafkaTargets.Kind kind) throws Exception {
        KafkaTarget target = KafkaTargets.get(kind);
        String topic = Clients.uniqueTopic("admin-partitions");
        try (Admin admin = target.admin()) {
            Uuid id = Clients.createTopic(admin, topic, 2).topicId();

            get(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(5)))
                    .all());

            TopicDescription grown = Clients.awaitLeaders(admin, topic, 5);
            assertThat(grown.topicId()).isEqualTo(id);
            assertThatThrownBy(() -> get(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(3)))
                            .all()))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(InvalidPartitionsException.class);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void deleteTopicsMakesTheTopicUnknown(KafkaTargets.Kind kind) throws Exception {
        KafkaTarget target = KafkaTargets.get(kind);
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
            assertThatThrownBy(() -> get(admin.deleteTopics(List.of(topic)).all()))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(UnknownTopicOrPartitionException.class);
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
