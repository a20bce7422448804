package io.tributary.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.broker.cluster.ControlPlaneException.Kind;
import io.tributary.broker.log.TopicConfigDefaults;
import io.tributary.common.protocol.KafkaProtocolServer;
import io.tributary.common.protocol.ProtocolMetrics;
import io.tributary.common.protocol.ProtocolServerConfig;
import io.tributary.common.protocol.RequestHandler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicIdException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The metadata and admin handlers behind a real {@link KafkaProtocolServer} on 127.0.0.1, driven by
 * kafka-clients' own {@link Admin}: what a user of the AdminClient sees. The control plane is the
 * in-memory fake; this broker (id 0) is registered in it with the listener's port.
 */
class AdminClientProtocolTest {

    private final FakeControlPlane controlPlane = new FakeControlPlane();
    private final FakeMetadataView metadata = FakeMetadataView.following(controlPlane, 0);
    private final AdminApiConfig config = new AdminApiConfig(
            "test-cluster",
            2,
            (short) 1,
            AdminApiConfig.AutoCreateTopics.DISABLED,
            100,
            Duration.ofSeconds(5),
            TopicConfigDefaults.kafka());
    private KafkaProtocolServer server;
    private Admin admin;

    @BeforeEach
    void start() {
        List<RequestHandler> handlers = List.of(
                new MetadataHandler(metadata, controlPlane, config),
                new DescribeClusterHandler(metadata, config),
                new CreateTopicsHandler(metadata, controlPlane, config),
                new DeleteTopicsHandler(metadata, controlPlane, config),
                new CreatePartitionsHandler(metadata, controlPlane, config),
                new DescribeConfigsHandler(metadata, config),
                new IncrementalAlterConfigsHandler(metadata, controlPlane, config),
                new AlterConfigsHandler(metadata, controlPlane, config),
                new FindCoordinatorHandler(
                        new io.tributary.broker.cluster.GroupCoordinatorLocator(
                                controlPlane,
                                java.time.InstantSource.system(),
                                io.tributary.broker.cluster.GroupCoordinatorLocator.Config.DEFAULTS)::lookup,
                        listener -> FindCoordinatorHandler.self(metadata, listener)),
                new InitProducerIdHandler(
                        new ProducerIdAllocator(controlPlane, metadata::brokerId, 100, Runnable::run)));
        var serverConfig = ProtocolServerConfig.defaults("test", "127.0.0.1", 0);
        server = new KafkaProtocolServer(
                serverConfig, handlers, new ProtocolMetrics(new SimpleMeterRegistry(), serverConfig.name()));
        server.start();
        controlPlane.addBroker(0, server.port(), false);

        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + server.port());
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        admin = Admin.create(props);
    }

    @AfterEach
    void stop() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
        if (server != null) {
            server.close();
        }
    }

    private static Throwable cause(ThrowingRunnable call) {
        try {
            call.run();
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            return e;
        }
        throw new AssertionError("expected a failure");
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void describeClusterShowsThisBrokerTheClusterIdAndTheController() throws Exception {
        DescribeClusterResult cluster = admin.describeCluster();

        assertThat(cluster.clusterId().get()).isEqualTo("test-cluster");
        assertThat(cluster.controller().get().id()).isZero();
        assertThat(cluster.nodes().get())
                .extracting(Node::id, Node::host, Node::port)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(0, "127.0.0.1", server.port()));
    }

    @Test
    void createListDescribeGrowAndDeleteATopic() throws Exception {
        admin.createTopics(List.of(new NewTopic("orders", 3, (short) 1).configs(Map.of("retention.ms", "3600000"))))
                .all()
                .get();
        assertThat(admin.listTopics().names().get()).containsExactly("orders");

        TopicDescription described =
                admin.describeTopics(List.of("orders")).allTopicNames().get().get("orders");
        assertThat(described.topicId()).isNotEqualTo(Uuid.ZERO_UUID);
        assertThat(described.partitions())
                .extracting(
                        TopicPartitionInfo::partition,
                        p -> p.leader().id(),
                        p -> p.replicas().size())
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(0, 0, 1),
                        org.assertj.core.groups.Tuple.tuple(1, 0, 1),
                        org.assertj.core.groups.Tuple.tuple(2, 0, 1));
        TopicDescription byId = admin.describeTopics(TopicCollection.ofTopicIds(List.of(described.topicId())))
                .allTopicIds()
                .get()
                .get(described.topicId());
        assertThat(byId.name()).isEqualTo("orders");

        admin.createPartitions(Map.of("orders", NewPartitions.increaseTo(5)))
                .all()
                .get();
        assertThat(admin.describeTopics(List.of("orders"))
                        .allTopicNames()
                        .get()
                        .get("orders")
                        .partitions())
                .hasSize(5);

        admin.deleteTopics(List.of("orders")).all().get();
        assertThat(admin.listTopics().names().get()).isEmpty();
        assertThat(cause(() ->
                        admin.describeTopics(List.of("orders")).allTopicNames().get()))
                .isInstanceOf(UnknownTopicOrPartitionException.class);
        assertThat(cause(() -> admin.describeTopics(TopicCollection.ofTopicIds(List.of(described.topicId())))
                        .allTopicIds()
                        .get()))
                .isInstanceOf(UnknownTopicIdException.class);
    }

    @Test
    void aTopicWithoutCountsTakesTheBrokerDefaultsAndCreateReturnsThem() throws Exception {
        var result = admin.createTopics(List.of(new NewTopic("defaults", Optional.empty(), Optional.empty())));

        assertThat(result.numPartitions("defaults").get()).isEqualTo(2);
        assertThat(result.replicationFactor("defaults").get()).isEqualTo(1);
        assertThat(result.topicId("defaults").get())
                .isEqualTo(controlPlane.image().topic("defaults").orElseThrow().id());
        assertThat(result.config("defaults").get().get("retention.ms").value()).isEqualTo("604800000");
    }

    @Test
    void createTopicsErrorsReachTheClientAsKafkasExceptions() throws Exception {
        admin.createTopics(List.of(new NewTopic("exists", 1, (short) 1))).all().get();

        assertThat(cause(() -> admin.createTopics(List.of(new NewTopic("exists", 1, (short) 1)))
                        .all()
                        .get()))
                .isInstanceOf(TopicExistsException.class);
        assertThat(cause(() -> admin.createTopics(List.of(new NewTopic("bad name", 1, (short) 1)))
                        .all()
                        .get()))
                .isInstanceOf(InvalidTopicException.class);
        assertThat(cause(() -> admin.createTopics(List.of(new NewTopic("rf", 1, (short) 2)))
                        .all()
                        .get()))
                .isInstanceOf(InvalidReplicationFactorException.class);
        assertThat(cause(() -> admin.createTopics(
                                List.of(new NewTopic("cfg", 1, (short) 1).configs(Map.of("retention.ms", "x"))))
                        .all()
                        .get()))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("retention.ms");
        assertThat(cause(() -> admin.createTopics(List.of(new NewTopic("manual", Map.of(0, List.of(0)))))
                        .all()
                        .get()))
                .isInstanceOf(InvalidRequestException.class);
        assertThat(cause(() -> admin.createPartitions(Map.of("exists", NewPartitions.increaseTo(1)))
                        .all()
                        .get()))
                .isInstanceOf(InvalidPartitionsException.class);
    }

    @Test
    void validateOnlyCreatesNothing() throws Exception {
        admin.createTopics(List.of(new NewTopic("dry", 4, (short) 1)), new CreateTopicsOptions().validateOnly(true))
                .all()
                .get();

        assertThat(admin.listTopics().names().get()).isEmpty();
    }

    @Test
    void theAdminClientRetriesWhileTheCoordinatorsHaveNoLeader() throws Exception {
        controlPlane.failNext(Kind.UNAVAILABLE, "no leader among the coordinators");

        admin.createTopics(List.of(new NewTopic("retried", 1, (short) 1))).all().get();

        assertThat(controlPlane.image().topic("retried")).isPresent();
    }

    @Test
    void describeAndAlterTopicConfigs() throws Exception {
        admin.createTopics(List.of(new NewTopic("cfg", 1, (short) 1))).all().get();
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "cfg");

        admin.incrementalAlterConfigs(Map.of(
                        topic,
                        List.of(
                                new AlterConfigOp(new ConfigEntry("retention.ms", "60000"), AlterConfigOp.OpType.SET),
                                new AlterConfigOp(
                                        new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.APPEND))))
                .all()
                .get();
        Config config = admin.describeConfigs(List.of(topic)).all().get().get(topic);

        assertThat(config.get("retention.ms").value()).isEqualTo("60000");
        assertThat(config.get("retention.ms").source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        assertThat(config.get("cleanup.policy").value()).isEqualTo("compact,delete");
        assertThat(config.get("segment.bytes").value()).isEqualTo("1073741824");
        assertThat(config.get("segment.bytes").source()).isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
        assertThat(config.get("segment.bytes").isDefault()).isTrue();

        admin.incrementalAlterConfigs(Map.of(
                        topic,
                        List.of(new AlterConfigOp(new ConfigEntry("retention.ms", ""), AlterConfigOp.OpType.DELETE))))
                .all()
                .get();
        assertThat(admin.describeConfigs(List.of(topic))
                        .all()
                        .get()
                        .get(topic)
                        .get("retention.ms")
                        .value())
                .isEqualTo("604800000");

        assertThat(cause(() -> admin.incrementalAlterConfigs(Map.of(
                                topic,
                                List.of(new AlterConfigOp(
                                        new ConfigEntry("retention.ms", "1"), AlterConfigOp.OpType.APPEND))))
                        .all()
                        .get()))
                .isInstanceOf(InvalidConfigurationException.class);
    }

    @Test
    void brokerConfigsAreReadableButReadOnly() throws Exception {
        ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "0");

        Config config = admin.describeConfigs(List.of(broker)).all().get().get(broker);
        assertThat(config.get("num.partitions").value()).isEqualTo("2");
        assertThat(config.get("log.retention.ms").isReadOnly()).isTrue();

        assertThat(cause(() -> admin.incrementalAlterConfigs(Map.of(
                                broker,
                                List.of(new AlterConfigOp(
                                        new ConfigEntry("log.retention.ms", "1"), AlterConfigOp.OpType.SET))))
                        .all()
                        .get()))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("read-only");
    }

    @Test
    void aTransactionalProducerFailsAtOnceSayingTransactionsAreNotSupported() {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + server.port());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx-1");
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        try (var producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            assertThatThrownBy(producer::initTransactions)
                    .isInstanceOf(KafkaException.class)
                    .hasMessageContaining("transactions are not supported");
        }
    }
}
