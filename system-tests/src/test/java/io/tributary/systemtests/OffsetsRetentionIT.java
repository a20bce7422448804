package io.tributary.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.common.testing.KafkaBroker;
import io.tributary.systemtests.kafka.Clients;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Offsets retention, differential: a real Apache Kafka broker with {@code offsets.retention.minutes=1}
 * and {@code offsets.retention.check.interval.ms=1000}, and a Tributary cluster from {@code bin/tributary
 * up} (one coordinator, one broker) with the same settings ({@code
 * tributary.coordinator.groups.offsets-retention=1m}, {@code …offsets-retention-check-interval=1s}).
 * On each, at the same time: an admin client commits offsets of a "simple" group, a classic
 * consumer and a KIP-848 consumer each commit and close (their groups become Empty). Right after,
 * every group and offset is there; then, waiting past the retention (Awaitility), every group is
 * gone from ListGroups and its offsets from OffsetFetch. What each target showed must be the same,
 * line by line, and Kafka's is the reference.
 *
 * <p>Its own clusters (not the shared ones of the {@code kafka} package, whose offsets must not
 * expire under the other tests), stopped by PID in {@link #stop()}.
 */
class OffsetsRetentionIT {

    private static final Logger log = LoggerFactory.getLogger(OffsetsRetentionIT.class);

    private static final String TOPIC = "retained";
    private static final Duration PATIENCE = Duration.ofSeconds(90);
    /** One minute of retention plus one-second checks, with room for a slow machine. */
    private static final Duration EXPIRY_WAIT = Duration.ofMinutes(4);
    /** How often the expiry wait looks: a fraction of the one-second retention checks. */
    private static final Duration EXPIRY_POLL = Duration.ofMillis(500);

    private static KafkaBroker kafka;
    private static ScriptedCluster tributary;
    private static Path work;

    /**
     * Starts the Kafka broker on another thread while {@code bin/tributary up} runs on this one:
     * each start is mostly a JVM warming up, so the broker's is hidden in the cluster's.
     */
    @BeforeAll
    static void start() throws Exception {
        ExecutorService starter = Executors.newSingleThreadExecutor();
        try {
            Future<KafkaBroker> broker = starter.submit(OffsetsRetentionIT::startKafka);
            Exception failure = null;
            try {
                startTributary();
            } catch (Exception e) {
                failure = e;
            }
            try {
                // kept for stop() even when Tributary's start failed
                kafka = broker.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
            if (failure != null) {
                throw failure;
            }
        } finally {
            starter.shutdownNow();
        }
    }

    private static KafkaBroker startKafka() throws Exception {
        return KafkaBroker.start(Map.of(
                "offsets.retention.minutes", "1",
                "offsets.retention.check.interval.ms", "1000",
                "offsets.topic.num.partitions", "2",
                "group.initial.rebalance.delay.ms", "0",
                "group.consumer.min.heartbeat.interval.ms", "500",
                "group.consumer.heartbeat.interval.ms", "1000",
                "group.consumer.min.session.timeout.ms", "3000",
                "group.consumer.session.timeout.ms", "10000"));
    }

    private static void startTributary() throws Exception {
        work = Files.createTempDirectory("systest-retention-");
        tributary = ScriptedCluster.create(
                work,
                "offsets-retention-logs",
                List.of(8080, 8081, 9092, 8091, 9191, 9291),
                Map.of(
                        "TRIBUTARY_JAVA_OPTS",
                        "-Xmx512m -Dtributary.coordinator.groups.offsets-retention=1m"
                                + " -Dtributary.coordinator.groups.offsets-retention-check-interval=1s"
                                + " -Dtributary.coordinator.groups.session-timeout=10s"
                                + " -Dtributary.coordinator.groups.heartbeat-interval=1s"));
        tributary.upOrClean("--coordinators", "1", "--brokers", "1");
    }

    @AfterAll
    static void stop() {
        try {
            if (tributary != null) {
                tributary.downAndDeleteWork();
            }
        } finally {
            if (kafka != null) {
                kafka.close();
            }
        }
    }

    private static String tributaryBootstrap() {
        return "127.0.0.1:" + (9092 + tributary.portOffset());
    }

    @Test
    void committedOffsetsOfEmptyGroupsExpireAfterTheRetentionAsOnKafka() throws Exception {
        ExecutorService both = Executors.newFixedThreadPool(2);
        try {
            Future<List<String>> onKafka = both.submit(() -> scenario(kafka.bootstrapServers()));
            Future<List<String>> onTributary = both.submit(() -> scenario(tributaryBootstrap()));
            List<String> reference = onKafka.get(EXPIRY_WAIT.plus(PATIENCE).toSeconds(), TimeUnit.SECONDS);
            assertThat(reference)
                    .as("Apache Kafka, the reference, shows every group then none")
                    .containsExactly(
                            "listed after the commits: [classic Classic Empty consumer, kip848 Consumer Empty consumer,"
                                    + " simple Classic Empty ]",
                            "offsets of simple: {retained-0=5, retained-1=7}",
                            "offsets of classic: {retained-0=3}",
                            "offsets of kip848: {retained-1=4}",
                            "listed after the retention: []",
                            "offsets of simple: {}",
                            "offsets of classic: {}",
                            "offsets of kip848: {}");
            List<String> actual = onTributary.get(EXPIRY_WAIT.plus(PATIENCE).toSeconds(), TimeUnit.SECONDS);
            assertThat(actual)
                    .as(
                            "Tributary's outcome against Kafka's (logs in %s, Kafka in %s)",
                            tributary.logsDir(), kafka.home())
                    .containsExactlyElementsOf(reference);
        } finally {
            both.shutdownNow();
        }
    }

    /** Commits as three kinds of group, looks, waits past the retention, looks again. */
    private static List<String> scenario(String bootstrap) throws Exception {
        List<String> outcome = new ArrayList<>();
        TopicPartition p0 = new TopicPartition(TOPIC, 0);
        TopicPartition p1 = new TopicPartition(TOPIC, 1);
        try (Admin admin = admin(bootstrap)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1)))
                    .all()
                    .get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            await("leaders of " + TOPIC)
                    .atMost(PATIENCE)
                    .ignoreExceptions()
                    .until(() -> admin
                            .describeTopics(List.of(TOPIC))
                            .allTopicNames()
                            .get(10, TimeUnit.SECONDS)
                            .get(TOPIC)
                            .partitions()
                            .stream()
                            .allMatch(p -> p.leader() != null && !p.leader().isEmpty()));

            admin.alterConsumerGroupOffsets(
                            "simple", Map.of(p0, new OffsetAndMetadata(5), p1, new OffsetAndMetadata(7)))
                    .all()
                    .get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            commitAndClose(bootstrap, "classic", "classic", p0, 3);
            commitAndClose(bootstrap, "kip848", "consumer", p1, 4);

            outcome.add("listed after the commits: " + listGroups(admin));
            for (String group : List.of("simple", "classic", "kip848")) {
                outcome.add("offsets of " + group + ": " + offsets(admin, group));
            }
            log.info("{}: committed, waiting for the retention", bootstrap);

            await("every group gone from " + bootstrap)
                    .atMost(EXPIRY_WAIT)
                    .pollInterval(EXPIRY_POLL)
                    .ignoreExceptions()
                    .untilAsserted(() -> assertThat(remaining(admin))
                            .as("groups and offsets still there on %s", bootstrap)
                            .isEmpty());
            outcome.add("listed after the retention: " + listGroups(admin));
            for (String group : List.of("simple", "classic", "kip848")) {
                outcome.add("offsets of " + group + ": " + offsets(admin, group));
            }
        }
        return outcome;
    }

    /** A consumer of {@code protocol} joins {@code group}, commits one offset and leaves (the group is then Empty). */
    private static void commitAndClose(
            String bootstrap, String group, String protocol, TopicPartition partition, long offset) {
        Properties properties = new Properties();
        properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        properties.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        properties.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(PATIENCE.toMillis()));
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties)) {
            consumer.subscribe(List.of(TOPIC));
            await(group + " assigned")
                    .atMost(PATIENCE)
                    .pollInterval(Duration.ZERO)
                    .until(() -> {
                        consumer.poll(Duration.ofMillis(200));
                        return consumer.assignment().contains(partition);
                    });
            consumer.commitSync(Map.of(partition, new OffsetAndMetadata(offset)));
        }
    }

    /** The groups still listed and the groups that still have offsets. */
    private static List<String> remaining(Admin admin) throws Exception {
        List<String> remaining = new ArrayList<>(listGroups(admin));
        for (String group : List.of("simple", "classic", "kip848")) {
            Map<String, Long> offsets = offsets(admin, group);
            if (!offsets.isEmpty()) {
                remaining.add("offsets of " + group + ": " + offsets);
            }
        }
        return remaining;
    }

    /** Every group: id, type, state, protocol type, in id order. */
    private static List<String> listGroups(Admin admin) throws Exception {
        return admin.listGroups().all().get(30, TimeUnit.SECONDS).stream()
                .map(OffsetsRetentionIT::describe)
                .sorted()
                .toList();
    }

    private static String describe(GroupListing group) {
        return group.groupId() + " " + group.type().map(t -> t.toString()).orElse("?") + " "
                + group.groupState().map(s -> s.toString()).orElse("?") + " " + group.protocol();
    }

    /** The group's committed offsets, {@code topic-partition=offset} in order. */
    private static Map<String, Long> offsets(Admin admin, String group) throws Exception {
        Map<String, Long> offsets = new TreeMap<>();
        Clients.committedOffsets(admin, group)
                .forEach((partition, offset) -> offsets.put(partition.toString(), offset));
        return offsets;
    }

    private static Admin admin(String bootstrap) {
        Properties properties = new Properties();
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "60000");
        properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "30000");
        return Admin.create(properties);
    }
}
