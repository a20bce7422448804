package io.tributary.coordinator.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.common.protocol.KafkaProtocolServer;
import io.tributary.common.protocol.ProtocolMetrics;
import io.tributary.common.protocol.ProtocolServerConfig;
import io.tributary.common.protocol.RequestHandler;
import io.tributary.coordinator.group.FakeTopics;
import io.tributary.coordinator.group.InMemoryOffsetStore;
import io.tributary.coordinator.group.OffsetStore.CommittedOffset;
import io.tributary.coordinator.group.TopicView.TopicInfo;
import io.tributary.coordinator.group.classic.ClassicGroupConfig;
import io.tributary.coordinator.metadata.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Real kafka-clients 4.4 consumers moving a group between the protocols (Kafka 4.4's online
 * migration): three {@code group.protocol=classic} consumers, one of them restarted with {@code
 * group.protocol=consumer} (the group is upgraded to a KIP-848 group and the two others go on as its
 * classic members), then restarted with {@code classic} again (its leave downgrades the group, and
 * it joins the classic group). Records are appended to an in-memory log before each phase; every
 * one is consumed and committed, none lost. The data path is a stub on the group handlers' listener
 * (Metadata, FindCoordinator, ListOffsets, Fetch from the in-memory log).
 */
class MixedGroupClientsTest {

    private static final String GROUP = "mixed-clients";
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int PER_PHASE_PER_PARTITION = 10;

    private final FakeTopics topics = new FakeTopics();
    private final TopicInfo topic = topics.create("events", 4);
    private final InMemoryOffsetStore offsets = new InMemoryOffsetStore();
    private final GroupService service = InMemoryGroupServices.create(
            KafkaClientsGroupTest.FAST_GROUPS,
            topics,
            offsets,
            ClassicGroupConfig.DEFAULTS.withInitialRebalanceDelay(Duration.ZERO),
            InstantSource.system());
    private final AtomicInteger port = new AtomicInteger();
    /** Metadata, FindCoordinator, ListOffsets and Fetch from an in-memory log. */
    private final StubbedDataPath data = new StubbedDataPath(topics, port::get);
    /** Every record value any consumer handed to the application. */
    private final Set<String> consumed = ConcurrentHashMap.newKeySet();

    private final List<Member> members = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
    private KafkaProtocolServer server;

    @BeforeEach
    void start() {
        List<RequestHandler> handlers = new ArrayList<>(GroupHandlersTest.handlers(service));
        handlers.addAll(data.handlers());
        server = new KafkaProtocolServer(
                ProtocolServerConfig.defaults("test", "127.0.0.1", 0),
                handlers,
                new ProtocolMetrics(new SimpleMeterRegistry(), "test"));
        server.start();
        port.set(server.port());
        // The wiring's timer tick: session, rebalance, join and sync deadlines, classic join barriers.
        ticker.scheduleWithFixedDelay(service::tick, 100, 100, TimeUnit.MILLISECONDS);
    }

    @AfterEach
    void stop() throws Exception {
        for (Member member : members) {
            member.stop();
        }
        ticker.shutdownNow();
        assertThat(ticker.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        server.close();
    }

    /** Appends {@link #PER_PHASE_PER_PARTITION} records to every partition; returns their values. */
    private Set<String> append(String phase) {
        Set<String> appended = ConcurrentHashMap.newKeySet();
        for (int partition = 0; partition < topic.partitionCount(); partition++) {
            for (int i = 0; i < PER_PHASE_PER_PARTITION; i++) {
                String value = phase + "-" + partition + "-" + i;
                data.append(topic.name(), partition, value);
                appended.add(value);
            }
        }
        return appended;
    }

    // ------------------------------------------------------------------------------------------
    // Consumers, each polled by a thread of its own

    /** A consumer that polls, hands records over and commits what it handed over, until stopped. */
    private final class Member {
        final String name;
        final String protocol;
        final AtomicBoolean running = new AtomicBoolean(true);
        final Set<Integer> assigned = ConcurrentHashMap.newKeySet();
        final Thread thread;

        Member(String name, String protocol) {
            this.name = name;
            this.protocol = protocol;
            this.thread = Thread.ofPlatform().name(name).start(this::run);
        }

        private void run() {
            Properties properties = new Properties();
            properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port.get());
            properties.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
            properties.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
            properties.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
            properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            if (protocol.equals("classic")) {
                properties.put(
                        ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                        "org.apache.kafka.clients.consumer.CooperativeStickyAssignor");
                properties.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "200");
                properties.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
            }
            try (var consumer =
                    new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                consumer.subscribe(List.of(topic.name()));
                boolean uncommitted = false;
                while (running.get()) {
                    var records = consumer.poll(Duration.ofMillis(100));
                    records.forEach(r -> consumed.add(new String(r.value(), StandardCharsets.UTF_8)));
                    assigned.clear();
                    consumer.assignment().forEach(tp -> assigned.add(tp.partition()));
                    uncommitted |= !records.isEmpty();
                    if (uncommitted) {
                        try {
                            consumer.commitSync();
                            uncommitted = false;
                        } catch (KafkaException e) {
                            // a rebalance in between: committed at the next poll, or by the
                            // partition's next owner after consuming it again
                        }
                    }
                }
            }
        }

        void stop() throws InterruptedException {
            running.set(false);
            thread.join();
        }
    }

    private Member member(String name, String protocol) {
        Member member = new Member(name, protocol);
        members.add(member);
        return member;
    }

    /** Waits until every value was consumed and the group's committed offsets reach the log's end. */
    private void awaitConsumedAndCommitted(Set<String> values) {
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(consumed).containsAll(values);
            Map<TopicPartition, CommittedOffset> committed = offsets.fetch(GROUP);
            for (int partition = 0; partition < topic.partitionCount(); partition++) {
                assertThat(committed.get(new TopicPartition(topic.name(), partition)))
                        .as("partition %d committed", partition)
                        .isNotNull()
                        .extracting(CommittedOffset::offset)
                        .isEqualTo((long) data.size(topic.name(), partition));
            }
        });
    }

    private void awaitAllAssigned(List<Member> live) {
        await().atMost(WAIT).untilAsserted(() -> {
            List<Integer> all = new ArrayList<>();
            live.forEach(m -> all.addAll(m.assigned));
            assertThat(all).containsExactlyInAnyOrder(0, 1, 2, 3);
        });
    }

    @Test
    void aClassicGroupMigratesToTheConsumerProtocolAndBackWithoutLosingARecord() throws Exception {
        Member a = member("a", "classic");
        Member b = member("b", "classic");
        Member c = member("c", "classic");
        Set<String> first = append("classic");
        awaitConsumedAndCommitted(first);
        awaitAllAssigned(List.of(a, b, c));
        assertThat(service.classic().describe(GROUP).orElseThrow().members()).hasSize(3);

        c.stop();
        Member upgraded = member("c-consumer", "consumer");
        await().atMost(WAIT).until(() -> service.groups().hasMembers(GROUP));
        assertThat(service.classic().contains(GROUP))
                .as("upgraded: no classic group of that id")
                .isFalse();
        Set<String> second = append("mixed");
        awaitConsumedAndCommitted(second);
        awaitAllAssigned(List.of(a, b, upgraded));
        assertThat(service.groups().describe(GROUP).orElseThrow().members()).hasSize(3);

        upgraded.stop();
        await().atMost(WAIT).until(() -> service.classic().contains(GROUP));
        assertThat(service.groups().hasMembers(GROUP)).as("downgraded").isFalse();
        Member back = member("c-classic", "classic");
        Set<String> third = append("downgraded");
        awaitConsumedAndCommitted(third);
        awaitAllAssigned(List.of(a, b, back));
        assertThat(service.classic().describe(GROUP).orElseThrow().members()).hasSize(3);
        assertThat(consumed).hasSize(3 * 4 * PER_PHASE_PER_PARTITION);
    }
}
