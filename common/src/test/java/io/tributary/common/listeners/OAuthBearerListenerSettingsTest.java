package io.tributary.common.listeners;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.common.protocol.ListenerSecurity;
import io.tributary.common.security.sasl.CredentialLookup;
import io.tributary.common.testing.TestJwts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A listener's OAUTHBEARER and re-authentication settings, with Kafka's names and Kafka 4.4's requirements. */
class OAuthBearerListenerSettingsTest {

    private static final String PREFIX = "tributary.broker.";

    @TempDir
    Path dir;

    private Path jwks;

    @BeforeEach
    void writeJwks() throws IOException {
        jwks = dir.resolve("jwks.json");
        Files.writeString(jwks, TestJwts.jwks(TestJwts.Signer.create("ES256", "k")));
    }

    private Map<String, String> config(String... extra) {
        Map<String, String> config = new HashMap<>(Map.of(
                "listeners", "CLIENT://127.0.0.1:0",
                "listener.security.protocol.map", "CLIENT:SASL_PLAINTEXT",
                "sasl.enabled.mechanisms", "OAUTHBEARER,PLAIN"));
        for (int i = 0; i < extra.length; i += 2) {
            config.put(extra[i], extra[i + 1]);
        }
        return config;
    }

    private ListenerSecurity security(Map<String, String> config) {
        ListenerSpec spec = KafkaListenersConfig.parse(config, PREFIX).get(0);
        return ListenerSecurities.of(
                spec, CredentialLookup.NONE, Duration.ofSeconds(30), InstantSource.system(), PREFIX);
    }

    @Test
    void aCompleteConfigurationMakesAValidatorAndEachMechanismsReauthBound() {
        ListenerSecurity security = security(config(
                "sasl.oauthbearer.jwks.endpoint.url", jwks.toUri().toString(),
                "sasl.oauthbearer.expected.issuer", "https://issuer.test",
                "sasl.oauthbearer.expected.audience", "kafka, tributary",
                "connections.max.reauth.ms", "600000",
                "listener.name.client.oauthbearer.connections.max.reauth.ms", "30000"));

        assertThat(security.sasl().oauthBearer()).isPresent();
        assertThat(security.sasl().maxReauth("OAUTHBEARER")).isEqualTo(Duration.ofSeconds(30));
        assertThat(security.sasl().maxReauth("PLAIN")).isEqualTo(Duration.ofMinutes(10));
    }

    @Test
    void withoutMaxReauthNoMechanismHasABound() {
        ListenerSecurity security = security(config(
                "listener.name.client.oauthbearer.sasl.oauthbearer.jwks.endpoint.url",
                        jwks.toUri().toString(),
                "sasl.oauthbearer.allow.unverified.issuer", "true",
                "sasl.oauthbearer.allow.unverified.audience", "true"));
        assertThat(security.sasl().maxReauth("OAUTHBEARER")).isZero();
        assertThat(security.sasl().maxReauth("PLAIN")).isZero();
    }

    @Test
    void whatOAuthBearerNeedsIsNamedWhenMissing() {
        assertThatThrownBy(() -> security(config()))
                .hasMessageContaining("set tributary.broker.sasl.oauthbearer.jwks.endpoint.url");
        assertThatThrownBy(() -> security(config(
                        "sasl.oauthbearer.jwks.endpoint.url", jwks.toUri().toString())))
                .hasMessageContaining("set tributary.broker.sasl.oauthbearer.expected.issuer")
                .hasMessageContaining("allow.unverified.issuer=true");
        assertThatThrownBy(() -> security(config(
                        "sasl.oauthbearer.jwks.endpoint.url",
                        jwks.toUri().toString(),
                        "sasl.oauthbearer.expected.issuer",
                        "https://issuer.test")))
                .hasMessageContaining("set tributary.broker.sasl.oauthbearer.expected.audience");
        assertThatThrownBy(() -> security(config(
                        "sasl.oauthbearer.jwks.endpoint.url",
                                dir.resolve("missing.json").toUri().toString(),
                        "sasl.oauthbearer.allow.unverified.issuer", "true",
                        "sasl.oauthbearer.allow.unverified.audience", "true")))
                .hasMessageContaining("listener CLIENT: cannot read the JWKS file");
        assertThatThrownBy(() -> security(config(
                        "sasl.oauthbearer.jwks.endpoint.url",
                        jwks.toUri().toString(),
                        "sasl.oauthbearer.allow.unverified.issuer",
                        "yes")))
                .hasMessageContaining("tributary.broker.sasl.oauthbearer.allow.unverified.issuer is true or false");
        assertThatThrownBy(() -> security(config(
                        "sasl.oauthbearer.jwks.endpoint.url", jwks.toUri().toString(),
                        "sasl.oauthbearer.allow.unverified.issuer", "true",
                        "sasl.oauthbearer.allow.unverified.audience", "true",
                        "connections.max.reauth.ms", "-1")))
                .hasMessageContaining("tributary.broker.connections.max.reauth.ms is a number >= 0");
    }
}
