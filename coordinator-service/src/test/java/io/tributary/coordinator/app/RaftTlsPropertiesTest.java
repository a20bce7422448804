package io.tributary.coordinator.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.common.testing.TestCertificates;
import io.tributary.coordinator.metadata.raft.RaftTransport;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** {@code tributary.coordinator.raft.ssl.*}: how the settings are spelled, and what they choose. */
class RaftTlsPropertiesTest {

    @TempDir
    Path dir;

    private static RaftTlsProperties bind(Map<String, String> settings) {
        return new Binder(new MapConfigurationPropertySource(settings))
                .bindOrCreate("tributary.coordinator.raft.ssl", RaftTlsProperties.class);
    }

    @Test
    void withoutAKeyStoreTheRaftPortIsPlaintext() {
        assertThat(bind(Map.of()).transport()).isEqualTo(RaftTransport.PLAIN);
    }

    @Test
    void aKeyStoreAndATrustStoreMakeItMutualTls() throws Exception {
        TestCertificates certificates = new TestCertificates(dir);
        certificates.ca("raft-ca");
        Path store = certificates.signedPeer("raft-ca", "coordinator", "CN=coordinator");
        Path trust = certificates.trustStore("raft-ca", "raft-ca.pem", "trust.p12");

        RaftTlsProperties properties = bind(Map.of(
                "tributary.coordinator.raft.ssl.keystore.location",
                store.toString(),
                "tributary.coordinator.raft.ssl.keystore.password",
                TestCertificates.PASSWORD,
                "tributary.coordinator.raft.ssl.truststore.location",
                trust.toString(),
                "tributary.coordinator.raft.ssl.truststore.password",
                TestCertificates.PASSWORD));

        assertThat(properties.transport()).isInstanceOf(RaftTransport.MutualTls.class);
        assertThat(properties.toString()).doesNotContain(TestCertificates.PASSWORD);
    }

    @Test
    void halfASettingOrAnUnknownTypeIsRefusedNamingTheSetting() {
        assertThatThrownBy(() -> bind(Map.of("tributary.coordinator.raft.ssl.keystore.location", "/k.p12"))
                        .transport())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tributary.coordinator.raft.ssl.truststore.location");
        assertThatThrownBy(() -> bind(Map.of("tributary.coordinator.raft.ssl.truststore.location", "/t.p12"))
                        .transport())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tributary.coordinator.raft.ssl.keystore.location");
        assertThatThrownBy(() -> bind(Map.of(
                                "tributary.coordinator.raft.ssl.keystore.location", "/k.p12",
                                "tributary.coordinator.raft.ssl.keystore.type", "PKCS11",
                                "tributary.coordinator.raft.ssl.truststore.location", "/t.p12"))
                        .transport())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keystore.type is PKCS12, JKS or PEM");
        assertThatThrownBy(() -> bind(Map.of(
                                "tributary.coordinator.raft.ssl.keystore.location",
                                        dir.resolve("missing.p12").toString(),
                                "tributary.coordinator.raft.ssl.truststore.location",
                                        dir.resolve("missing-trust.p12").toString()))
                        .transport())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("missing");
    }
}
