package io.tributary.common.security.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ControlPlaneSignatureTest {

    private static final String SECRET = "0123456789abcdef0123456789abcdef-test";
    private static final long NOW = 1_765_000_000_000L;
    private static final byte[] BODY = "{\"brokerId\":3}".getBytes(StandardCharsets.UTF_8);

    private final ClusterSecret secret = ClusterSecret.of(SECRET + "\n");
    private final ControlPlaneSignature.Verifier verifier = ControlPlaneSignature.Verifier.of(
            secret, Duration.ofMinutes(5), InstantSource.fixed(Instant.ofEpochMilli(NOW)));

    @Test
    void aBrokerKeyIsTheHmacOfItsIdUnderTheSecretAsOpensslDerivesIt() {
        // printf tributary-broker-3 | openssl dgst -sha256 -mac HMAC -macopt key:<SECRET> -binary | base64
        assertThat(secret.brokerKey(3).encoded()).isEqualTo("ZLZB6Y2vwBOMgl1HkYx+OI8nWOIYKiNS/6OE8qHX0zU=");
        assertThat(secret.brokerKey(4).encoded())
                .isNotEqualTo(secret.brokerKey(3).encoded());
    }

    @Test
    void aSignedCallNamesItsBroker() throws Exception {
        String header = ControlPlaneSignature.sign(secret.brokerKey(3), "POST", "/internal/v1/brokers", BODY, NOW);

        assertThat(header).startsWith("Tributary-Broker id=3,ts=" + NOW + ",sig=");
        assertThat(verifier.verify(header, "POST", "/internal/v1/brokers", BODY))
                .isEqualTo(3);
    }

    @Test
    void aCallWithoutABodyAndWithAQueryIsSignedToo() throws Exception {
        String path = "/internal/v1/metadata?after=12&max_wait_ms=10000";
        String header = ControlPlaneSignature.sign(secret.brokerKey(0), "GET", path, null, NOW - 1000);

        assertThat(verifier.verify(header, "GET", path, new byte[0])).isZero();
    }

    @Test
    void aKeyFileHoldingTheDerivedKeySignsAsTheSecretDoes(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("broker-3.key");
        Files.writeString(file, secret.brokerKey(3).encoded() + "\n");
        BrokerKey key = BrokerKey.read(3, file);

        String header = ControlPlaneSignature.sign(key, "POST", "/internal/v1/brokers/3/heartbeat", BODY, NOW);

        assertThat(verifier.verify(header, "POST", "/internal/v1/brokers/3/heartbeat", BODY))
                .isEqualTo(3);
    }

    @Test
    void anyChangeToTheSignedCallIsRefused() {
        String header = ControlPlaneSignature.sign(secret.brokerKey(3), "POST", "/internal/v1/brokers", BODY, NOW);

        refused(header, "PUT", "/internal/v1/brokers", BODY, "signature does not match");
        refused(header, "POST", "/internal/v1/brokers/4/heartbeat", BODY, "signature does not match");
        refused(
                header,
                "POST",
                "/internal/v1/brokers",
                "{\"brokerId\":4}".getBytes(StandardCharsets.UTF_8),
                "signature does not match");
        refused(header.replace("id=3", "id=4"), "POST", "/internal/v1/brokers", BODY, "broker 4's key");
        refused(
                header.replace("ts=" + NOW, "ts=" + (NOW + 1)),
                "POST",
                "/internal/v1/brokers",
                BODY,
                "signature does not match");
    }

    @Test
    void anotherClustersSecretOrAnotherBrokersKeyIsRefused() {
        ClusterSecret other = ClusterSecret.of("another cluster's secret, 32 bytes or more");
        refused(
                ControlPlaneSignature.sign(other.brokerKey(3), "GET", "/internal/v1/cluster", null, NOW),
                "GET",
                "/internal/v1/cluster",
                null,
                "signature does not match");

        String byBroker2 = ControlPlaneSignature.sign(secret.brokerKey(2), "GET", "/internal/v1/cluster", null, NOW);
        refused(byBroker2.replace("id=2", "id=3"), "GET", "/internal/v1/cluster", null, "broker 3's key");
    }

    @Test
    void duringARotationACallSignedUnderThePreviousSecretIsAcceptedAndSaysSo() throws Exception {
        ClusterSecret next = ClusterSecret.of("the next cluster secret, 32 bytes or more");
        var rotating = ControlPlaneSignature.Verifier.of(
                next, Optional.of(secret), Duration.ofMinutes(5), InstantSource.fixed(Instant.ofEpochMilli(NOW)));

        assertThat(signedRegistration(rotating, next))
                .isEqualTo(new ControlPlaneSignature.Caller(3, ControlPlaneSignature.SecretGeneration.CURRENT));
        assertThat(signedRegistration(rotating, secret))
                .isEqualTo(new ControlPlaneSignature.Caller(3, ControlPlaneSignature.SecretGeneration.PREVIOUS));
        ClusterSecret unknown = ClusterSecret.of("neither the current nor the previous secret");
        assertThatThrownBy(() -> signedRegistration(rotating, unknown))
                .isInstanceOf(ControlPlaneSignature.Refused.class)
                .hasMessageContaining("broker 3's key under the current or the previous secret");
        // Without the previous secret, a broker still on it is refused.
        assertThatThrownBy(() -> signedRegistration(
                        ControlPlaneSignature.Verifier.of(
                                next, Duration.ofMinutes(5), InstantSource.fixed(Instant.ofEpochMilli(NOW))),
                        secret))
                .isInstanceOf(ControlPlaneSignature.Refused.class)
                .hasMessageContaining("signature does not match");
    }

    /** Broker 3's registration signed with its key under {@code signer}, as {@code verifier} authenticates it. */
    private static ControlPlaneSignature.Caller signedRegistration(
            ControlPlaneSignature.Verifier verifier, ClusterSecret signer) throws ControlPlaneSignature.Refused {
        String header = ControlPlaneSignature.sign(signer.brokerKey(3), "POST", "/internal/v1/brokers", BODY, NOW);
        return verifier.authenticate(header, "POST", "/internal/v1/brokers", BODY);
    }

    @Test
    void aCallSignedTooFarFromTheCoordinatorsClockIsRefused() throws Exception {
        long fiveMinutes = Duration.ofMinutes(5).toMillis();
        BrokerKey key = secret.brokerKey(1);

        assertThat(verifier.verify(
                        ControlPlaneSignature.sign(key, "GET", "/p", null, NOW - fiveMinutes), "GET", "/p", null))
                .isEqualTo(1);
        assertThat(verifier.verify(
                        ControlPlaneSignature.sign(key, "GET", "/p", null, NOW + fiveMinutes), "GET", "/p", null))
                .isEqualTo(1);
        refused(
                ControlPlaneSignature.sign(key, "GET", "/p", null, NOW - fiveMinutes - 1),
                "GET",
                "/p",
                null,
                "300001 ms away");
        refused(
                ControlPlaneSignature.sign(key, "GET", "/p", null, NOW + fiveMinutes + 1),
                "GET",
                "/p",
                null,
                "300001 ms away");
    }

    @Test
    void malformedHeadersAreRefusedWithAReason() {
        refused(null, "GET", "/p", null, "no Authorization header");
        refused("Bearer abc", "GET", "/p", null, "is not Tributary-Broker");
        refused("Tributary-Broker id=1,ts=2", "GET", "/p", null, "id=...,ts=...,sig=...");
        refused("Tributary-Broker ts=2,id=1,sig=x", "GET", "/p", null, "id=...,ts=...,sig=...");
        refused("Tributary-Broker id=one,ts=2,sig=x", "GET", "/p", null, "not a number");
        refused("Tributary-Broker id=-1,ts=" + NOW + ",sig=x", "GET", "/p", null, "negative");
        refused(
                "Tributary-Broker id=1,ts=" + NOW + ",sig=" + "x".repeat(300),
                "GET",
                "/p",
                null,
                "is not Tributary-Broker");
    }

    @Test
    void secretsAndKeyFilesAreChecked(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> ClusterSecret.of("too short\n")).hasMessageContaining("at least 32 bytes, got 9");
        assertThatThrownBy(() -> ClusterSecret.read(dir.resolve("missing")))
                .hasMessageContaining("cannot read the cluster secret file");
        Path shortSecret = Files.writeString(dir.resolve("short"), "abc");
        assertThatThrownBy(() -> ClusterSecret.read(shortSecret))
                .hasMessageContaining(shortSecret.toString())
                .hasMessageContaining("at least 32 bytes");
        assertThat(ClusterSecret.read(Files.writeString(dir.resolve("secret"), SECRET + "\r\n")))
                .isEqualTo(secret);
        assertThat(secret.toString()).doesNotContain(SECRET);

        Path notBase64 = Files.writeString(dir.resolve("k1"), "not base64!");
        assertThatThrownBy(() -> BrokerKey.read(1, notBase64)).hasMessageContaining("does not hold base64");
        Path wrongLength = Files.writeString(dir.resolve("k2"), "AAAA");
        assertThatThrownBy(() -> BrokerKey.read(1, wrongLength)).hasMessageContaining("holds 3 bytes; a key is 32");
        assertThatThrownBy(() -> secret.brokerKey(-1)).hasMessageContaining("0 or more");
    }

    private void refused(String header, String method, String path, byte[] body, String reason) {
        assertThatThrownBy(() -> verifier.verify(header, method, path, body))
                .isInstanceOf(ControlPlaneSignature.Refused.class)
                .hasMessageContaining(reason);
    }
}
