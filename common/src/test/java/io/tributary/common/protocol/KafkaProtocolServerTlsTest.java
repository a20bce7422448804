package io.tributary.common.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.common.security.acl.KafkaPrincipal;
import io.tributary.common.security.sasl.SaslSettings;
import io.tributary.common.security.tls.TlsSettings;
import io.tributary.common.security.tls.TlsSettings.ClientAuth;
import io.tributary.common.testing.KafkaTestConnection;
import io.tributary.common.testing.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS listeners (Kafka's SSL and SASL_SSL) driven by a real kafka-clients {@code Admin}: key stores
 * made for the test by the JDK's {@code keytool} (a server certificate for 127.0.0.1, a client
 * certificate), with and without client certificates, and with SCRAM over TLS.
 */
class KafkaProtocolServerTlsTest {

    private static final String PASSWORD = TestCertificates.PASSWORD;

    @TempDir
    static Path stores;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final AtomicReference<KafkaPrincipal> seen = new AtomicReference<>();
    private final AtomicReference<Thread> servedOn = new AtomicReference<>();
    private KafkaProtocolServer server;

    @BeforeAll
    static void makeStores() throws Exception {
        TestCertificates certificates = new TestCertificates(stores);
        certificates.selfSignedLocalhostServer();
        certificates.keyPair("client", "CN=client,O=example", "client.p12");
        certificates.exportCertificate("client", "client.p12", "client.pem");
        certificates.trustStore("client", "client.pem", "server-trust.p12");
    }

    private void start(ClientAuth clientAuth, SaslSettings sasl) {
        TlsSettings tls = new TlsSettings(
                stores.resolve("server.p12"),
                "PKCS12",
                PASSWORD.toCharArray(),
                null,
                stores.resolve("server-trust.p12"),
                "PKCS12",
                PASSWORD.toCharArray(),
                clientAuth,
                TlsSettings.DEFAULT_PROTOCOLS);
        server =
                TestHandlers.startRecordingPrincipals("tls", new ListenerSecurity(tls, sasl), registry, seen, servedOn);
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private Properties clientConfig(String protocol, boolean withCertificate) {
        Properties properties = new Properties();
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + server.port());
        properties.put(AdminClientConfig.SECURITY_PROTOCOL_CONFIG, protocol);
        properties.put(
                "ssl.truststore.location", stores.resolve("client-trust.p12").toString());
        properties.put("ssl.truststore.password", PASSWORD);
        properties.put("ssl.truststore.type", "PKCS12");
        if (withCertificate) {
            properties.put("ssl.keystore.location", stores.resolve("client.p12").toString());
            properties.put("ssl.keystore.password", PASSWORD);
            properties.put("ssl.keystore.type", "PKCS12");
            properties.put("ssl.key.password", PASSWORD);
        }
        properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
        return properties;
    }

    private static String clusterId(Properties properties) throws Exception {
        try (Admin admin = Admin.create(properties)) {
            return admin.describeCluster().clusterId().get(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void aClientThatTrustsTheCertificateIsServedAsAnonymousWithoutOneOfItsOwn() throws Exception {
        start(ClientAuth.NONE, null);
        assertThat(clusterId(clientConfig("SSL", false))).isEqualTo(TestHandlers.CLUSTER_ID);
        assertThat(seen.get()).isEqualTo(KafkaPrincipal.ANONYMOUS);
    }

    @Test
    void byDefaultATlsListenersConnectionsAreServedOnPlatformThreads() throws Exception {
        start(ClientAuth.NONE, null);
        assertThat(clusterId(clientConfig("SSL", false))).isEqualTo(TestHandlers.CLUSTER_ID);
        // connection-threads=auto: TLS records would wake a parked virtual thread each (ConnectionThreads).
        assertThat(servedOn.get().isVirtual()).isFalse();
        assertThat(servedOn.get().isDaemon()).isTrue();
    }

    @Test
    void aRequiredClientCertificateNamesThePrincipalAndItsAbsenceFailsTheHandshake() throws Exception {
        start(ClientAuth.REQUIRED, null);
        assertThat(clusterId(clientConfig("SSL", true))).isEqualTo(TestHandlers.CLUSTER_ID);
        assertThat(seen.get()).isEqualTo(KafkaPrincipal.user("CN=client,O=example"));
        seen.set(null);
        assertThatThrownBy(() -> clusterId(clientConfig("SSL", false)))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(SslAuthenticationException.class);
        assertThat(seen.get()).isNull();
    }

    @Test
    void scramOverTlsNamesTheSaslPrincipal() throws Exception {
        start(ClientAuth.NONE, new SaslSettings(List.of("SCRAM-SHA-512"), new TestCredentials()));
        Properties properties = clientConfig("SASL_SSL", false);
        properties.put("sasl.mechanism", "SCRAM-SHA-512");
        properties.put(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"alice\" password=\""
                        + TestCredentials.ALICE_PASSWORD + "\";");
        assertThat(clusterId(properties)).isEqualTo(TestHandlers.CLUSTER_ID);
        assertThat(seen.get()).isEqualTo(KafkaPrincipal.user("alice"));
    }

    @Test
    void aPlaintextClientOnATlsListenerIsDisconnected() throws Exception {
        start(ClientAuth.NONE, null);
        try (var connection = KafkaTestConnection.open(server.port())) {
            connection.send(TestRequests.describeCluster(0));
            // What comes back before the close is at most a TLS alert record (7 bytes), never an answer.
            assertThat(connection.readUntilClosed()).isLessThanOrEqualTo(7);
        }
        assertThat(seen.get()).isNull();
    }

    @Test
    void onlyTls13And12MayBeOffered() {
        assertThatThrownBy(() -> new TlsSettings(
                        Files.createTempFile("ks", ".p12"),
                        "PKCS12",
                        new char[0],
                        null,
                        null,
                        null,
                        null,
                        ClientAuth.NONE,
                        List.of("TLSv1.1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("TLS protocol TLSv1.1 is not allowed");
    }
}
