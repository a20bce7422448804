package io.tributary.coordinator.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.common.protocol.KafkaProtocolServer;
import io.tributary.common.protocol.ProtocolMetrics;
import io.tributary.common.protocol.ProtocolServerConfig;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.coordinator.group.ConsumerMigrationPolicy;
import io.tributary.coordinator.group.FakeTopics;
import io.tributary.coordinator.group.GroupConfig;
import io.tributary.coordinator.group.GroupCoordinator;
import io.tributary.coordinator.group.GroupDescription;
import io.tributary.coordinator.group.InMemoryConsumerGroupStore;
import io.tributary.coordinator.group.InMemoryOffsetStore;
import io.tributary.coordinator.group.TopicView.TopicInfo;
import io.tributary.coordinator.group.classic.ClassicGroupConfig;
import io.tributary.coordinator.group.classic.ClassicGroupCoordinator;
import io.tributary.coordinator.group.classic.ClassicGroupDescription;
import io.tributary.coordinator.group.classic.ClassicGroupState;
import io.tributary.coordinator.group.classic.InMemoryClassicGroupStore;
import io.tributary.coordinator.group.streams.StreamsGroupConfig;
import io.tributary.coordinator.group.streams.StreamsGroupCoordinator;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real kafka-clients 4.4 consumers ({@code group.protocol=consumer}) and an AdminClient against the
 * group handlers. The data path is stubbed on the same listener (Metadata naming this node leader
 * of every partition, FindCoordinator pointing here, ListOffsets at 0, Fetch with no records): what
 * is tested is the group protocol as the real client drives it (join, assignment by topic id,
 * revocation when a second member joins, commit and committed through topic ids, leave on close,
 * describe, offsets and delete through the AdminClient).
 */
class KafkaClientsGroupTest {

    private static final String GROUP = "real-clients";
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final FakeTopics topics = new FakeTopics();
    private final TopicInfo topic = topics.create("events", 4);
    private final InMemoryOffsetStore store = new InMemoryOffsetStore();
    private final InMemoryClassicGroupStore classicStore = new InMemoryClassicGroupStore();
    /** Groups for real clients in a test: a 10 s session, 200 ms heartbeats. */
    static final GroupConfig FAST_GROUPS = new GroupConfig(
            Duration.ofSeconds(10),
            Duration.ofMillis(200),
            Duration.ofMinutes(5),
            100,
            100,
            4096,
            100,
            1000,
            100,
            "uniform");

    private final GroupConfig config = FAST_GROUPS;
    private final AtomicBoolean leader = new AtomicBoolean(true);
    private final AtomicLong term = new AtomicLong(1);
    private final InMemoryConsumerGroupStore consumerStore = new InMemoryConsumerGroupStore();
    private final GroupService service = new GroupService(
            new GroupCoordinator(config, topics),
            new ClassicGroupCoordinator(
                    ClassicGroupConfig.DEFAULTS.withInitialRebalanceDelay(Duration.ZERO), UUID::randomUUID),
            new StreamsGroupCoordinator(config, StreamsGroupConfig.DEFAULTS, topics),
            store,
            classicStore,
            consumerStore,
            topics -> {},
            topics,
            leader::get,
            term::get,
            InstantSource.system(),
            ConsumerMigrationPolicy.BIDIRECTIONAL);
    private final AtomicInteger port = new AtomicInteger();
    private final List<AutoCloseable> clients = new ArrayList<>();
    private KafkaProtocolServer server;

    @BeforeEach
    void start() {
        List<RequestHandler> handlers = new ArrayList<>(GroupHandlersTest.handlers(service));
        handlers.addAll(new StubbedDataPath(topics, port::get).handlers());
        server = new KafkaProtocolServer(
                ProtocolServerConfig.defaults("test", "127.0.0.1", 0),
                handlers,
                new ProtocolMetrics(new SimpleMeterRegistry(), "test"));
        server.start();
        port.set(server.port());
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable client : clients.reversed()) {
            client.close();
        }
        server.close();
    }

    private KafkaConsumer<byte[], byte[]> consumer(String clientId) {
        return consumer(clientId, new Properties());
    }

    private KafkaConsumer<byte[], byte[]> consumer(String clientId, Properties properties) {
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port.get());
        properties.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        properties.putIfAbsent(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        properties.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        var consumer = new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        clients.add(consumer);
        return consumer;
    }

    private Set<TopicPartition> all() {
        Set<TopicPartition> all = new HashSet<>();
        for (int p = 0; p < topic.partitionCount(); p++) {
            all.add(new TopicPartition(topic.name(), p));
        }
        return all;
    }

    /** A consumer with kafka-clients' defaults: the classic protocol, here with the given assignor. */
    private KafkaConsumer<byte[], byte[]> classicConsumer(String clientId, String assignor, Properties properties) {
        properties.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        properties.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, assignor);
        properties.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "200");
        properties.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
        return consumer(clientId, properties);
    }

    private void awaitSplit(KafkaConsumer<byte[], byte[]> a, KafkaConsumer<byte[], byte[]> b) {
        await().atMost(WAIT).until(() -> {
            a.poll(Duration.ofMillis(50));
            b.poll(Duration.ofMillis(50));
            Set<TopicPartition> union = new HashSet<>(a.assignment());
            union.addAll(b.assignment());
            ClassicGroupDescription group = service.classic().describe(GROUP).orElse(null);
            if (group == null) {
                return false; // neither member's JoinGroup has reached the coordinator yet
            }
            // Both members have taken in the group's last generation: a cooperative rebalance takes
            // two, and a member learns the second at its next poll.
            return a.assignment().size() == 2
                    && b.assignment().size() == 2
                    && union.equals(all())
                    && group.state() == ClassicGroupState.STABLE
                    && a.groupMetadata().generationId() == group.generationId()
                    && b.groupMetadata().generationId() == group.generationId();
        });
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "org.apache.kafka.clients.consumer.RangeAssignor",
                "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"
            })
    void classicConsumersShareATopicCommitAndLeave(String assignor) throws Exception {
        KafkaConsumer<byte[], byte[]> first = classicConsumer("first", assignor, new Properties());
        first.subscribe(List.of(topic.name()));
        await().atMost(WAIT).until(() -> {
            first.poll(Duration.ofMillis(100));
            return first.assignment().equals(all());
        });
        TopicPartition p1 = new TopicPartition(topic.name(), 1);
        first.commitSync(Map.of(p1, new OffsetAndMetadata(5, "note")));
        assertThat(first.committed(Set.of(p1)).get(p1).offset()).isEqualTo(5);

        KafkaConsumer<byte[], byte[]> second = classicConsumer("second", assignor, new Properties());
        second.subscribe(List.of(topic.name()));
        awaitSplit(first, second);
        ClassicGroupDescription described = service.classic().describe(GROUP).orElseThrow();
        assertThat(described.members()).hasSize(2);
        assertThat(described.protocolType()).isEqualTo("consumer");
        assertThat(first.groupMetadata().generationId()).isEqualTo(described.generationId());
        first.commitSync(Map.of(p1, new OffsetAndMetadata(first.assignment().contains(p1) ? 7 : 5)));

        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port.get()))) {
            ConsumerGroupDescription group =
                    admin.describeConsumerGroups(List.of(GROUP)).all().get().get(GROUP);
            assertThat(group.members()).hasSize(2);
            assertThat(group.groupState()).isEqualTo(GroupState.STABLE);
            Set<TopicPartition> described2 = new HashSet<>();
            group.members().forEach(m -> described2.addAll(m.assignment().topicPartitions()));
            assertThat(described2).isEqualTo(all());

            second.close();
            await().atMost(WAIT).until(() -> {
                first.poll(Duration.ofMillis(100));
                return first.assignment().equals(all());
            });
            first.close();
            await().atMost(WAIT)
                    .until(() -> admin.describeConsumerGroups(List.of(GROUP))
                                    .all()
                                    .get()
                                    .get(GROUP)
                                    .groupState()
                            == GroupState.EMPTY);
            assertThat(classicStore.load().get(GROUP).members()).isEmpty();
            admin.deleteConsumerGroups(List.of(GROUP)).all().get();
            assertThat(store.groups()).isEmpty();
            assertThat(classicStore.load()).isEmpty();
        }
    }

    @Test
    void aClassicGroupCarriesOnAcrossACoordinatorTermChangeWithoutARebalance() throws Exception {
        String assignor = "org.apache.kafka.clients.consumer.RangeAssignor";
        KafkaConsumer<byte[], byte[]> first = classicConsumer("first", assignor, new Properties());
        KafkaConsumer<byte[], byte[]> second = classicConsumer("second", assignor, new Properties());
        first.subscribe(List.of(topic.name()));
        second.subscribe(List.of(topic.name()));
        awaitSplit(first, second);
        int generation = service.classic().describe(GROUP).orElseThrow().generationId();
        Set<TopicPartition> firstOwns = Set.copyOf(first.assignment());

        term.incrementAndGet(); // a new leader term: the groups are taken over from the store
        for (int i = 0; i < 30; i++) {
            first.poll(Duration.ofMillis(100));
            second.poll(Duration.ofMillis(100));
        }
        ClassicGroupDescription after = service.classic().describe(GROUP).orElseThrow();
        assertThat(after.generationId()).as("no rebalance").isEqualTo(generation);
        assertThat(after.state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(first.assignment()).isEqualTo(firstOwns);
        assertThat(first.groupMetadata().generationId()).isEqualTo(generation);
        first.commitSync(Map.of(
                new TopicPartition(topic.name(), firstOwns.iterator().next().partition()), new OffsetAndMetadata(3)));
    }

    @Test
    void aStaticClassicConsumerRestartedGetsItsPartitionsBackWithoutARebalance() throws Exception {
        String assignor = "org.apache.kafka.clients.consumer.RangeAssignor";
        Properties staticMember = new Properties();
        staticMember.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "instance-1");
        KafkaConsumer<byte[], byte[]> first = classicConsumer("static-1", assignor, staticMember);
        KafkaConsumer<byte[], byte[]> other = classicConsumer("other", assignor, new Properties());
        first.subscribe(List.of(topic.name()));
        other.subscribe(List.of(topic.name()));
        awaitSplit(first, other);
        Set<TopicPartition> owned = Set.copyOf(first.assignment());
        int generation = service.classic().describe(GROUP).orElseThrow().generationId();

        first.close(); // a static member does not leave on close
        Properties again = new Properties();
        again.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "instance-1");
        KafkaConsumer<byte[], byte[]> next = classicConsumer("static-1-again", assignor, again);
        next.subscribe(List.of(topic.name()));
        await().atMost(WAIT).until(() -> {
            next.poll(Duration.ofMillis(50));
            other.poll(Duration.ofMillis(50));
            return next.assignment().equals(owned);
        });
        assertThat(service.classic().describe(GROUP).orElseThrow().generationId())
                .as("no rebalance")
                .isEqualTo(generation);
    }

    @Test
    void describingAGroupThatDoesNotExistFailsWithKafkasMessage() {
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port.get()))) {
            assertThatThrownBy(() -> admin.describeConsumerGroups(List.of("nobody"))
                            .all()
                            .get())
                    .hasCauseInstanceOf(GroupIdNotFoundException.class)
                    .cause()
                    .hasMessage("Group nobody not found.");
        }
    }

    @Test
    void realConsumersShareATopicCommitAndLeaveAndTheAdminClientSeesTheGroup() throws Exception {
        KafkaConsumer<byte[], byte[]> first = consumer("first");
        first.subscribe(List.of(topic.name()));
        await().atMost(WAIT).until(() -> {
            first.poll(Duration.ofMillis(100));
            return first.assignment().equals(all());
        });

        TopicPartition p1 = new TopicPartition(topic.name(), 1);
        first.commitSync(Map.of(p1, new OffsetAndMetadata(5, "note")));
        assertThat(first.committed(Set.of(p1)).get(p1).offset()).isEqualTo(5);

        KafkaConsumer<byte[], byte[]> second = consumer("second");
        second.subscribe(List.of(topic.name()));
        await().atMost(WAIT).until(() -> {
            first.poll(Duration.ofMillis(50));
            second.poll(Duration.ofMillis(50));
            Set<TopicPartition> a = first.assignment();
            Set<TopicPartition> b = second.assignment();
            Set<TopicPartition> union = new HashSet<>(a);
            union.addAll(b);
            return a.size() == 2 && b.size() == 2 && union.equals(all());
        });
        GroupDescription described = service.groups().describe(GROUP).orElseThrow();
        assertThat(described.members()).hasSize(2);

        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port.get()))) {
            ConsumerGroupDescription group =
                    admin.describeConsumerGroups(List.of(GROUP)).all().get().get(GROUP);
            assertThat(group.members()).hasSize(2);
            assertThat(admin.listConsumerGroupOffsets(GROUP)
                            .partitionsToOffsetAndMetadata()
                            .get()
                            .get(p1)
                            .offset())
                    .isEqualTo(5);

            second.close();
            await().atMost(WAIT).until(() -> {
                first.poll(Duration.ofMillis(100));
                return first.assignment().equals(all());
            });
            first.close();
            await().atMost(WAIT)
                    .until(() -> admin.describeConsumerGroups(List.of(GROUP))
                                    .all()
                                    .get()
                                    .get(GROUP)
                                    .groupState()
                            == GroupState.EMPTY);
            admin.deleteConsumerGroups(List.of(GROUP)).all().get();
            assertThat(store.groups()).isEmpty();
        }
    }

    @Test
    void aStaticConsumerSubscribedByPatternIsReplacedByItsNextInstanceWithoutARebalance() throws Exception {
        Properties staticMember = new Properties();
        staticMember.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "instance-1");
        KafkaConsumer<byte[], byte[]> first = consumer("static-1", staticMember);
        first.subscribe(new SubscriptionPattern("ev.*"));
        await().atMost(WAIT).until(() -> {
            first.poll(Duration.ofMillis(100));
            return first.assignment().equals(all());
        });
        int groupEpoch = service.groups().describe(GROUP).orElseThrow().groupEpoch();

        first.close(); // a static member leaves with epoch -2: kept for the session timeout
        GroupDescription.Member kept =
                service.groups().describe(GROUP).orElseThrow().members().getFirst();
        assertThat(kept.memberEpoch()).isEqualTo(-2);

        KafkaConsumer<byte[], byte[]> next = consumer("static-1-again", staticMember);
        next.subscribe(new SubscriptionPattern("ev.*"));
        await().atMost(WAIT).until(() -> {
            next.poll(Duration.ofMillis(100));
            return next.assignment().equals(all());
        });
        GroupDescription after = service.groups().describe(GROUP).orElseThrow();
        assertThat(after.members()).singleElement().satisfies(member -> {
            assertThat(member.instanceId()).contains("instance-1");
            assertThat(member.memberId()).isNotEqualTo(kept.memberId());
        });
        assertThat(after.groupEpoch()).as("no rebalance").isEqualTo(groupEpoch);
    }

    @Test
    void aConsumerCarriesOnAcrossACoordinatorTermChangeWithoutRejoining() throws Exception {
        KafkaConsumer<byte[], byte[]> consumer = consumer("failover");
        List<String> callbacks = new CopyOnWriteArrayList<>();
        consumer.subscribe(List.of(topic.name()), new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                if (!partitions.isEmpty()) {
                    callbacks.add("revoked " + partitions);
                }
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                if (!partitions.isEmpty()) {
                    callbacks.add("assigned " + partitions);
                }
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                callbacks.add("lost " + partitions);
            }
        });
        await().atMost(WAIT).until(() -> {
            consumer.poll(Duration.ofMillis(100));
            return consumer.assignment().equals(all());
        });
        all().forEach(consumer::position);
        TopicPartition p2 = new TopicPartition(topic.name(), 2);
        consumer.commitSync(Map.of(p2, new OffsetAndMetadata(9)));
        GroupDescription.Member before =
                service.groups().describe(GROUP).orElseThrow().members().getFirst();
        assertThat(consumer.groupMetadata().generationId()).isEqualTo(before.memberEpoch());
        callbacks.clear();

        leader.set(false); // NOT_COORDINATOR: the consumer looks the coordinator up again
        for (int i = 0; i < 5; i++) {
            consumer.poll(Duration.ofMillis(100));
        }
        assertThat(service.groups().contains(GROUP))
                .as("a follower holds no membership")
                .isFalse();
        term.set(2);
        leader.set(true); // a new term: the groups are loaded from the store at the next request

        await().atMost(WAIT).until(() -> {
            consumer.poll(Duration.ofMillis(100));
            return service.groups().contains(GROUP);
        });
        long heartbeatsBefore = consumerStore.writes();
        for (int i = 0; i < 10; i++) { // five heartbeat intervals at the new leader
            consumer.poll(Duration.ofMillis(100));
        }
        assertThat(service.groups().describe(GROUP).orElseThrow().members())
                .singleElement()
                .satisfies(member -> {
                    assertThat(member.memberId()).isEqualTo(before.memberId());
                    assertThat(member.memberEpoch()).as("no rebalance").isEqualTo(before.memberEpoch());
                    assertThat(member.assigned()).isEqualTo(before.assigned());
                });
        assertThat(consumer.groupMetadata().memberId()).isEqualTo(before.memberId());
        assertThat(consumer.groupMetadata().generationId()).isEqualTo(before.memberEpoch());
        assertThat(consumer.assignment()).isEqualTo(all());
        assertThat(callbacks).as("nothing revoked, lost or assigned again").isEmpty();
        assertThat(consumerStore.writes())
                .as("heartbeats at a member's epoch that change nothing write nothing")
                .isEqualTo(heartbeatsBefore);
        assertThat(consumer.committed(Set.of(p2)).get(p2).offset()).isEqualTo(9);
    }
}
