package io.tributary.systemtests;

import static io.tributary.systemtests.HelmChart.chartDir;
import static io.tributary.systemtests.HelmChart.render;
import static io.tributary.systemtests.HelmChartTest.container;
import static io.tributary.systemtests.HelmChartTest.env;
import static io.tributary.systemtests.HelmSecurityTest.SECRETS;
import static io.tributary.systemtests.HelmSecurityTest.certificateSpec;
import static io.tributary.systemtests.HelmSecurityTest.mountPath;
import static io.tributary.systemtests.HelmSecurityTest.podSpec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The security of the brokers' external listener in the chart ({@code broker.external.securityProtocol}):
 * SASL_SSL by default with {@code security.enabled}, with the client listener's SASL mechanisms and
 * certificate, whose cert-manager Certificate names every broker's external host; its own client
 * authentication whatever the client listener's; SASL_PLAINTEXT, SSL and an explicit PLAINTEXT;
 * PLAINTEXT only without security. Rendered with helm-java, parsed with fabric8 ({@link HelmChart}).
 */
class HelmExternalListenerSecurityTest {

    @Test
    void theExternalListenerIsSaslSslByDefaultWithTheBrokersCertificateNamingEachBrokersExternalHost() {
        List<HasMetadata> resources =
                render(Optional.of(chartDir().resolve("ci/external-listener-values.yaml")), Map.of());
        Container broker = container(resources, StatefulSet.class, "broker");

        assertThat(env(broker))
                .containsEntry("TRIBUTARY_BROKER_EXTERNAL_LISTENER_SECURITY_PROTOCOL", "SASL_SSL")
                .as("the client listener's mechanisms and certificate, for both listeners")
                .containsEntry("TRIBUTARY_BROKER_SASL_ENABLED_MECHANISMS", "SCRAM-SHA-512,SCRAM-SHA-256")
                .containsEntry("TRIBUTARY_BROKER_SSL_KEYSTORE_TYPE", "PEM")
                .containsEntry("TRIBUTARY_BROKER_SSL_KEYSTORE_LOCATION", SECRETS + "/tls/tls.key")
                .containsEntry("TRIBUTARY_BROKER_SSL_KEYSTORE_CERTIFICATE_CHAIN_LOCATION", SECRETS + "/tls/tls.crt")
                .as("SASL_SSL: the login is the SASL one, no client certificate asked")
                .containsEntry("TRIBUTARY_BROKER_LISTENER_NAME_EXTERNAL_SSL_CLIENT_AUTH", "none");
        assertThat(mountPath(broker, "tls")).isEqualTo(SECRETS + "/tls");
        @SuppressWarnings("unchecked")
        List<String> dnsNames = (List<String>) certificateSpec(resources).get("dnsNames");
        assertThat(dnsNames)
                .as("each broker's external host, {ordinal} replaced")
                .contains("broker-0.kafka.example.com", "broker-1.kafka.example.com", "broker-2.kafka.example.com")
                .as("and still the pods' names")
                .contains("*.demo-tributary-broker-headless.streaming.svc.cluster.local");
        assertThat(certificateSpec(resources)).doesNotContainKey("ipAddresses");
        assertThat(HelmChart.installDryRunOutput(Map.of(
                        "broker.external.enabled", true,
                        "broker.external.advertisedHost", "n.example.com",
                        "security.tls.existingSecret", "kafka-tls")))
                .contains("n.example.com:31092", "security.protocol=SASL_SSL, sasl.mechanism one of SCRAM-SHA-512")
                .contains("trust the ca.crt of Secret kafka-tls, whose certificate names these hosts");
    }

    @Test
    void externalAddressesThatAreIpAddressesAreIpNamesOfTheCertificate(@TempDir Path dir) throws Exception {
        Path values = Files.writeString(dir.resolve("ips.yaml"), """
                broker:
                  replicas: 3
                  external:
                    enabled: true
                    advertisedAddresses: ["10.0.0.7:31092", "10.0.0.7:31093", "kafka.example.com:31094"]
                security:
                  tls:
                    certManager:
                      enabled: true
                      issuerRef:
                        name: ca
                """);
        Map<String, Object> spec = certificateSpec(render(Optional.of(values), Map.of()));

        assertThat(spec.get("ipAddresses")).isEqualTo(List.of("10.0.0.7"));
        @SuppressWarnings("unchecked")
        List<String> dnsNames = (List<String>) spec.get("dnsNames");
        assertThat(dnsNames).contains("kafka.example.com").doesNotContain("10.0.0.7");
    }

    @Test
    void eachExternalProtocolGetsItsOwnClientAuthenticationWhateverTheClientListenersIs() {
        Map<String, String> ssl = env(container(
                render(
                        Optional.empty(),
                        Map.of(
                                "broker.external.enabled", true,
                                "broker.external.advertisedHost", "n.example.com",
                                "broker.external.securityProtocol", "SSL",
                                "security.tls.existingSecret", "kafka-tls")),
                StatefulSet.class,
                "broker"));
        assertThat(ssl)
                .as("SSL: client certificates signed by the Secret's CA, required, on the external listener only")
                .containsEntry("TRIBUTARY_BROKER_EXTERNAL_LISTENER_SECURITY_PROTOCOL", "SSL")
                .containsEntry("TRIBUTARY_BROKER_LISTENER_NAME_EXTERNAL_SSL_CLIENT_AUTH", "required")
                .containsEntry("TRIBUTARY_BROKER_LISTENER_NAME_EXTERNAL_SSL_TRUSTSTORE_TYPE", "PEM")
                .containsEntry(
                        "TRIBUTARY_BROKER_LISTENER_NAME_EXTERNAL_SSL_TRUSTSTORE_LOCATION", SECRETS + "/tls/ca.crt")
                .doesNotContainKey("TRIBUTARY_BROKER_SSL_CLIENT_AUTH");

        Map<String, String> clientSsl = env(container(
                render(
                        Optional.empty(),
                        Map.of(
                                "broker.external.enabled", true,
                                "broker.external.advertisedHost", "n.example.com",
                                "security.clientProtocol", "SSL",
                                "security.tls.existingSecret", "kafka-tls")),
                StatefulSet.class,
                "broker"));
        assertThat(clientSsl)
                .as("an SSL client listener's required client certificates are not asked on a SASL_SSL external one")
                .containsEntry("TRIBUTARY_BROKER_SSL_CLIENT_AUTH", "required")
                .containsEntry("TRIBUTARY_BROKER_LISTENER_NAME_EXTERNAL_SSL_CLIENT_AUTH", "none")
                .as("the external listener's SASL needs the mechanisms the SSL client listener does not")
                .containsEntry("TRIBUTARY_BROKER_SASL_ENABLED_MECHANISMS", "SCRAM-SHA-512,SCRAM-SHA-256");

        List<HasMetadata> saslPlaintext = render(
                Optional.empty(),
                Map.of(
                        "broker.external.enabled", true,
                        "broker.external.advertisedHost", "n.example.com",
                        "broker.external.securityProtocol", "SASL_PLAINTEXT"));
        assertThat(env(container(saslPlaintext, StatefulSet.class, "broker")))
                .as("SASL_PLAINTEXT needs no TLS source")
                .containsEntry("TRIBUTARY_BROKER_EXTERNAL_LISTENER_SECURITY_PROTOCOL", "SASL_PLAINTEXT")
                .containsEntry("TRIBUTARY_BROKER_SASL_ENABLED_MECHANISMS", "SCRAM-SHA-512,SCRAM-SHA-256")
                .doesNotContainKeys(
                        "TRIBUTARY_BROKER_SSL_KEYSTORE_LOCATION",
                        "TRIBUTARY_BROKER_LISTENER_NAME_EXTERNAL_SSL_CLIENT_AUTH");
        assertThat(podSpec(saslPlaintext, "demo-tributary-broker").getVolumes())
                .extracting(Volume::getName)
                .doesNotContain("tls");
    }

    @Test
    void withoutSecurityTheExternalListenerIsPlaintextAndNothingElse() {
        assertThat(env(container(
                        render(
                                Optional.empty(),
                                Map.of(
                                        "security.enabled", false,
                                        "broker.external.enabled", true,
                                        "broker.external.advertisedHost", "n.example.com")),
                        StatefulSet.class,
                        "broker")))
                .containsEntry("TRIBUTARY_BROKER_EXTERNAL_LISTENER_SECURITY_PROTOCOL", "PLAINTEXT");
        assertThatThrownBy(() -> HelmChart.template(
                        Optional.empty(),
                        Map.of(
                                "security.enabled",
                                false,
                                "broker.external.enabled",
                                true,
                                "broker.external.advertisedHost",
                                "n.example.com",
                                "broker.external.securityProtocol",
                                "SASL_SSL")))
                .hasMessageContaining("broker.external.securityProtocol SASL_SSL needs security.enabled");
    }
}
