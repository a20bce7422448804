package io.tributary.common.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.common.security.acl.KafkaPrincipal;
import io.tributary.common.security.tls.SslPrincipalMapper;
import io.tributary.common.security.tls.TlsSettings;
import io.tributary.common.security.tls.TlsSettings.ClientAuth;
import io.tributary.common.testing.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
 * TLS from PEM files (Kafka's {@code ssl.keystore.type=PEM}), rotated on disk while the listener
 * runs: new connections get the new certificate, open ones keep going. Two CAs made by keytool
 * ({@link TestCertificates}) each sign a server certificate; the client trusts one CA or the other
 * (as a PEM trust store, kafka-clients' own {@code ssl.truststore.type=PEM}).
 */
class KafkaProtocolServerPemTest {

    @TempDir
    static Path dir;

    private static TestCertificates certificates;
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final AtomicReference<KafkaPrincipal> seen = new AtomicReference<>();
    private KafkaProtocolServer server;

    @BeforeAll
    static void makeCertificates() throws Exception {
        certificates = new TestCertificates(dir);
        for (String name : new String[] {"first", "second"}) {
            certificates.ca(name + "-ca");
            certificates.signedServer(name + "-ca", name, "CN=localhost,O=" + name);
        }
        certificates.keyPair("client", "CN=Alice,OU=Users,O=Example", "client.p12");
        certificates.exportCertificate("client", "client.p12", "client.pem");
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** Writes {@code name}'s key and chain as cert-manager does: {@code tls.key} and {@code tls.crt}. */
    private static void install(String name, Path key, Path chain) throws Exception {
        Files.writeString(key, certificates.privateKeyPem(name + ".p12", name));
        Files.writeString(chain, certificates.chainPem(name + ".p12", name));
    }

    /** PEM settings: the key file, an optional separate chain file, an optional PEM trust store. */
    private static TlsSettings pem(
            Path key, Path chain, Path trusted, ClientAuth clientAuth, SslPrincipalMapper mapper) {
        return new TlsSettings(
                key,
                TlsSettings.PEM,
                new char[0],
                null,
                trusted,
                trusted == null ? null : TlsSettings.PEM,
                null,
                clientAuth,
                TlsSettings.DEFAULT_PROTOCOLS,
                chain,
                mapper);
    }

    private Properties client(String trustedCa) {
        Properties properties = new Properties();
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + server.port());
        properties.put(AdminClientConfig.SECURITY_PROTOCOL_CONFIG, "SSL");
        properties.put("ssl.truststore.type", "PEM");
        properties.put(
                "ssl.truststore.location", dir.resolve(trustedCa + ".pem").toString());
        properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
        return properties;
    }

    private static String clusterId(Admin admin) throws Exception {
        return admin.describeCluster().clusterId().get(20, TimeUnit.SECONDS);
    }

    @Test
    void rotatedPemFilesServeNewConnectionsWhileOpenOnesKeepGoing() throws Exception {
        Path key = dir.resolve("tls.key");
        Path chain = dir.resolve("tls.crt");
        install("first", key, chain);
        TlsSettings tls = pem(key, chain, null, ClientAuth.NONE, SslPrincipalMapper.DEFAULT);
        server = TestHandlers.startRecordingPrincipals(
                "pem", new ListenerSecurity(tls, null, Duration.ZERO), registry, seen);

        try (Admin before = Admin.create(client("first-ca"))) {
            assertThat(clusterId(before)).isEqualTo(TestHandlers.CLUSTER_ID);
            install("second", key, chain);
            try (Admin after = Admin.create(client("second-ca"))) {
                assertThat(clusterId(after)).isEqualTo(TestHandlers.CLUSTER_ID);
            }
            assertThat(server.tlsReloads()).isEqualTo(1);
            try (Admin stale = Admin.create(client("first-ca"))) {
                assertThatThrownBy(() -> clusterId(stale))
                        .isInstanceOf(ExecutionException.class)
                        .cause()
                        .isInstanceOf(SslAuthenticationException.class);
            }
            // the connection made before the rotation still works, with the old certificate
            assertThat(clusterId(before)).isEqualTo(TestHandlers.CLUSTER_ID);
        }
    }

    @Test
    void aBrokenReplacementKeepsTheLoadedCertificate() throws Exception {
        Path both = dir.resolve("both.pem");
        Files.writeString(
                both, certificates.privateKeyPem("first.p12", "first") + certificates.chainPem("first.p12", "first"));
        TlsSettings tls = pem(both, null, null, ClientAuth.NONE, SslPrincipalMapper.DEFAULT);
        server = TestHandlers.startRecordingPrincipals(
                "pem", new ListenerSecurity(tls, null, Duration.ZERO), registry, seen);
        Files.writeString(both, "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
        try (Admin admin = Admin.create(client("first-ca"))) {
            assertThat(clusterId(admin)).isEqualTo(TestHandlers.CLUSTER_ID);
        }
        assertThat(server.tlsReloads()).isZero();
        assertThat(server.tlsReloadFailures()).isPositive();
    }

    @Test
    void principalMappingRulesNameTheClientCertificatesUser() throws Exception {
        Path both = dir.resolve("server.pem");
        Files.writeString(
                both, certificates.privateKeyPem("first.p12", "first") + certificates.chainPem("first.p12", "first"));
        TlsSettings tls = pem(
                both,
                null,
                dir.resolve("client.pem"),
                ClientAuth.REQUIRED,
                SslPrincipalMapper.parse("RULE:^CN=([^,]*),OU=Users,.*$/$1/L,DEFAULT"));
        server = TestHandlers.startRecordingPrincipals("pem", new ListenerSecurity(tls, null), registry, seen);
        Properties properties = client("first-ca");
        properties.put("ssl.keystore.location", dir.resolve("client.p12").toString());
        properties.put("ssl.keystore.password", TestCertificates.PASSWORD);
        properties.put("ssl.keystore.type", "PKCS12");
        properties.put("ssl.key.password", TestCertificates.PASSWORD);
        try (Admin admin = Admin.create(properties)) {
            assertThat(clusterId(admin)).isEqualTo(TestHandlers.CLUSTER_ID);
        }
        assertThat(seen.get()).isEqualTo(KafkaPrincipal.user("alice"));
    }
}
