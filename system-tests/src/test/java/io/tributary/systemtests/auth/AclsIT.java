package io.tributary.systemtests.auth;

import io.tributary.systemtests.kafka.KafkaTargets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ACLs on Apache Kafka ({@code StandardAuthorizer}) and on Tributary, both with the authorizer on,
 * the same super users and PLAIN users over SASL_SSL ({@link SecureTargets.Security#AUTHORIZER}):
 * the admin client's createAcls, describeAcls and deleteAcls by filter answer the same, and a user
 * who is not a super user ({@link SecureTargets#USER}) is allowed and refused the same way as ACLs
 * are added. Each scenario runs on both targets at the same time, one start of each for the class;
 * outcomes are the lines a client saw (results, exception classes and messages), and Kafka's is the
 * reference. How long an ACL takes to let its first request through is logged per target (not
 * asserted).
 *
 * <p>A new ACL reaches Kafka's broker through its metadata log a moment after createAcls returns, so
 * every step that depends on one first waits until the ACL is in force ({@link #awaitAllowed}).
 */
class AclsIT {

    private static final Logger log = LoggerFactory.getLogger(AclsIT.class);

    private static SecureTargets targets;

    @BeforeAll
    static void start() throws Exception {
        targets = SecureTargets.start(
                AclsIT.class, KafkaTargets.isEnabled(KafkaTargets.Kind.TRIBUTARY), SecureTargets.Security.AUTHORIZER);
    }

    @AfterAll
    static void stop() {
        if (targets != null) {
            targets.close();
        }
    }

    private static void assertSameOutcomeAtOnce(String expected, SecureDifferential.Scenario scenario) {
        SecureDifferential.assertSameOutcomeAtOnce(targets, expected, scenario);
    }

    /** A SASL_SSL client logging in with PLAIN as {@code user}, trusting the test CA. */
    private static Properties client(SecureTargets.Target target, String user, String password) {
        return targets.plainClient(target, user, password, "acls-it");
    }

    private static Properties admin(SecureTargets.Target target) {
        return client(target, SecureTargets.ADMIN, SecureTargets.ADMIN_PASSWORD);
    }

    private static Properties alice(SecureTargets.Target target) {
        return client(target, SecureTargets.USER, SecureTargets.PASSWORD);
    }

    private static final String ALICE = "User:" + SecureTargets.USER;

    private static AclBinding acl(
            ResourceType type,
            String name,
            PatternType pattern,
            String principal,
            AclOperation operation,
            AclPermissionType permission) {
        return new AclBinding(
                new ResourcePattern(type, name, pattern),
                new AccessControlEntry(principal, "*", operation, permission));
    }

    private static AclBinding allowAlice(ResourceType type, String name, PatternType pattern, AclOperation operation) {
        return acl(type, name, pattern, ALICE, operation, AclPermissionType.ALLOW);
    }

    private static AclBindingFilter principalFilter(String principal) {
        return new AclBindingFilter(
                ResourcePatternFilter.ANY,
                new AccessControlEntryFilter(principal, null, AclOperation.ANY, AclPermissionType.ANY));
    }

    /** An exception as a client sees it: its class and message (the cause of an ExecutionException). */
    private static String error(Throwable e) {
        Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        return cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }

    private static String outcomeOf(KafkaFuture<?> future) {
        try {
            future.get(60, TimeUnit.SECONDS);
            return "ok";
        } catch (Exception e) {
            return error(e);
        }
    }

    /** ACLs in a stable order (Kafka's answers come from a hash map). */
    private static Set<String> sorted(Collection<?> items) {
        Set<String> out = new TreeSet<>();
        items.forEach(item -> out.add(String.valueOf(item)));
        return out;
    }

    @Test
    void theAdminCreatesDescribesAndDeletesAclsByFilterAsOnKafka() {
        assertSameOutcomeAtOnce("deleted by principal", (target, outcome) -> {
            String p1 = "User:filters-p1";
            String p2 = "User:filters-p2";
            List<AclBinding> creations = List.of(
                    acl(
                            ResourceType.TOPIC,
                            "orders",
                            PatternType.LITERAL,
                            p1,
                            AclOperation.READ,
                            AclPermissionType.ALLOW),
                    acl(
                            ResourceType.TOPIC,
                            "ord",
                            PatternType.PREFIXED,
                            p1,
                            AclOperation.WRITE,
                            AclPermissionType.ALLOW),
                    acl(
                            ResourceType.TOPIC,
                            "*",
                            PatternType.LITERAL,
                            p2,
                            AclOperation.DESCRIBE,
                            AclPermissionType.DENY),
                    acl(ResourceType.TOPIC, "*", PatternType.PREFIXED, p2, AclOperation.READ, AclPermissionType.ALLOW),
                    acl(ResourceType.GROUP, "g", PatternType.LITERAL, p2, AclOperation.READ, AclPermissionType.ALLOW),
                    acl(
                            ResourceType.CLUSTER,
                            "kafka-cluster",
                            PatternType.LITERAL,
                            p2,
                            AclOperation.DESCRIBE,
                            AclPermissionType.ALLOW),
                    acl(
                            ResourceType.CLUSTER,
                            "kafka",
                            PatternType.LITERAL,
                            p2,
                            AclOperation.ALTER,
                            AclPermissionType.ALLOW),
                    acl(ResourceType.TOPIC, "", PatternType.LITERAL, p2, AclOperation.READ, AclPermissionType.ALLOW),
                    acl(
                            ResourceType.TOPIC,
                            "orders",
                            PatternType.LITERAL,
                            "filters-p3",
                            AclOperation.READ,
                            AclPermissionType.ALLOW));
            try (Admin admin = Admin.create(admin(target))) {
                var created = admin.createAcls(creations).values();
                for (AclBinding binding : creations) {
                    outcome.add("create " + binding + ": " + outcomeOf(created.get(binding)));
                }
                // six valid ACLs, visible once Kafka's broker has applied them
                awaitAclCount(admin, AclBindingFilter.ANY, 6);
                List<AclBindingFilter> filters = List.of(
                        principalFilter(p1),
                        new AclBindingFilter(
                                new ResourcePatternFilter(ResourceType.TOPIC, "orders", PatternType.MATCH),
                                AccessControlEntryFilter.ANY),
                        new AclBindingFilter(
                                new ResourcePatternFilter(ResourceType.TOPIC, "ord", PatternType.PREFIXED),
                                AccessControlEntryFilter.ANY),
                        new AclBindingFilter(
                                new ResourcePatternFilter(ResourceType.ANY, null, PatternType.LITERAL),
                                new AccessControlEntryFilter(null, null, AclOperation.ANY, AclPermissionType.DENY)));
                for (AclBindingFilter filter : filters) {
                    outcome.add("describe " + filter + ": "
                            + sorted(admin.describeAcls(filter).values().get(60, TimeUnit.SECONDS)));
                }
                var deleted = admin.deleteAcls(List.of(filters.get(1), principalFilter(p1)))
                        .values();
                for (var e : deleted.entrySet()) {
                    outcome.add("delete " + e.getKey() + ": "
                            + sorted(e.getValue().get(60, TimeUnit.SECONDS).values().stream()
                                    .map(r -> r.binding())
                                    .toList()));
                }
                awaitAclCount(admin, AclBindingFilter.ANY, 3);
                outcome.add("left "
                        + sorted(admin.describeAcls(AclBindingFilter.ANY)
                                .values()
                                .get(60, TimeUnit.SECONDS)));
                var rest = admin.deleteAcls(List.of(principalFilter(p2))).all().get(60, TimeUnit.SECONDS);
                outcome.add("deleted by principal " + sorted(rest));
                awaitAclCount(admin, AclBindingFilter.ANY, 0);
            }
        });
    }

    /** Waits until {@code filter} describes {@code count} ACLs (Kafka's broker applies them a moment later). */
    private static void awaitAclCount(Admin admin, AclBindingFilter filter, int count) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (admin.describeAcls(filter).values().get(60, TimeUnit.SECONDS).size() != count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the ACLs did not reach " + count + " within 30 s");
            }
            Thread.sleep(20);
        }
    }

    /**
     * Creates {@code acls} as the admin and waits until {@code check} (a request of Alice's) stops
     * failing; logs how long that took after createAcls returned.
     */
    private static void grant(SecureTargets.Target target, Admin admin, List<AclBinding> acls, String what, Check check)
            throws Exception {
        admin.createAcls(acls).all().get(60, TimeUnit.SECONDS);
        long created = System.nanoTime();
        awaitAllowed(check);
        log.info(
                "{}: {} in force {} ms after createAcls returned",
                target.name(),
                what,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - created));
    }

    @FunctionalInterface
    private interface Check {
        void run() throws Exception;
    }

    /** Retries {@code check} until it does not throw (at most 30 s); returns how many tries it took. */
    private static int awaitAllowed(Check check) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        for (int tries = 1; ; tries++) {
            try {
                check.run();
                return tries;
            } catch (Exception e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(5);
            }
        }
    }

    private static Properties producer(SecureTargets.Target target) {
        Properties properties = alice(target);
        // not idempotent: an idempotent producer's InitProducerId has checks of its own
        properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        properties.put(ProducerConfig.ACKS_CONFIG, "1");
        properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "15000");
        properties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        properties.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        return properties;
    }

    private static String produce(SecureTargets.Target target, String topic, int count) {
        try (var producer = new KafkaProducer<>(producer(target), new StringSerializer(), new StringSerializer())) {
            long last = -1;
            for (int i = 0; i < count; i++) {
                last = producer.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i))
                        .get(30, TimeUnit.SECONDS)
                        .offset();
            }
            return "produced to " + topic + " up to offset " + last;
        } catch (Exception e) {
            return "produce to " + topic + ": " + error(e);
        }
    }

    private static String consumeInGroup(SecureTargets.Target target, String topic, String group, int count) {
        Properties properties = alice(target);
        properties.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (var consumer = new KafkaConsumer<>(properties, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            List<String> read = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (read.size() < count && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    read.add(record.offset() + ":" + record.value());
                }
            }
            return "consumed in " + group + " " + read;
        } catch (Exception e) {
            return "consume in " + group + ": " + error(e);
        }
    }

    private static String listTopics(SecureTargets.Target target) {
        try (Admin admin = Admin.create(alice(target))) {
            return "alice lists " + sorted(admin.listTopics().names().get(60, TimeUnit.SECONDS));
        } catch (Exception e) {
            return "alice lists: " + error(e);
        }
    }

    private static String describeTopic(SecureTargets.Target target, String topic) {
        try (Admin admin = Admin.create(alice(target))) {
            int partitions = admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(60, TimeUnit.SECONDS)
                    .get(topic)
                    .partitions()
                    .size();
            return "alice describes " + topic + ": " + partitions + " partition(s)";
        } catch (Exception e) {
            return "alice describes " + topic + ": " + error(e);
        }
    }

    @Test
    void aUserWhoIsNotASuperUserGetsWhatItsAclsAllowAsOnKafka() {
        assertSameOutcomeAtOnce("consumed in acl-group [0:v0, 1:v1]", (target, outcome) -> {
            String orders = "acl-orders";
            String prefixed = "acl-pfx-events";
            String denied = "acl-denied";
            try (Admin admin = Admin.create(admin(target))) {
                admin.createTopics(List.of(
                                new NewTopic(orders, 1, (short) 1),
                                new NewTopic(prefixed, 1, (short) 1),
                                new NewTopic(denied, 1, (short) 1)))
                        .all()
                        .get(60, TimeUnit.SECONDS);
                outcome.add("no ACL");
                outcome.add(listTopics(target));
                outcome.add(describeTopic(target, orders));
                outcome.add(produce(target, orders, 1));

                grant(
                        target,
                        admin,
                        List.of(allowAlice(ResourceType.TOPIC, orders, PatternType.LITERAL, AclOperation.WRITE)),
                        "a literal WRITE",
                        () -> describeOrThrow(target, orders));
                outcome.add("literal WRITE on " + orders + " (DESCRIBE implied)");
                outcome.add(listTopics(target));
                outcome.add(produce(target, orders, 2));
                outcome.add(consumeInGroup(target, orders, "acl-group", 2));

                grant(
                        target,
                        admin,
                        List.of(allowAlice(ResourceType.TOPIC, orders, PatternType.LITERAL, AclOperation.READ)),
                        "a literal READ",
                        () -> awaitAclCount(admin, principalFilter(ALICE), 2));
                outcome.add("READ on " + orders + ", none on the group");
                outcome.add(consumeInGroup(target, orders, "acl-group", 2));
                grant(
                        target,
                        admin,
                        List.of(allowAlice(ResourceType.GROUP, "acl-group", PatternType.LITERAL, AclOperation.READ)),
                        "a group READ",
                        () -> awaitAclCount(admin, principalFilter(ALICE), 3));
                outcome.add("READ on the group");
                outcome.add(consumeInGroup(target, orders, "acl-group", 2));

                grant(
                        target,
                        admin,
                        List.of(allowAlice(ResourceType.TOPIC, "acl-pfx-", PatternType.PREFIXED, AclOperation.READ)),
                        "a prefixed READ",
                        () -> describeOrThrow(target, prefixed));
                outcome.add("prefixed READ on acl-pfx-");
                outcome.add(describeTopic(target, prefixed));
                outcome.add(listTopics(target));

                grant(
                        target,
                        admin,
                        List.of(
                                allowAlice(ResourceType.TOPIC, denied, PatternType.LITERAL, AclOperation.ALL),
                                acl(
                                        ResourceType.TOPIC,
                                        denied,
                                        PatternType.LITERAL,
                                        ALICE,
                                        AclOperation.WRITE,
                                        AclPermissionType.DENY)),
                        "ALLOW ALL with DENY WRITE",
                        () -> describeOrThrow(target, denied));
                outcome.add("ALLOW ALL and DENY WRITE on " + denied);
                outcome.add(describeTopic(target, denied));
                outcome.add(produce(target, denied, 1));

                admin.deleteAcls(List.of(principalFilter(ALICE))).all().get(60, TimeUnit.SECONDS);
                awaitAclCount(admin, principalFilter(ALICE), 0);
                awaitAllowed(() -> {
                    if (!listTopics(target).equals("alice lists []")) {
                        throw new IllegalStateException("the deleted ACLs are still in force");
                    }
                });
                outcome.add("ACLs deleted");
                outcome.add(listTopics(target));
                admin.deleteTopics(List.of(orders, prefixed, denied)).all().get(60, TimeUnit.SECONDS);
            }
        });
    }

    private static void describeOrThrow(SecureTargets.Target target, String topic) {
        String answer = describeTopic(target, topic);
        if (!answer.endsWith("partition(s)")) {
            throw new IllegalStateException(answer);
        }
    }

    /**
     * How long a new ACL takes to let a connected client's next request through: five times, an
     * ACL allowing Alice to DESCRIBE one more topic, then her (already connected) admin client
     * describes it until it is allowed. Logged per target (the median and each), not asserted.
     */
    @Test
    void anAclLetsAConnectedClientsRequestsThroughShortlyAfterCreateAclsReturns() {
        assertSameOutcomeAtOnce("acl-speed-4 allowed", (target, outcome) -> {
            int rounds = 5;
            List<String> topics = new ArrayList<>();
            for (int i = 0; i < rounds; i++) {
                topics.add("acl-speed-" + i);
            }
            try (Admin admin = Admin.create(admin(target));
                    Admin alice = Admin.create(alice(target))) {
                admin.createTopics(topics.stream()
                                .map(t -> new NewTopic(t, 1, (short) 1))
                                .toList())
                        .all()
                        .get(60, TimeUnit.SECONDS);
                outcome.add("alice lists " + sorted(alice.listTopics().names().get(60, TimeUnit.SECONDS)));
                List<Long> millis = new ArrayList<>();
                List<Integer> tries = new ArrayList<>();
                for (String topic : topics) {
                    admin.createAcls(List.of(
                                    allowAlice(ResourceType.TOPIC, topic, PatternType.LITERAL, AclOperation.DESCRIBE)))
                            .all()
                            .get(60, TimeUnit.SECONDS);
                    long created = System.nanoTime();
                    tries.add(awaitAllowed(() ->
                            alice.describeTopics(List.of(topic)).allTopicNames().get(60, TimeUnit.SECONDS)));
                    millis.add(TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - created) / 1000);
                    outcome.add(topic + " allowed");
                }
                List<Long> ordered = millis.stream().sorted().toList();
                log.info(
                        "{}: a new ACL let the connected client's request through {} ms (median) after createAcls"
                                + " returned; each: {} ms, after {} requests",
                        target.name(),
                        ordered.get(ordered.size() / 2),
                        millis,
                        tries);
                admin.deleteAcls(List.of(principalFilter(ALICE))).all().get(60, TimeUnit.SECONDS);
                awaitAclCount(admin, principalFilter(ALICE), 0);
                admin.deleteTopics(topics).all().get(60, TimeUnit.SECONDS);
            }
        });
    }

    /**
     * CreateTopics needs CREATE on the cluster or on each topic: Kafka refuses Alice's topic until
     * an ACL allows CREATE on it. Tributary's CreateTopics handler makes this per-topic check with
     * the per-item checks of the CreateTopics handler (the {@code authz} change); without them
     * Tributary creates the first topic and this test fails.
     */
    @Test
    void creatingTopicsNeedsCreateOnTheClusterOrTheTopicAsOnKafka() {
        assertSameOutcomeAtOnce("alice creates acl-created: ok", (target, outcome) -> {
            try (Admin admin = Admin.create(admin(target));
                    Admin alice = Admin.create(alice(target))) {
                outcome.add("alice creates acl-refused: "
                        + outcomeOf(alice.createTopics(List.of(new NewTopic("acl-refused", 1, (short) 1)))
                                .all()));
                grant(
                        target,
                        admin,
                        List.of(allowAlice(
                                ResourceType.TOPIC, "acl-created", PatternType.LITERAL, AclOperation.CREATE)),
                        "a topic CREATE",
                        () -> awaitAclCount(admin, principalFilter(ALICE), 1));
                outcome.add("alice creates acl-created: "
                        + outcomeOf(alice.createTopics(List.of(new NewTopic("acl-created", 1, (short) 1)))
                                .all()));
                admin.deleteAcls(List.of(principalFilter(ALICE))).all().get(60, TimeUnit.SECONDS);
                awaitAclCount(admin, principalFilter(ALICE), 0);
                admin.deleteTopics(List.of("acl-created")).all().get(60, TimeUnit.SECONDS);
            }
        });
    }
}
