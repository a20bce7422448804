package io.tributary.gateway.produce;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.micrometer.core.instrument.MeterRegistry;
import io.tributary.gateway.app.GatewayApplication;
import io.tributary.gateway.idempotency.IdempotencyKey;
import io.tributary.gateway.idempotency.RequestDigest;
import io.tributary.gateway.testing.GatewayHttp;
import io.tributary.gateway.testing.SharedKafka;
import io.tributary.gateway.testing.TestTopics;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code Idempotency-Key} on two gateway replicas (two Spring contexts on their own ports) in front
 * of one real Kafka broker, sharing one idempotency log: a retry on the other replica gets the
 * original answer and writes nothing, concurrent duplicates write once, a claim left without a
 * result is 409 until the claim timeout and then taken over, a reused key is 422, and the limits.
 */
@ExtendWith(SharedKafka.class)
class IdempotentProduceTest {

    private static final int LOG_PARTITIONS = 4;
    private static final String LOG_TOPIC = "__idempotency-test-" + Long.toHexString(System.nanoTime() & 0xffffff);
    private static final AtomicInteger names = new AtomicInteger();

    private static ConfigurableApplicationContext gatewayA;
    private static ConfigurableApplicationContext gatewayB;
    private static GatewayHttp a;
    private static GatewayHttp b;
    private static Admin admin;
    private static KafkaProducer<byte[], byte[]> producer;

    @BeforeAll
    static void startTwoGateways() throws Exception {
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrapServers()));
        // the log exists before the gateways (the test writes claims into it directly); a gateway
        // creates it itself when it is missing (aReplicaStartedLaterReplaysFromTheLog's own topic)
        createTopic(LOG_TOPIC, LOG_PARTITIONS, Map.of());
        producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafka.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class));
        int portA = freePort();
        int portB = freePort();
        gatewayA = gateway("gateway-a", portA, LOG_TOPIC);
        gatewayB = gateway("gateway-b", portB, LOG_TOPIC);
        a = new GatewayHttp(portA);
        b = new GatewayHttp(portB);
    }

    @AfterAll
    static void stopGateways() {
        for (AutoCloseable c : new AutoCloseable[] {gatewayA, gatewayB, producer, admin}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    throw new AssertionError("could not close " + c, e);
                }
            }
        }
    }

    private static ConfigurableApplicationContext gateway(String instance, int port, String logTopic, String... more) {
        List<String> args = new ArrayList<>(List.of(
                "--server.port=" + port,
                "--tributary.instance=" + instance,
                "--tributary.gateway.bootstrap-servers=" + SharedKafka.bootstrapServers(),
                "--tributary.gateway.idempotency.topic=" + logTopic,
                "--tributary.gateway.idempotency.topic-partitions=" + LOG_PARTITIONS,
                "--tributary.gateway.idempotency.max-stored-response-size=400B",
                "--springdoc.api-docs.enabled=false",
                "--springdoc.swagger-ui.enabled=false"));
        args.addAll(List.of(more));
        return new SpringApplicationBuilder(GatewayApplication.class).run(args.toArray(String[]::new));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static String topic(int partitions, Map<String, String> configs) {
        return createTopic(
                "idem-" + names.incrementAndGet() + "-" + Long.toHexString(System.nanoTime() & 0xffffff),
                partitions,
                configs);
    }

    private static String createTopic(String name, int partitions, Map<String, String> configs) {
        TestTopics.create(admin, name, partitions, configs);
        return name;
    }

    private static HttpResponse<String> post(GatewayHttp gateway, String path, String body, String key) {
        return gateway.post(path, "application/json", body.getBytes(StandardCharsets.UTF_8), "Idempotency-Key", key);
    }

    /** Every record of the topic, all partitions, read to the end. */
    private static List<ConsumerRecord<byte[], byte[]>> readAll(String topic) {
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of(
                "bootstrap.servers", SharedKafka.bootstrapServers(),
                "key.deserializer", ByteArrayDeserializer.class,
                "value.deserializer", ByteArrayDeserializer.class))) {
            List<TopicPartition> tps = c.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .toList();
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> ends = c.endOffsets(tps);
            List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (tps.stream().anyMatch(tp -> c.position(tp) < ends.get(tp))) {
                assertThat(System.nanoTime())
                        .as("read %s to its end in time", topic)
                        .isLessThan(deadline);
                c.poll(Duration.ofMillis(200)).forEach(all::add);
            }
            return all;
        }
    }

    /** The idempotency log's records of {@code key} on {@code topic}, as their {@code type}s in log order. */
    private static List<String> logRecords(String topic, String key) {
        byte[] scoped = IdempotencyKey.parse(topic, key).recordKey();
        return readAll(LOG_TOPIC).stream()
                .filter(r -> java.util.Arrays.equals(r.key(), scoped))
                .sorted(java.util.Comparator.comparingLong(ConsumerRecord::offset))
                .map(r -> JsonPath.<String>read(new String(r.value(), StandardCharsets.UTF_8), "$.type"))
                .toList();
    }

    private static String topicConfig(String topic, String key) throws Exception {
        var resource = new org.apache.kafka.common.config.ConfigResource(
                org.apache.kafka.common.config.ConfigResource.Type.TOPIC, topic);
        return admin.describeConfigs(List.of(resource))
                .all()
                .get(30, TimeUnit.SECONDS)
                .get(resource)
                .get(key)
                .value();
    }

    private static double claims(ConfigurableApplicationContext gateway, String outcome) {
        var c = gateway.getBean(MeterRegistry.class)
                .find("tributary.gateway.idempotency.claims")
                .tag("outcome", outcome)
                .counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void aRetryOnTheOtherReplicaGetsTheOriginalAnswerAndWritesNothing() {
        String topic = topic(3, Map.of());
        String body =
                "{\"records\":[{\"key\":\"a\",\"value\":1},{\"key\":\"b\",\"value\":2},{\"key\":\"c\",\"value\":3}]}";
        double replaysBefore = claims(gatewayB, "replay");

        HttpResponse<String> first = post(a, "/v1/topics/" + topic + "/records", body, "order-1");
        HttpResponse<String> retry = post(b, "/v1/topics/" + topic + "/records", body, "order-1");
        HttpResponse<String> again = post(a, "/v1/topics/" + topic + "/records", body, "order-1");

        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(retry.statusCode()).as(retry.body()).isEqualTo(200);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(again.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(readAll(topic)).hasSize(3);
        assertThat(logRecords(topic, "order-1")).containsExactly("claim", "result", "claim", "claim");
        assertThat(claims(gatewayB, "replay")).isEqualTo(replaysBefore + 1);
    }

    @Test
    void concurrentDuplicatesOnBothReplicasWriteOnceAndEveryOtherGets409OrTheReplay() throws Exception {
        String topic = topic(2, Map.of());
        String body = "{\"records\":[{\"key\":\"x\",\"value\":\"once\"},{\"key\":\"y\",\"value\":\"twice?\"}]}";
        int attempts = 12;
        CountDownLatch go = new CountDownLatch(1);
        List<Future<HttpResponse<String>>> answers = new ArrayList<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < attempts; i++) {
                GatewayHttp gateway = i % 2 == 0 ? a : b;
                answers.add(pool.submit(() -> {
                    go.await();
                    return post(gateway, "/v1/topics/" + topic + "/records", body, "burst");
                }));
            }
            go.countDown();
            List<HttpResponse<String>> done = new ArrayList<>();
            for (Future<HttpResponse<String>> f : answers) {
                done.add(f.get(60, TimeUnit.SECONDS));
            }
            List<HttpResponse<String>> executed = done.stream()
                    .filter(r -> r.statusCode() == 200
                            && r.headers().firstValue("Idempotent-Replayed").isEmpty())
                    .toList();
            assertThat(executed).hasSize(1);
            for (HttpResponse<String> r : done) {
                if (r.statusCode() == 409) {
                    assertThat(r.body()).contains("urn:tributary:problem:idempotency-key-in-progress");
                    assertThat(r.headers().firstValue("Retry-After")).contains("1");
                } else {
                    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                    assertThat(r.body()).isEqualTo(executed.getFirst().body());
                }
            }
        }
        assertThat(readAll(topic)).hasSize(2);
        assertThat(logRecords(topic, "burst")).filteredOn("result"::equals).hasSize(1);
        assertThat(logRecords(topic, "burst")).filteredOn("claim"::equals).hasSize(attempts);
    }

    /** A claim as a replica that then died would have left it. */
    private static void claimAsADeadReplica(String topic, String key, String body, long timestampMs) throws Exception {
        IdempotencyKey k = IdempotencyKey.parse(topic, key);
        String digest = RequestDigest.of(
                "POST",
                "/v1/topics/" + topic + "/records",
                null,
                "application/json",
                null,
                body.getBytes(StandardCharsets.UTF_8));
        String claim = "{\"v\":1,\"type\":\"claim\",\"request_sha256\":\"" + digest + "\",\"replica\":\"dead-1\"}";
        producer.send(new ProducerRecord<>(
                        LOG_TOPIC,
                        k.partition(LOG_PARTITIONS),
                        timestampMs,
                        k.recordKey(),
                        claim.getBytes(StandardCharsets.UTF_8)))
                .get(30, TimeUnit.SECONDS);
    }

    @Test
    void aClaimLeftWithoutAResultIs409UntilTheClaimTimeoutThenARetryDoesTheRequest() throws Exception {
        String topic = topic(1, Map.of());
        String body = "{\"value\":\"after a crash\"}";
        // unreadable records in the log are skipped, never fatal
        producer.send(new ProducerRecord<>(
                        LOG_TOPIC,
                        IdempotencyKey.parse(topic, "recent").partition(LOG_PARTITIONS),
                        IdempotencyKey.parse(topic, "recent").recordKey(),
                        "not json".getBytes(StandardCharsets.UTF_8)))
                .get(30, TimeUnit.SECONDS);
        claimAsADeadReplica(topic, "recent", body, System.currentTimeMillis());
        claimAsADeadReplica(
                topic,
                "old",
                body,
                System.currentTimeMillis() - Duration.ofMinutes(2).toMillis() - 1_000);
        double takeoversBefore = claims(gatewayA, "takeover");

        HttpResponse<String> blocked = post(a, "/v1/topics/" + topic + "/records", body, "recent");
        HttpResponse<String> blockedOnB = post(b, "/v1/topics/" + topic + "/records", body, "recent");
        HttpResponse<String> otherBody = post(a, "/v1/topics/" + topic + "/records", "{\"value\":0}", "recent");
        HttpResponse<String> takenOver = post(a, "/v1/topics/" + topic + "/records", body, "old");
        HttpResponse<String> thenReplayed = post(b, "/v1/topics/" + topic + "/records", body, "old");

        assertThat(blocked.statusCode()).as(blocked.body()).isEqualTo(409);
        assertThat(JsonPath.<String>read(blocked.body(), "$.type"))
                .isEqualTo("urn:tributary:problem:idempotency-key-in-progress");
        assertThat(blocked.headers().firstValue("Retry-After")).contains("1");
        assertThat(blockedOnB.statusCode()).as(blockedOnB.body()).isEqualTo(409);
        assertThat(otherBody.statusCode()).as(otherBody.body()).isEqualTo(422);
        assertThat(takenOver.statusCode()).as(takenOver.body()).isEqualTo(200);
        assertThat(takenOver.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(thenReplayed.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(thenReplayed.body()).isEqualTo(takenOver.body());
        assertThat(claims(gatewayA, "takeover")).isEqualTo(takeoversBefore + 1);
        assertThat(readAll(topic)).hasSize(1);
    }

    @Test
    void theKeyWithAnotherRequestIs422AndOnAnotherTopicIsAnotherKey() {
        String topic = topic(2, Map.of());
        String other = topic(1, Map.of());

        HttpResponse<String> first = post(a, "/v1/topics/" + topic + "/records", "{\"value\":1}", "k-1");
        HttpResponse<String> otherBody = post(b, "/v1/topics/" + topic + "/records", "{\"value\":2}", "k-1");
        HttpResponse<String> otherPath =
                post(b, "/v1/topics/" + topic + "/partitions/0/records", "{\"value\":1}", "k-1");
        HttpResponse<String> otherQuery =
                post(a, "/v1/topics/" + topic + "/records?acks=leader", "{\"value\":1}", "k-1");
        HttpResponse<String> otherTopic = post(b, "/v1/topics/" + other + "/records", "{\"value\":2}", "k-1");

        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        for (HttpResponse<String> r : List.of(otherBody, otherPath, otherQuery)) {
            assertThat(r.statusCode()).as(r.body()).isEqualTo(422);
            assertThat(JsonPath.<String>read(r.body(), "$.type"))
                    .isEqualTo("urn:tributary:problem:idempotency-key-reused");
        }
        assertThat(otherTopic.statusCode()).as(otherTopic.body()).isEqualTo(200);
        assertThat(otherTopic.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(readAll(topic)).hasSize(1);
        assertThat(readAll(other)).hasSize(1);
    }

    @Test
    void ndjsonWithAKeyAndMalformedKeysAre400NamingTheHeaderAndWriteNothing() {
        String topic = topic(1, Map.of());

        HttpResponse<String> ndjson = a.post(
                "/v1/topics/" + topic + "/records",
                "application/x-ndjson",
                "{\"value\":1}\n".getBytes(StandardCharsets.UTF_8),
                "Idempotency-Key",
                "n-1");
        HttpResponse<String> spaced = post(a, "/v1/topics/" + topic + "/records", "{\"value\":1}", "a b");
        HttpResponse<String> tooLong = post(b, "/v1/topics/" + topic + "/records", "{\"value\":1}", "k".repeat(256));

        for (HttpResponse<String> r : List.of(ndjson, spaced, tooLong)) {
            assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
            assertThat(JsonPath.<String>read(r.body(), "$.type")).isEqualTo("urn:tributary:problem:invalid-parameter");
            assertThat(JsonPath.<String>read(r.body(), "$.parameter")).isEqualTo("Idempotency-Key");
        }
        assertThat(readAll(topic)).isEmpty();
        assertThat(logRecords(topic, "n-1")).isEmpty();
    }

    @Test
    void aRequestWhoseEveryRecordFailedKeepsNothingSoARetryDoesItAgain() {
        String topic = topic(1, Map.of("max.message.bytes", "200"));
        String body = "{\"value\":\"" + "x".repeat(500) + "\"}";

        HttpResponse<String> first = post(a, "/v1/topics/" + topic + "/records", body, "too-big");
        HttpResponse<String> retry = post(b, "/v1/topics/" + topic + "/records", body, "too-big");

        assertThat(first.statusCode()).as(first.body()).isEqualTo(413);
        assertThat(retry.statusCode()).as(retry.body()).isEqualTo(413);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(logRecords(topic, "too-big")).containsExactly("claim", "release", "claim", "release");
    }

    @Test
    void anAnswerLargerThanTheStoredBoundIs410OnARetryAndWasWrittenOnce() {
        String topic = topic(1, Map.of());
        StringBuilder body = new StringBuilder("{\"records\":[");
        for (int i = 0; i < 10; i++) {
            body.append(i == 0 ? "" : ",").append("{\"value\":").append(i).append('}');
        }
        body.append("]}");

        HttpResponse<String> first = post(a, "/v1/topics/" + topic + "/records", body.toString(), "big-answer");
        HttpResponse<String> retry = post(b, "/v1/topics/" + topic + "/records", body.toString(), "big-answer");

        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        assertThat(first.body().length()).isGreaterThan(400);
        assertThat(retry.statusCode()).as(retry.body()).isEqualTo(410);
        assertThat(JsonPath.<String>read(retry.body(), "$.type"))
                .isEqualTo("urn:tributary:problem:idempotent-response-not-stored");
        assertThat(JsonPath.<String>read(retry.body(), "$.detail"))
                .contains(RequestDigest.sha256Hex(first.body().getBytes(StandardCharsets.UTF_8)));
        assertThat(readAll(topic)).hasSize(10);
    }

    @Test
    void aReplicaCreatesAMissingLogOnItsFirstKeyOnlyAndAReplicaStartedLaterReplaysFromIt() throws Exception {
        String logTopic = "__idempotency-late-" + Long.toHexString(System.nanoTime() & 0xffffff);
        String topic = topic(1, Map.of());
        String body = "{\"value\":\"late\"}";
        try (ConfigurableApplicationContext first = gateway("gateway-c", freePort(), logTopic)) {
            GatewayHttp c = new GatewayHttp(first.getEnvironment().getProperty("local.server.port", Integer.class));
            HttpResponse<String> plain =
                    c.post("/v1/topics/" + topic + "/records", "application/json", "{\"value\":0}");
            assertThat(plain.statusCode()).as(plain.body()).isEqualTo(200);
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS))
                    .as("without Idempotency-Key the log is not touched")
                    .doesNotContain(logTopic);

            HttpResponse<String> original = post(c, "/v1/topics/" + topic + "/records", body, "late-1");
            assertThat(original.statusCode()).as(original.body()).isEqualTo(200);
            var created = admin.describeTopics(List.of(logTopic))
                    .allTopicNames()
                    .get()
                    .get(logTopic);
            assertThat(created.partitions()).hasSize(LOG_PARTITIONS);
            assertThat(topicConfig(logTopic, "cleanup.policy")).isEqualTo("delete");
            assertThat(topicConfig(logTopic, "retention.ms"))
                    .as("key-ttl + claim-timeout + max-clock-skew")
                    .isEqualTo(Long.toString(
                            Duration.ofHours(24).plusMinutes(2).plusSeconds(30).toMillis()));

            try (ConfigurableApplicationContext second = gateway("gateway-d", freePort(), logTopic)) {
                GatewayHttp d =
                        new GatewayHttp(second.getEnvironment().getProperty("local.server.port", Integer.class));
                HttpResponse<String> retry = post(d, "/v1/topics/" + topic + "/records", body, "late-1");
                assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
                assertThat(retry.body()).isEqualTo(original.body());
            }
        }
        assertThat(readAll(topic)).hasSize(2);
    }

    @Test
    void aReplicaWhoseCacheIsFullDecidesByScanningTheLogAndStillReplays() throws Exception {
        String logTopic = "__idempotency-small-" + Long.toHexString(System.nanoTime() & 0xffffff);
        String topic = topic(1, Map.of());
        try (ConfigurableApplicationContext small =
                gateway("gateway-e", freePort(), logTopic, "--tributary.gateway.idempotency.cache-max-entries=2")) {
            GatewayHttp e = new GatewayHttp(small.getEnvironment().getProperty("local.server.port", Integer.class));
            List<String> firsts = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                HttpResponse<String> r = post(e, "/v1/topics/" + topic + "/records", "{\"value\":" + i + "}", "s-" + i);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                firsts.add(r.body());
            }
            double scansBefore = small.getBean(MeterRegistry.class)
                    .counter("tributary.gateway.idempotency.scans")
                    .count();

            for (int i = 0; i < 6; i++) {
                HttpResponse<String> retry =
                        post(e, "/v1/topics/" + topic + "/records", "{\"value\":" + i + "}", "s-" + i);
                assertThat(retry.headers().firstValue("Idempotent-Replayed"))
                        .as("s-" + i)
                        .contains("true");
                assertThat(retry.body()).isEqualTo(firsts.get(i));
            }
            HttpResponse<String> reused = post(e, "/v1/topics/" + topic + "/records", "{\"value\":9}", "s-0");

            assertThat(reused.statusCode()).as(reused.body()).isEqualTo(422);
            assertThat(small.getBean(MeterRegistry.class)
                            .counter("tributary.gateway.idempotency.scans")
                            .count())
                    .isGreaterThan(scansBefore);
        }
        assertThat(readAll(topic)).hasSize(6);
    }
}
