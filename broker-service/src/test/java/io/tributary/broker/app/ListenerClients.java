package io.tributary.broker.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.broker.cluster.FakeCoordinatorServer;
import io.tributary.common.testing.TestCertificates;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * kafka-clients' producer and consumer through one listener of a broker under test, the settings
 * of a SASL login, the TLS files of a broker, and a broker process that follows a fake coordinator.
 */
final class ListenerClients {

    private ListenerClients() {}

    /**
     * Two records to partition 0 of {@code topic} with an acks=all producer, read back by a consumer
     * from the first; both clients must see the partition's leader at {@code leader} (this broker's
     * address on the listener). {@code client} holds the bootstrap servers and the security settings.
     */
    static List<String> produceAndConsume(Properties client, String topic, String prefix, Node leader)
            throws Exception {
        List<Long> offsets = new ArrayList<>();
        Properties producerConfig = new Properties();
        producerConfig.putAll(client);
        producerConfig.put(ProducerConfig.ACKS_CONFIG, "all");
        // The fake coordinator allocates no producer ids: not idempotent.
        producerConfig.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        producerConfig.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        producerConfig.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        producerConfig.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        var producer = new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer());
        try {
            assertThat(producer.partitionsFor(topic))
                    .extracting(PartitionInfo::leader)
                    .containsExactly(leader);
            for (int i = 0; i < 2; i++) {
                RecordMetadata sent = producer.send(new ProducerRecord<>(
                                topic, 0, null, (prefix + "-" + i).getBytes(StandardCharsets.UTF_8)))
                        .get(30, TimeUnit.SECONDS);
                offsets.add(sent.offset());
            }
        } finally {
            producer.close(Duration.ofSeconds(5));
        }
        Properties consumerConfig = new Properties();
        consumerConfig.putAll(client);
        consumerConfig.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<String> read = new ArrayList<>();
        try (var consumer =
                new KafkaConsumer<>(consumerConfig, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            assertThat(consumer.partitionsFor(topic))
                    .extracting(PartitionInfo::leader)
                    .containsExactly(leader);
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seek(partition, offsets.getFirst());
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    read.add(new String(r.value(), StandardCharsets.UTF_8));
                }
                return read.size() >= 2;
            });
        }
        return read;
    }

    /**
     * Writes {@code tls.key} and {@code tls.crt} (PEM) of a server certificate for {@code
     * CN=localhost}, signed by a new test CA, into {@code dir}.
     *
     * @return the CA's certificate (PEM), for the clients' trust store
     */
    static Path localhostTlsFiles(Path dir) throws IOException, InterruptedException {
        TestCertificates certificates = new TestCertificates(dir);
        Path caPem = certificates.ca("ca");
        certificates.signedServer("ca", "broker", "CN=localhost");
        Files.writeString(dir.resolve("tls.key"), certificates.privateKeyPem("broker.p12", "broker"));
        Files.writeString(dir.resolve("tls.crt"), certificates.chainPem("broker.p12", "broker"));
        return caPem;
    }

    /**
     * The settings of a client that logs in with {@code mechanism} (PLAIN or a SCRAM one) on {@code
     * bootstrap}; with {@code SASL_SSL}, trusting {@code caPem} (hostname verification on, as
     * kafka-clients have it by default).
     */
    static Properties sasl(
            String bootstrap, String protocol, String mechanism, String user, String password, Path caPem) {
        Properties client = new Properties();
        client.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        client.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, protocol);
        client.put("sasl.mechanism", mechanism);
        String module = mechanism.equals("PLAIN")
                ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                : "org.apache.kafka.common.security.scram.ScramLoginModule";
        client.put("sasl.jaas.config", module + " required username=\"" + user + "\" password=\"" + password + "\";");
        if (protocol.equals("SASL_SSL")) {
            client.put("ssl.truststore.type", "PEM");
            client.put("ssl.truststore.location", caPem.toString());
        }
        client.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        client.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return client;
    }

    /**
     * A broker process (no web server) with id {@code brokerId} and data under {@code dataDir},
     * following the fake coordinator {@code server} with short heartbeats and no controlled
     * shutdown, with {@code args} besides.
     */
    static ConfigurableApplicationContext startBroker(
            FakeCoordinatorServer server, int brokerId, Path dataDir, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of(
                "--tributary.broker.id=" + brokerId,
                "--tributary.broker.data-dir=" + dataDir,
                "--tributary.broker.coordinators=" + server.address(),
                "--tributary.broker.cluster.heartbeat-interval=100ms",
                "--tributary.broker.cluster.metadata-max-wait=1s",
                "--tributary.broker.cluster.controlled-shutdown-timeout=0s"));
        return new SpringApplicationBuilder(BrokerApplication.class)
                .web(WebApplicationType.NONE)
                .run(all.toArray(String[]::new));
    }
}
