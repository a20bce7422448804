package io.tributary.common.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.common.protocol.ListenerSecurity;
import io.tributary.common.protocol.ProtocolServerConfig;
import io.tributary.common.security.sasl.CredentialLookup;
import io.tributary.common.security.sasl.SaslSettings;
import io.tributary.common.security.tls.TlsSettings;
import io.tributary.common.testing.TestCertificates;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.util.unit.DataSize;

/** The Kafka listener's TLS settings ({@code tributary.kafka.ssl.*}) and its internal clients' ones. */
class KafkaListenerTlsPropertiesTest {

    @TempDir
    static Path stores;

    @BeforeAll
    static void makeStores() throws Exception {
        TestCertificates certificates = new TestCertificates(stores);
        certificates.ca("ca");
        certificates.signedServer("ca", "server", "CN=server");
    }

    private static KafkaListenerProperties properties(Map<String, String> ssl) {
        return new KafkaListenerProperties(
                "127.0.0.1",
                0,
                DataSize.ofMegabytes(100),
                1000,
                DataSize.ofMegabytes(512),
                Duration.ofMinutes(10),
                Duration.ofSeconds(10),
                "",
                0,
                ssl,
                Duration.ofSeconds(5),
                ProtocolServerConfig.ConnectionThreads.VIRTUAL);
    }

    private static Map<String, String> serverTls() {
        return Map.of(
                "keystore.location",
                stores.resolve("server.p12").toString(),
                "keystore.type",
                "PKCS12",
                "keystore.password",
                TestCertificates.PASSWORD,
                "truststore.location",
                stores.resolve("ca.pem").toString(),
                "truststore.type",
                "PEM");
    }

    @Test
    void withoutAKeyStoreTheListenerIsPlaintextOrSaslPlaintext() {
        var properties = properties(Map.of());
        SaslSettings sasl = new SaslSettings(List.of("SCRAM-SHA-512"), CredentialLookup.NONE);

        assertThat(properties.tlsEnabled()).isFalse();
        assertThat(properties.security(Optional.empty()).protocolName()).isEqualTo("PLAINTEXT");
        assertThat(properties.security(Optional.of(sasl)).protocolName()).isEqualTo("SASL_PLAINTEXT");
    }

    @Test
    void withAKeyStoreTheListenerIsSslOrSaslSslWithKafkasDefaults() {
        var properties = properties(serverTls());
        SaslSettings sasl = new SaslSettings(List.of("SCRAM-SHA-512"), CredentialLookup.NONE);

        ListenerSecurity secured = properties.security(Optional.of(sasl));

        assertThat(secured.protocolName()).isEqualTo("SASL_SSL");
        assertThat(properties.security(Optional.empty()).protocolName()).isEqualTo("SSL");
        assertThat(secured.tls().protocols()).isEqualTo(TlsSettings.DEFAULT_PROTOCOLS);
        assertThat(secured.tls().clientAuth()).isEqualTo(TlsSettings.ClientAuth.NONE);
        assertThat(secured.tlsFileCheckInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(properties.tlsClient().checksHostName()).isTrue();
    }

    @Test
    void theInternalClientsKafkaSettingsTrustTheSameStoreAndCheckHostNames() {
        assertThat(properties(serverTls()).kafkaClientTlsProperties())
                .containsEntry(
                        "ssl.truststore.location", stores.resolve("ca.pem").toString())
                .containsEntry("ssl.truststore.type", "PEM")
                .containsEntry("ssl.endpoint.identification.algorithm", "https")
                .doesNotContainKey("security.protocol");
    }

    @Test
    void anEmptyEndpointIdentificationAlgorithmTurnsTheHostNameCheckOff() {
        Map<String, String> ssl = new java.util.HashMap<>(serverTls());
        ssl.put("endpoint.identification.algorithm", "");

        assertThat(properties(ssl).tlsClient().checksHostName()).isFalse();
    }

    @Test
    void anUnknownKeyOrAnOldProtocolStopsStartupNamingTheSetting() {
        assertThatThrownBy(() -> properties(Map.of("keystore.locaton", "x")))
                .hasMessageContaining("tributary.kafka.ssl.keystore.locaton");
        Map<String, String> old = new java.util.HashMap<>(serverTls());
        old.put("enabled.protocols", "TLSv1.1");
        assertThatThrownBy(() -> properties(old).security(Optional.empty())).hasMessageContaining("TLSv1.1");
        assertThatThrownBy(() -> properties(old).tlsClient()).hasMessageContaining("TLSv1.1");
    }
}
