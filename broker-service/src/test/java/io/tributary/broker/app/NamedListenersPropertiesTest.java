package io.tributary.broker.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.common.listeners.KafkaListenersConfig;
import io.tributary.common.listeners.ListenerSpec;
import io.tributary.common.listeners.SecurityProtocol;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * The named listeners' settings bind under {@code tributary.broker.} with Kafka's names, per-listener
 * keys included, and reach the parser as Kafka keys.
 */
class NamedListenersPropertiesTest {

    private static NamedListenersProperties bind(Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties))
                .bindOrCreate("tributary.broker", NamedListenersProperties.class);
    }

    @Test
    void kafkaNamedKeysBindUnderTheBrokerPrefixAndComeBackAsKafkaKeys() {
        NamedListenersProperties properties = bind(Map.of(
                "tributary.broker.listeners", "SASL_SSL://0.0.0.0:9093,CLIENT://127.0.0.1:9392",
                "tributary.broker.advertised.listeners", "SASL_SSL://kafka-0.example.com:9093",
                "tributary.broker.listener.security.protocol.map", "SASL_SSL:SASL_SSL,CLIENT:SASL_PLAINTEXT",
                "tributary.broker.ssl.keystore.location", "/tls/server.p12",
                "tributary.broker.ssl.keystore.type", "PKCS12",
                "tributary.broker.ssl.client.auth", "requested",
                "tributary.broker.sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512",
                "tributary.broker.listener.name.sasl_ssl.ssl.keystore.location", "/tls/other.p12",
                "tributary.broker.security-file-check-interval", "5s"));

        assertThat(properties.kafkaConfig())
                .containsEntry("listeners", "SASL_SSL://0.0.0.0:9093,CLIENT://127.0.0.1:9392")
                .containsEntry("advertised.listeners", "SASL_SSL://kafka-0.example.com:9093")
                .containsEntry("listener.security.protocol.map", "SASL_SSL:SASL_SSL,CLIENT:SASL_PLAINTEXT")
                .containsEntry("ssl.keystore.location", "/tls/server.p12")
                .containsEntry("ssl.keystore.type", "PKCS12")
                .containsEntry("ssl.client.auth", "requested")
                .containsEntry("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512")
                .containsEntry("listener.name.sasl_ssl.ssl.keystore.location", "/tls/other.p12")
                .hasSize(9 - 1);
        assertThat(properties.securityFileCheckInterval()).isEqualTo(Duration.ofSeconds(5));

        List<ListenerSpec> specs =
                KafkaListenersConfig.parse(properties.kafkaConfig(), NamedListenersProperties.PREFIX);
        assertThat(specs).extracting(ListenerSpec::name).containsExactly("SASL_SSL", "CLIENT");
        assertThat(specs.get(0).protocol()).isEqualTo(SecurityProtocol.SASL_SSL);
        assertThat(specs.get(0).setting("ssl.keystore.location")).contains("/tls/other.p12");
        assertThat(specs.get(1).protocol()).isEqualTo(SecurityProtocol.SASL_PLAINTEXT);
        assertThat(specs.get(1).setting("ssl.keystore.location")).contains("/tls/server.p12");
    }

    @Test
    void reauthenticationAndOAuthBearerKeysBindGloballyAndPerListenerMechanism() {
        NamedListenersProperties properties = bind(Map.of(
                "tributary.broker.listeners", "CLIENT://127.0.0.1:9392",
                "tributary.broker.listener.security.protocol.map", "CLIENT:SASL_PLAINTEXT",
                "tributary.broker.connections.max.reauth.ms", "3600000",
                "tributary.broker.sasl.oauthbearer.jwks.endpoint.url", "https://idp.example.com/jwks",
                "tributary.broker.listener.name.client.oauthbearer.connections.max.reauth.ms", "60000"));

        assertThat(properties.kafkaConfig())
                .containsEntry("connections.max.reauth.ms", "3600000")
                .containsEntry("sasl.oauthbearer.jwks.endpoint.url", "https://idp.example.com/jwks")
                .containsEntry("listener.name.client.oauthbearer.connections.max.reauth.ms", "60000");
        ListenerSpec client = KafkaListenersConfig.parse(properties.kafkaConfig(), NamedListenersProperties.PREFIX)
                .getFirst();
        assertThat(client.setting("connections.max.reauth.ms")).contains("3600000");
        assertThat(client.setting("oauthbearer.connections.max.reauth.ms")).contains("60000");
    }

    @Test
    void withoutListenersThereAreNoNamedListeners() {
        NamedListenersProperties properties = bind(Map.of("tributary.broker.id", "3"));
        assertThat(properties.kafkaConfig()).isEmpty();
        assertThat(properties.securityFileCheckInterval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(KafkaListenersConfig.parse(properties.kafkaConfig(), NamedListenersProperties.PREFIX))
                .isEmpty();
    }

    @Test
    void anUnknownSslKeyIsRefusedNamingIt() {
        NamedListenersProperties properties = bind(Map.of(
                "tributary.broker.listeners", "SSL://:9093",
                "tributary.broker.ssl.keystore.locaton", "/tls/server.p12"));
        assertThatThrownBy(() -> KafkaListenersConfig.parse(properties.kafkaConfig(), NamedListenersProperties.PREFIX))
                .hasMessageContaining("tributary.broker.ssl.keystore.locaton is not a listener setting");
    }

    @Test
    void theHelmChartsEnvironmentVariablesForTheExternalListenerBindAsKafkaKeys() {
        var environment = new SystemEnvironmentPropertySource(
                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                Map.of(
                        "TRIBUTARY_BROKER_LISTENER_NAME_EXTERNAL_SSL_CLIENT_AUTH", "none",
                        "TRIBUTARY_BROKER_LISTENER_NAME_EXTERNAL_SSL_TRUSTSTORE_LOCATION", "/tls/ca.crt",
                        "TRIBUTARY_BROKER_SASL_ENABLED_MECHANISMS", "SCRAM-SHA-512"));
        NamedListenersProperties properties = new Binder(ConfigurationPropertySources.from(environment))
                .bindOrCreate("tributary.broker", NamedListenersProperties.class);

        assertThat(properties.kafkaConfig())
                .containsEntry("listener.name.external.ssl.client.auth", "none")
                .containsEntry("listener.name.external.ssl.truststore.location", "/tls/ca.crt")
                .containsEntry("sasl.enabled.mechanisms", "SCRAM-SHA-512");
    }
}
