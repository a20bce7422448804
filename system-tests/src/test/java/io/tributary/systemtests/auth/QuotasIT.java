package io.tributary.systemtests.auth;

import io.tributary.systemtests.kafka.KafkaTargets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterClientQuotasOptions;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.quota.ClientQuotaFilterComponent;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Client quotas on Apache Kafka and on Tributary, both secured as {@link
 * SecureTargets.Security#AUTHORIZER}: the admin client's alterClientQuotas and describeClientQuotas
 * answer the same (entities of users, client ids, both and IPs with names and defaults; filters
 * exact, default, any and strict; Kafka's refusals of bad entities, keys and values; validate only;
 * a user without cluster ALTER_CONFIGS refused), and a producer and a consumer under a small byte
 * rate are throttled on both (their client's {@code produce-throttle-time-max} and {@code
 * fetch-throttle-time-max} above 0). How fast each moved its bytes is logged, never asserted.
 * The quotas enforced beyond byte rates answer the same too: a client over {@code
 * controller_mutation_rate} has its next topic refused with THROTTLING_QUOTA_EXCEEDED, and a
 * producer over a tiny {@code request_percentage} is throttled.
 * Kafka's outcome is the reference ({@link SecureDifferential}).
 */
class QuotasIT {

    private static final Logger log = LoggerFactory.getLogger(QuotasIT.class);

    private static SecureTargets targets;

    @BeforeAll
    static void start() throws Exception {
        targets = SecureTargets.start(
                QuotasIT.class, KafkaTargets.isEnabled(KafkaTargets.Kind.TRIBUTARY), SecureTargets.Security.AUTHORIZER);
    }

    @AfterAll
    static void stop() {
        if (targets != null) {
            targets.close();
        }
    }

    private static Properties admin(SecureTargets.Target target) {
        return targets.plainClient(target, SecureTargets.ADMIN, SecureTargets.ADMIN_PASSWORD, "quotas-it");
    }

    private static ClientQuotaEntity entity(String... typeAndName) {
        Map<String, String> entries = new HashMap<>();
        for (int i = 0; i < typeAndName.length; i += 2) {
            entries.put(typeAndName[i], typeAndName[i + 1]);
        }
        return new ClientQuotaEntity(entries);
    }

    private static ClientQuotaAlteration set(ClientQuotaEntity entity, String key, Double value) {
        return new ClientQuotaAlteration(entity, List.of(new ClientQuotaAlteration.Op(key, value)));
    }

    /** What one alteration answered (each alteration sent alone, so a refusal is its own). */
    private static String alter(Admin admin, ClientQuotaAlteration alteration, boolean validateOnly) {
        var values = admin.alterClientQuotas(
                        List.of(alteration), new AlterClientQuotasOptions().validateOnly(validateOnly))
                .values();
        return SecureDifferential.outcomeOf(values.values().iterator().next());
    }

    /** A described entity and its values, in a stable form (null names: the default). */
    private static String describe(Admin admin, ClientQuotaFilter filter) {
        try {
            Map<ClientQuotaEntity, Map<String, Double>> described =
                    admin.describeClientQuotas(filter).entities().get(60, TimeUnit.SECONDS);
            List<String> lines = new ArrayList<>();
            described.forEach((entity, values) -> {
                Map<String, String> parts = new TreeMap<>();
                entity.entries().forEach((t, n) -> parts.put(t, n == null ? "<default>" : n));
                lines.add(parts + " " + new TreeMap<>(values));
            });
            return SecureDifferential.sorted(lines).toString();
        } catch (Exception e) {
            return SecureDifferential.error(e);
        }
    }

    /**
     * Describes {@code filter} once it has {@code count} entities (Kafka's brokers learn a change a
     * moment after it is answered; so may a Tributary broker other than the one that forwarded it).
     */
    private static String describeWhenCount(Admin admin, ClientQuotaFilter filter, int count) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .until(() -> admin.describeClientQuotas(filter)
                                .entities()
                                .get(60, TimeUnit.SECONDS)
                                .size()
                        == count);
        return describe(admin, filter);
    }

    @Test
    void quotasAreAlteredAndDescribedByFilterAsOnKafka() {
        SecureDifferential.assertSameOutcomeAtOnce(targets, "after removals", (target, outcome) -> {
            try (Admin admin = Admin.create(admin(target))) {
                List<ClientQuotaAlteration> alterations = List.of(
                        set(entity("user", "q-alice"), "producer_byte_rate", 1024.0),
                        set(entity("user", "q-alice", "client-id", "q-app"), "consumer_byte_rate", 2048.0),
                        set(entity("user", null), "request_percentage", 50.0),
                        set(entity("user", null, "client-id", null), "producer_byte_rate", 4096.0),
                        set(entity("client-id", "q-app"), "controller_mutation_rate", 10.0),
                        set(entity("client-id", null), "consumer_byte_rate", 8192.0),
                        set(entity("ip", "10.1.2.3"), "connection_creation_rate", 5.0),
                        set(entity("ip", null), "connection_creation_rate", 7.0));
                for (ClientQuotaAlteration a : alterations) {
                    outcome.add("alter " + a.entity().entries() + ": " + alter(admin, a, false));
                }
                outcome.add("all: " + describeWhenCount(admin, ClientQuotaFilter.all(), 8));
                Map<String, ClientQuotaFilter> filters = new java.util.LinkedHashMap<>();
                filters.put(
                        "user q-alice",
                        ClientQuotaFilter.contains(List.of(ClientQuotaFilterComponent.ofEntity("user", "q-alice"))));
                filters.put(
                        "only user q-alice",
                        ClientQuotaFilter.containsOnly(
                                List.of(ClientQuotaFilterComponent.ofEntity("user", "q-alice"))));
                filters.put(
                        "default user",
                        ClientQuotaFilter.contains(List.of(ClientQuotaFilterComponent.ofDefaultEntity("user"))));
                filters.put(
                        "only default user",
                        ClientQuotaFilter.containsOnly(List.of(ClientQuotaFilterComponent.ofDefaultEntity("user"))));
                filters.put(
                        "any user",
                        ClientQuotaFilter.contains(List.of(ClientQuotaFilterComponent.ofEntityType("user"))));
                filters.put(
                        "only any client-id",
                        ClientQuotaFilter.containsOnly(List.of(ClientQuotaFilterComponent.ofEntityType("client-id"))));
                filters.put(
                        "any user and client q-app",
                        ClientQuotaFilter.contains(List.of(
                                ClientQuotaFilterComponent.ofEntityType("user"),
                                ClientQuotaFilterComponent.ofEntity("client-id", "q-app"))));
                filters.put(
                        "any ip", ClientQuotaFilter.contains(List.of(ClientQuotaFilterComponent.ofEntityType("ip"))));
                filters.put("strict nothing", ClientQuotaFilter.containsOnly(List.of()));
                filters.put(
                        "user twice",
                        ClientQuotaFilter.contains(List.of(
                                ClientQuotaFilterComponent.ofEntity("user", "a"),
                                ClientQuotaFilterComponent.ofEntity("user", "b"))));
                filters.put(
                        "ip and user",
                        ClientQuotaFilter.contains(List.of(
                                ClientQuotaFilterComponent.ofEntityType("ip"),
                                ClientQuotaFilterComponent.ofEntityType("user"))));
                filters.put(
                        "group", ClientQuotaFilter.contains(List.of(ClientQuotaFilterComponent.ofEntityType("group"))));
                filters.forEach((name, filter) -> outcome.add(name + ": " + describe(admin, filter)));

                var removals = List.of(
                        new ClientQuotaAlteration(
                                entity("user", "q-alice"),
                                List.of(new ClientQuotaAlteration.Op("producer_byte_rate", null))),
                        set(entity("user", null), "request_percentage", null),
                        set(entity("client-id", "q-app"), "controller_mutation_rate", null),
                        set(entity("ip", "10.1.2.3"), "connection_creation_rate", null),
                        set(entity("ip", null), "connection_creation_rate", null),
                        set(entity("client-id", null), "consumer_byte_rate", null),
                        set(entity("user", "q-alice", "client-id", "q-app"), "consumer_byte_rate", null));
                for (ClientQuotaAlteration a : removals) {
                    outcome.add("remove " + a.entity().entries() + ": " + alter(admin, a, false));
                }
                outcome.add("after removals: " + describeWhenCount(admin, ClientQuotaFilter.all(), 1));
                outcome.add("cleanup: "
                        + alter(
                                admin,
                                set(entity("user", null, "client-id", null), "producer_byte_rate", null),
                                false));
                outcome.add("after cleanup: " + describeWhenCount(admin, ClientQuotaFilter.all(), 0));
            }
        });
    }

    @Test
    void badAlterationsAreRefusedAndValidateOnlyWritesNothingAsOnKafka() {
        SecureDifferential.assertSameOutcomeAtOnce(targets, "validate only, then described: []", (target, outcome) -> {
            try (Admin admin = Admin.create(admin(target))) {
                ClientQuotaEntity bob = entity("user", "q-bob");
                Map<String, ClientQuotaAlteration> bad = new java.util.LinkedHashMap<>();
                bad.put("unknown key", set(bob, "no_such_quota", 1.0));
                bad.put("ip key on a user", set(bob, "connection_creation_rate", 1.0));
                bad.put("user key on an ip", set(entity("ip", "10.1.2.3"), "producer_byte_rate", 1.0));
                bad.put("zero", set(bob, "producer_byte_rate", 0.0));
                bad.put("negative", set(bob, "consumer_byte_rate", -1.0));
                bad.put("fractional long", set(bob, "producer_byte_rate", 1.5));
                bad.put("fractional double", set(bob, "request_percentage", 1.5));
                bad.put("empty user", set(entity("user", ""), "producer_byte_rate", 1.0));
                bad.put("ip and user", set(entity("ip", "10.1.2.3", "user", "q-bob"), "connection_creation_rate", 1.0));
                bad.put("bad ip", set(entity("ip", "300.1.2.3"), "connection_creation_rate", 1.0));
                bad.put("unknown type", set(entity("group", "g"), "producer_byte_rate", 1.0));
                bad.put("no entity", set(entity(), "producer_byte_rate", 1.0));
                bad.forEach((name, a) -> outcome.add(name + ": " + alter(admin, a, true)));
                outcome.add("validate only: " + alter(admin, set(bob, "producer_byte_rate", 100.0), true));
                outcome.add("validate only, then described: " + describe(admin, ClientQuotaFilter.all()));
            }
        });
    }

    @Test
    void aUserWithoutClusterConfigsPermissionIsRefusedAsOnKafka() {
        SecureDifferential.assertSameOutcomeAtOnce(targets, "alice describes:", (target, outcome) -> {
            try (Admin alice = Admin.create(
                    targets.plainClient(target, SecureTargets.USER, SecureTargets.PASSWORD, "quotas-it"))) {
                outcome.add("alice alters: "
                        + alter(alice, set(entity("user", SecureTargets.USER), "producer_byte_rate", 1e9), false));
                outcome.add("alice describes: " + describe(alice, ClientQuotaFilter.all()));
            }
        });
    }

    private static double metric(Map<MetricName, ? extends Metric> metrics, String group, String name) {
        return metrics.entrySet().stream()
                .filter(e ->
                        e.getKey().group().equals(group) && e.getKey().name().equals(name))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .filter(v -> !Double.isNaN(v))
                .max()
                .orElse(0);
    }

    @Test
    void aProducerAndAConsumerOverTheirByteRatesAreThrottledAsOnKafka() {
        int quotaBytesPerSecond = 64 * 1024;
        int records = 1200;
        byte[] value = new byte[1024];
        SecureDifferential.assertSameOutcomeAtOnce(targets, "consumer throttled: true", (target, outcome) -> {
            String topic = "quota-throttle";
            try (Admin admin = Admin.create(admin(target))) {
                admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
                        .all()
                        .get(60, TimeUnit.SECONDS);
                outcome.add("quotas: "
                        + alter(
                                admin,
                                set(entity("client-id", "q-producer"), "producer_byte_rate", (double)
                                        quotaBytesPerSecond),
                                false)
                        + ", "
                        + alter(
                                admin,
                                set(entity("client-id", "q-consumer"), "consumer_byte_rate", (double)
                                        quotaBytesPerSecond),
                                false));
                describeWhenCount(admin, ClientQuotaFilter.all(), 2);
            }
            Properties producerProps =
                    targets.plainClient(target, SecureTargets.ADMIN, SecureTargets.ADMIN_PASSWORD, "q-producer");
            producerProps.put(ProducerConfig.ACKS_CONFIG, "1");
            producerProps.put(ProducerConfig.LINGER_MS_CONFIG, "5");
            long started = System.nanoTime();
            double produceThrottle;
            try (var producer =
                    new KafkaProducer<>(producerProps, new ByteArraySerializer(), new ByteArraySerializer())) {
                List<Future<RecordMetadata>> sent = new ArrayList<>();
                for (int i = 0; i < records; i++) {
                    sent.add(producer.send(new ProducerRecord<>(topic, value)));
                }
                for (Future<RecordMetadata> f : sent) {
                    f.get(120, TimeUnit.SECONDS);
                }
                produceThrottle = metric(producer.metrics(), "producer-metrics", "produce-throttle-time-max");
            }
            double produceSeconds = (System.nanoTime() - started) / 1e9;
            log.info(
                    "{}: produced {} KiB in {} s ({} KiB/s) under a {} KiB/s quota, produce-throttle-time-max {} ms",
                    target.name(),
                    records,
                    String.format("%.1f", produceSeconds),
                    String.format("%.1f", records / produceSeconds),
                    quotaBytesPerSecond / 1024,
                    produceThrottle);
            outcome.add("producer throttled: " + (produceThrottle > 0));

            Properties consumerProps =
                    targets.plainClient(target, SecureTargets.ADMIN, SecureTargets.ADMIN_PASSWORD, "q-consumer");
            consumerProps.put(ConsumerConfig.GROUP_ID_CONFIG, "q-consumers");
            consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            started = System.nanoTime();
            double fetchThrottle;
            int consumed = 0;
            try (var consumer =
                    new KafkaConsumer<>(consumerProps, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                consumer.subscribe(List.of(topic));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (consumed < records && System.nanoTime() < deadline) {
                    consumed += consumer.poll(Duration.ofMillis(500)).count();
                }
                fetchThrottle = metric(consumer.metrics(), "consumer-fetch-manager-metrics", "fetch-throttle-time-max");
            }
            double fetchSeconds = (System.nanoTime() - started) / 1e9;
            log.info(
                    "{}: consumed {} KiB in {} s ({} KiB/s) under a {} KiB/s quota, fetch-throttle-time-max {} ms",
                    target.name(),
                    consumed,
                    String.format("%.1f", fetchSeconds),
                    String.format("%.1f", consumed / fetchSeconds),
                    quotaBytesPerSecond / 1024,
                    fetchThrottle);
            outcome.add("consumed: " + consumed);
            outcome.add("consumer throttled: " + (fetchThrottle > 0));
            try (Admin admin = Admin.create(admin(target))) {
                alter(admin, set(entity("client-id", "q-producer"), "producer_byte_rate", null), false);
                alter(admin, set(entity("client-id", "q-consumer"), "consumer_byte_rate", null), false);
            }
        });
    }

    @Test
    void aClientOverItsControllerMutationRateHasItsNextTopicRefusedAsOnKafka() {
        SecureDifferential.assertSameOutcomeAtOnce(
                targets, "second create: ThrottlingQuotaExceededException", (target, outcome) -> {
                    ClientQuotaEntity mutator = entity("client-id", "q-mutator");
                    try (Admin admin = Admin.create(admin(target))) {
                        outcome.add("quota: " + alter(admin, set(mutator, "controller_mutation_rate", 1.0), false));
                        describeWhenCount(
                                admin,
                                ClientQuotaFilter.containsOnly(
                                        List.of(ClientQuotaFilterComponent.ofEntity("client-id", "q-mutator"))),
                                1);
                    }
                    // A burst of 11 partitions (1/s over 11 windows of 1 s): 20 are taken at once,
                    // then the bucket is below zero and the next topic is refused.
                    CreateTopicsOptions noRetry = new CreateTopicsOptions().retryOnQuotaViolation(false);
                    try (Admin admin = Admin.create(targets.plainClient(
                            target, SecureTargets.ADMIN, SecureTargets.ADMIN_PASSWORD, "q-mutator"))) {
                        outcome.add("first create: "
                                + SecureDifferential.outcomeOf(
                                        admin.createTopics(List.of(new NewTopic("q-mutated-a", 20, (short) 1)), noRetry)
                                                .all()));
                        outcome.add("second create: "
                                + SecureDifferential.outcomeOf(
                                        admin.createTopics(List.of(new NewTopic("q-mutated-b", 1, (short) 1)), noRetry)
                                                .all()));
                    }
                    try (Admin admin = Admin.create(admin(target))) {
                        outcome.add("removed: " + alter(admin, set(mutator, "controller_mutation_rate", null), false));
                        outcome.add("topics: "
                                + SecureDifferential.sorted(
                                        admin.listTopics().names().get(60, TimeUnit.SECONDS).stream()
                                                .filter(t -> t.startsWith("q-mutated"))
                                                .toList()));
                        admin.deleteTopics(List.of("q-mutated-a")).all().get(60, TimeUnit.SECONDS);
                    }
                });
    }

    @Test
    void aProducerOverItsRequestPercentageIsThrottledAsOnKafka() {
        SecureDifferential.assertSameOutcomeAtOnce(targets, "producer throttled: true", (target, outcome) -> {
            String topic = "q-request-time";
            ClientQuotaEntity busy = entity("client-id", "q-busy");
            try (Admin admin = Admin.create(admin(target))) {
                admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
                        .all()
                        .get(60, TimeUnit.SECONDS);
                outcome.add("quota: " + alter(admin, set(busy, "request_percentage", 0.001), false));
                describeWhenCount(
                        admin,
                        ClientQuotaFilter.containsOnly(
                                List.of(ClientQuotaFilterComponent.ofEntity("client-id", "q-busy"))),
                        1);
            }
            Properties props = targets.plainClient(target, SecureTargets.ADMIN, SecureTargets.ADMIN_PASSWORD, "q-busy");
            props.put(ProducerConfig.ACKS_CONFIG, "1");
            // 0.001 % of a thread is 100 µs of work in 10 s: a few requests are over it on both.
            double throttle = 0;
            int sent = 0;
            try (var producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
                while (sent < 200 && throttle <= 0) {
                    producer.send(new ProducerRecord<>(topic, new byte[100])).get(60, TimeUnit.SECONDS);
                    sent++;
                    throttle = metric(producer.metrics(), "producer-metrics", "produce-throttle-time-max");
                }
            }
            log.info(
                    "{}: produce-throttle-time-max {} ms after {} requests under request_percentage 0.001",
                    target.name(),
                    throttle,
                    sent);
            outcome.add("producer throttled: " + (throttle > 0));
            try (Admin admin = Admin.create(admin(target))) {
                outcome.add("removed: " + alter(admin, set(busy, "request_percentage", null), false));
                admin.deleteTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
            }
        });
    }

    /** Opens {@code count} connections at once to {@code port} and tells how many the broker closed unread. */
    private static int closedOfBurst(int port, int count) throws Exception {
        List<java.net.Socket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                java.net.Socket socket = new java.net.Socket("127.0.0.1", port);
                socket.setSoTimeout(5000);
                sockets.add(socket);
            }
            List<java.util.concurrent.CompletableFuture<Boolean>> closed = new ArrayList<>();
            try (var threads = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
                for (java.net.Socket socket : sockets) {
                    closed.add(java.util.concurrent.CompletableFuture.supplyAsync(
                            () -> {
                                try {
                                    // The listener waits for the client's TLS hello: an accepted
                                    // connection stays silent, a throttled one is closed.
                                    return socket.getInputStream().read() < 0;
                                } catch (java.net.SocketTimeoutException e) {
                                    return false;
                                } catch (java.io.IOException e) {
                                    return true;
                                }
                            },
                            threads));
                }
            }
            return (int) closed.stream()
                    .filter(java.util.concurrent.CompletableFuture::join)
                    .count();
        } finally {
            for (java.net.Socket socket : sockets) {
                socket.close();
            }
        }
    }

    @Test
    void connectionsFromAnIpOverItsCreationRateAreClosedAsOnKafka() {
        SecureDifferential.assertSameOutcomeAtOnce(targets, "closed some: true", (target, outcome) -> {
            int port = Integer.parseInt(
                    target.bootstrap().substring(target.bootstrap().lastIndexOf(':') + 1));
            ClientQuotaEntity local = entity("ip", "127.0.0.1");
            try (Admin admin = Admin.create(admin(target))) {
                outcome.add("quota: " + alter(admin, set(local, "connection_creation_rate", 2.0), false));
                describeWhenCount(
                        admin,
                        ClientQuotaFilter.containsOnly(List.of(ClientQuotaFilterComponent.ofEntity("ip", "127.0.0.1"))),
                        1);
                // 2 a second over 11 windows of 1 s: about 20 of a first burst are taken, the rest
                // are held unread for their throttle time, then closed.
                int burst = 40;
                int closed = closedOfBurst(port, burst);
                log.info("{}: {} of a burst of {} connections closed unread", target.name(), closed, burst);
                outcome.add("closed some: " + (closed > 0));
                outcome.add("accepted some: " + (closed < burst));
                outcome.add("removed: " + alter(admin, set(local, "connection_creation_rate", null), false));
            }
        });
    }
}
