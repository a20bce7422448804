package io.tributary.systemtests.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.common.testing.SecretVolume;
import io.tributary.common.testing.TestCertificates;
import io.tributary.systemtests.ScriptedCluster;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Certificate rotation on a live broker (one coordinator, one broker, the gateway, run by {@code
 * bin/tributary}), with the broker's SASL_SSL listener reading its key and chain as PEM files from a
 * directory laid out as Kubernetes mounts a Secret (each file a link through {@code ..data} to a
 * timestamped directory, a rotation one atomic rename of {@code ..data}): a producer and a consumer
 * connected before the rotation keep producing and consuming; the next connections are shown the
 * new certificate (its serial number, read by a raw TLS handshake), and a new client that trusts
 * only that certificate works; a half-written replacement is kept out (the listener still shows the
 * new certificate) and counted by {@code tributary_protocol_tls_reload_failures_total}.
 *
 * <p>Tributary only: Apache Kafka does not reload its key store from a changed file (it takes a new
 * one through a dynamic config change), so there is no peer outcome to compare.
 */
class CertificateRotationIT {

    private static final String USER = "alice";
    private static final String PASSWORD = "alice-secret";
    private static final String TOPIC = "rotation-events";

    @TempDir
    static Path work;

    private static ScriptedCluster cluster;
    private static TestCertificates certificates;
    private static SecretVolume mount;
    private static int saslSslPort;
    private static int brokerHttpPort;

    @BeforeAll
    static void up() throws Exception {
        Path tls = Files.createDirectories(work.resolve("tls"));
        certificates = new TestCertificates(tls);
        certificates.ca("ca");
        certificates.signedServer("ca", "first", "CN=localhost,OU=first,O=Tributary test");
        certificates.signedServer("ca", "second", "CN=localhost,OU=second,O=Tributary test");
        mount = SecretVolume.create(work.resolve("mount"), certificates.tlsSecret("first"));
        Path users = Files.writeString(work.resolve("users.properties"), USER + "=" + PASSWORD + "\n");
        saslSslPort = freePort();
        String javaOptions = String.join(
                " ",
                "-Xmx384m",
                "-Dtributary.broker.listeners=SASL_SSL://127.0.0.1:" + saslSslPort,
                "-Dtributary.broker.listener.security.protocol.map=SASL_SSL:SASL_SSL",
                "-Dtributary.broker.sasl.enabled.mechanisms=PLAIN",
                "-Dtributary.broker.sasl.plain.users.file=" + users,
                "-Dtributary.broker.ssl.keystore.type=PEM",
                "-Dtributary.broker.ssl.keystore.location=" + mount.file("tls.key"),
                "-Dtributary.broker.ssl.keystore.certificate.chain.location=" + mount.file("tls.crt"),
                // the default is 30 s; a test waits for less
                "-Dtributary.broker.security-file-check-interval=1s");
        cluster = ScriptedCluster.create(
                Files.createDirectories(work.resolve("tributary")),
                "certificate-rotation-logs",
                List.of(8080, 8081, 9092, 8091, 9191, 9291),
                Map.of("TRIBUTARY_JAVA_OPTS", javaOptions));
        cluster.upOrClean("--coordinators", "1", "--brokers", "1");
        brokerHttpPort = 8081 + cluster.portOffset();
    }

    @AfterAll
    static void down() {
        if (cluster != null) {
            cluster.downAndDeleteWork();
        }
    }

    private static Properties client(Path trusted) {
        Properties properties = new Properties();
        properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + saslSslPort);
        properties.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_SSL");
        properties.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
        properties.put(
                SaslConfigs.SASL_JAAS_CONFIG,
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + USER + "\" password=\""
                        + PASSWORD + "\";");
        properties.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
        properties.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, trusted.toString());
        return properties;
    }

    private static KafkaProducer<String, String> producer(Path trusted) {
        Properties properties = client(trusted);
        properties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        return new KafkaProducer<>(properties, new StringSerializer(), new StringSerializer());
    }

    private static KafkaConsumer<String, String> consumer(Path trusted) {
        Properties properties = client(trusted);
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(properties, new StringDeserializer(), new StringDeserializer());
        consumer.assign(List.of(new TopicPartition(TOPIC, 0)));
        return consumer;
    }

    private static void produce(KafkaProducer<String, String> producer, String prefix, int count) throws Exception {
        for (int i = 0; i < count; i++) {
            producer.send(new ProducerRecord<>(TOPIC, prefix + i)).get(60, TimeUnit.SECONDS);
        }
    }

    /** Polls {@code consumer} until it has read {@code count} more values; returns them. */
    private static List<String> consume(KafkaConsumer<String, String> consumer, int count) {
        List<String> values = new ArrayList<>();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                values.add(record.value());
            }
            return values.size() >= count;
        });
        return values;
    }

    /** The certificate the broker's SASL_SSL listener shows a new connection (trusting the CA). */
    private static BigInteger servedSerial() throws Exception {
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        trusted.setCertificateEntry("ca", certificate(certificates.dir().resolve("ca.pem")));
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", saslSslPort)) {
            socket.startHandshake();
            return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSerialNumber();
        }
    }

    private static X509Certificate certificate(Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    private static BigInteger serialOf(String alias) throws Exception {
        return certificate(certificates.dir().resolve(alias + ".crt")).getSerialNumber();
    }

    /** {@code tributary_protocol_tls_reload_failures_total} of the SASL_SSL listener, from the broker's Prometheus endpoint. */
    private static double reloadFailures() throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            String text = http.send(
                            HttpRequest.newBuilder(
                                            URI.create("http://127.0.0.1:" + brokerHttpPort + "/actuator/prometheus"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            Matcher metric = Pattern.compile(
                            "(?m)^tributary_protocol_tls_reload_failures_total\\{[^}]*listener=\"SASL_SSL\"[^}]*} (\\S+)$")
                    .matcher(text);
            assertThat(metric.find())
                    .as("tributary_protocol_tls_reload_failures_total{listener=\"SASL_SSL\"} in%n%s", text)
                    .isTrue();
            return Double.parseDouble(metric.group(1));
        }
    }

    @Test
    void connectedClientsKeepWorkingWhileNewConnectionsGetTheRotatedCertificateAndAHalfWrittenOneIsKeptOut()
            throws Exception {
        Path ca = certificates.dir().resolve("ca.pem");
        try (Admin admin = Admin.create(client(ca))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        assertThat(servedSerial()).isEqualTo(serialOf("first"));
        try (KafkaProducer<String, String> producer = producer(ca);
                KafkaConsumer<String, String> consumer = consumer(ca)) {
            produce(producer, "before-", 5);
            assertThat(consume(consumer, 5))
                    .containsExactly("before-0", "before-1", "before-2", "before-3", "before-4");

            mount.publish(certificates.tlsSecret("second"));
            await().atMost(Duration.ofSeconds(60)).until(() -> servedSerial().equals(serialOf("second")));

            // the clients connected before keep going on their connections
            produce(producer, "after-", 5);
            assertThat(consume(consumer, 5)).containsExactly("after-0", "after-1", "after-2", "after-3", "after-4");

            // a new client that trusts only the new certificate connects
            try (KafkaConsumer<String, String> pinned =
                    consumer(certificates.dir().resolve("second.crt"))) {
                assertThat(consume(pinned, 10))
                        .hasSize(10)
                        .startsWith("before-0")
                        .endsWith("after-4");
            }

            // half written: the chain cut in the middle of its first certificate
            double failuresBefore = reloadFailures();
            String chain = certificates.chainPem("first.p12", "first");
            mount.publish(Map.of(
                    "tls.key",
                    certificates.privateKeyPem("first.p12", "first"),
                    "tls.crt",
                    chain.substring(0, chain.length() / 3)));
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                servedSerial(); // a new connection makes the listener look at its files
                return reloadFailures() > failuresBefore;
            });
            assertThat(servedSerial()).isEqualTo(serialOf("second"));
            produce(producer, "broken-", 2);
            assertThat(consume(consumer, 2)).containsExactly("broken-0", "broken-1");
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
