package io.tributary.common.listeners;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Kafka's listener settings: the listeners they describe, and a message naming the setting for each mistake. */
class KafkaListenersConfigTest {

    private static final String PREFIX = "tributary.broker.";

    private static List<ListenerSpec> parse(Map<String, String> config) {
        return KafkaListenersConfig.parse(config, PREFIX);
    }

    @Test
    void kafkasDefaultProtocolMapNamesEachProtocolAfterItself() {
        List<ListenerSpec> specs = parse(Map.of("listeners", "SASL_SSL://:9093, ssl://127.0.0.1:9094"));
        assertThat(specs).extracting(ListenerSpec::name).containsExactly("SASL_SSL", "SSL");
        assertThat(specs)
                .extracting(ListenerSpec::protocol)
                .containsExactly(SecurityProtocol.SASL_SSL, SecurityProtocol.SSL);
        assertThat(specs.get(0).bind()).isEqualTo(new ListenerAddress("SASL_SSL", "", 9093));
        assertThat(specs.get(0).advertised()).isEmpty();
        assertThat(specs).allMatch(ListenerSpec::registered);
    }

    @Test
    void aConfiguredMapReplacesTheDefaultAndAdvertisedAddressesGoToTheirListener() {
        List<ListenerSpec> specs = parse(Map.of(
                "listeners", "CLIENT://0.0.0.0:9093,LOCAL://[::1]:9392",
                "listener.security.protocol.map", "CLIENT:SASL_SSL, LOCAL:sasl_plaintext",
                "advertised.listeners", "CLIENT://kafka-0.example.com:31093"));
        assertThat(specs.get(0).protocol()).isEqualTo(SecurityProtocol.SASL_SSL);
        assertThat(specs.get(0).advertised()).contains(new ListenerAddress("CLIENT", "kafka-0.example.com", 31093));
        assertThat(specs.get(0).registered()).isTrue();
        assertThat(specs.get(1).bind()).isEqualTo(new ListenerAddress("LOCAL", "::1", 9392));
        assertThat(specs.get(1).protocol()).isEqualTo(SecurityProtocol.SASL_PLAINTEXT);
        assertThat(specs.get(1).advertised()).isEmpty();
        assertThat(specs.get(1).registered())
                .as("left out of a set advertised.listeners: not advertised, as in Kafka")
                .isFalse();
        assertThatThrownBy(() -> parse(
                        Map.of("listeners", "SASL_SSL://:9093", "listener.security.protocol.map", "CLIENT:SASL_SSL")))
                .hasMessageContaining("listener SASL_SSL has no security protocol")
                .hasMessageContaining("tributary.broker.listener.security.protocol.map");
    }

    @Test
    void aListenersSettingReplacesTheGlobalOneKeyByKey() {
        List<ListenerSpec> specs = parse(Map.of(
                "listeners", "A://:9093,B://:9094",
                "listener.security.protocol.map", "A:SSL,B:SSL",
                "ssl.keystore.location", "/tls/global.p12",
                "ssl.client.auth", "required",
                "listener.name.b.ssl.keystore.location", "/tls/b.p12"));
        assertThat(specs.get(0).setting("ssl.keystore.location")).contains("/tls/global.p12");
        assertThat(specs.get(1).setting("ssl.keystore.location")).contains("/tls/b.p12");
        assertThat(specs.get(1).setting("ssl.client.auth")).contains("required");
    }

    @Test
    void mechanismSettingsMayBeGivenForOneMechanismOfOneListener() {
        List<ListenerSpec> specs = parse(Map.of(
                "listeners", "CLIENT://:9093",
                "listener.security.protocol.map", "CLIENT:SASL_PLAINTEXT",
                "connections.max.reauth.ms", "600000",
                "listener.name.client.oauthbearer.connections.max.reauth.ms", "30000",
                "listener.name.client.oauthbearer.sasl.oauthbearer.expected.audience", "kafka",
                "sasl.oauthbearer.jwks.endpoint.url", "file:/etc/jwks.json"));
        ListenerSpec client = specs.get(0);
        assertThat(client.setting("connections.max.reauth.ms")).contains("600000");
        assertThat(client.setting("oauthbearer.connections.max.reauth.ms")).contains("30000");
        assertThat(client.setting("oauthbearer.sasl.oauthbearer.expected.audience"))
                .contains("kafka");
        assertThat(client.setting("sasl.oauthbearer.jwks.endpoint.url")).contains("file:/etc/jwks.json");
        assertThatThrownBy(() -> parse(Map.of(
                        "listeners", "CLIENT://:9093",
                        "listener.security.protocol.map", "CLIENT:SASL_PLAINTEXT",
                        "listener.name.client.gssapi.connections.max.reauth.ms", "1000")))
                .hasMessageContaining(
                        "listener.name.client.gssapi.connections.max.reauth.ms is not a listener setting");
        assertThatThrownBy(() -> parse(Map.of(
                        "listeners", "CLIENT://:9093",
                        "listener.security.protocol.map", "CLIENT:SASL_PLAINTEXT",
                        "listener.name.client.oauthbearer.ssl.client.auth", "none")))
                .hasMessageContaining("is not a listener setting");
    }

    @Test
    void eachMistakeIsRefusedNamingTheSetting() {
        assertThatThrownBy(() -> parse(Map.of("listeners", "SASL_SSL:9093")))
                .hasMessageContaining("tributary.broker.listeners: 'SASL_SSL:9093' is not NAME://host:port");
        assertThatThrownBy(() -> parse(Map.of("listeners", "SSL://:9093,SSL://:9094")))
                .hasMessageContaining("names listener SSL twice");
        assertThatThrownBy(() -> parse(Map.of("listeners", "SSL://:9093,SASL_SSL://:9093")))
                .hasMessageContaining("listeners SSL and SASL_SSL both use port 9093");
        assertThatThrownBy(() -> parse(Map.of("listeners", "SSL://:70000"))).hasMessageContaining("must be 0..65535");
        assertThatThrownBy(() -> parse(Map.of("listeners", "A://:9093", "listener.security.protocol.map", "A:TLS")))
                .hasMessageContaining("'TLS' is not a security protocol");
        assertThatThrownBy(() -> parse(Map.of("listeners", "A://:9093", "listener.security.protocol.map", "A")))
                .hasMessageContaining("'A' is not NAME:PROTOCOL");
        assertThatThrownBy(() -> parse(Map.of("listeners", "SSL://:9093", "advertised.listeners", "SASL_SSL://x:1")))
                .hasMessageContaining("tributary.broker.advertised.listeners names SASL_SSL, which is not in");
        assertThatThrownBy(
                        () -> parse(Map.of("listeners", "SSL://:9093", "listener.name.other.ssl.client.auth", "none")))
                .hasMessageContaining("there is no listener OTHER");
        assertThatThrownBy(() -> parse(Map.of(
                        "listeners",
                        "SASL_SSL://:9093",
                        "listener.name.sasl_ssl.plain.sasl.jaas.config",
                        "org.apache.kafka.common.security.plain.PlainLoginModule required;")))
                .hasMessageContaining("is not a listener setting")
                .hasMessageContaining("JAAS is not read");
    }

    @Test
    void aListenerConfiguredOnItsOwnTakesTheGlobalSettingsReplacedByItsOwnForm() {
        Map<String, String> config = Map.of(
                "listeners", "CLIENT://:9093",
                "listener.security.protocol.map", "CLIENT:SASL_SSL",
                "ssl.keystore.location", "/tls/global.p12",
                "sasl.enabled.mechanisms", "SCRAM-SHA-512",
                "listener.name.external.sasl.enabled.mechanisms", "PLAIN");
        assertThat(KafkaListenersConfig.parse(config, PREFIX, Set.of("EXTERNAL")))
                .singleElement()
                .satisfies(client ->
                        assertThat(client.setting("sasl.enabled.mechanisms")).contains("SCRAM-SHA-512"));

        ListenerSpec external = KafkaListenersConfig.ownListener(
                config,
                new ListenerAddress("EXTERNAL", "0.0.0.0", 9094),
                SecurityProtocol.SASL_SSL,
                PREFIX,
                "external.security-protocol");

        assertThat(external.protocol()).isEqualTo(SecurityProtocol.SASL_SSL);
        assertThat(external.registered()).isTrue();
        assertThat(external.setting("ssl.keystore.location")).contains("/tls/global.p12");
        assertThat(external.setting("sasl.enabled.mechanisms")).contains("PLAIN");
        assertThatThrownBy(() -> parse(config))
                .as("without it, its settings name no listener")
                .hasMessageContaining("there is no listener EXTERNAL");
        assertThatThrownBy(() -> KafkaListenersConfig.ownListener(
                        Map.of("listener.security.protocol.map", "EXTERNAL:PLAINTEXT"),
                        new ListenerAddress("EXTERNAL", "0.0.0.0", 9094),
                        SecurityProtocol.SASL_SSL,
                        PREFIX,
                        "external.security-protocol"))
                .hasMessageContaining("tributary.broker.listener.security.protocol.map maps EXTERNAL")
                .hasMessageContaining("external.security-protocol");
    }
}
