package io.tributary.systemtests;

import static io.tributary.systemtests.HelmChart.chartDir;
import static io.tributary.systemtests.HelmChart.named;
import static io.tributary.systemtests.HelmChart.ofKind;
import static io.tributary.systemtests.HelmChart.podTemplate;
import static io.tributary.systemtests.HelmChart.render;
import static io.tributary.systemtests.HelmChartTest.container;
import static io.tributary.systemtests.HelmChartTest.env;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeProjection;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The chart's Kafka-side security (values {@code security.*}): what a default install gets (an
 * authenticated client listener, an internal listener with internal logins, the authorizer, a
 * generated cluster secret and passwords), TLS from a Secret or a cert-manager Certificate, Secrets
 * mounted as files only, secrets kept across upgrades, and the values the schema refuses. Rendered
 * with helm-java, parsed with fabric8 (see {@link HelmChart}); {@code HelmManifestsIT} runs the
 * default render's processes and logs in.
 */
class HelmSecurityTest {

    static final String SECRETS = "/etc/tributary-secrets";
    /** 0440: the files are root's, readable by the pods' fsGroup. */
    private static final int FILE_MODE = 0440;

    private static final Path SECURED_TLS = chartDir().resolve("ci/secured-tls-values.yaml");

    @Test
    void byDefaultKafkaClientsLogInOnTheClientListenerAndTheClusterUsesAnInternalOne() {
        List<HasMetadata> resources = render(Optional.empty(), Map.of());
        Container broker = container(resources, StatefulSet.class, "broker");

        assertThat(env(broker))
                .containsEntry("TRIBUTARY_BROKER_LISTENERS", "CLIENT://0.0.0.0:9092")
                .containsEntry(
                        "TRIBUTARY_BROKER_ADVERTISED_LISTENERS",
                        "CLIENT://$(TRIBUTARY_INSTANCE).demo-tributary-broker-headless.streaming.svc.cluster.local:9092")
                .as("no TLS source: SASL over plaintext, SCRAM only")
                .containsEntry("TRIBUTARY_BROKER_LISTENER_SECURITY_PROTOCOL_MAP", "CLIENT:SASL_PLAINTEXT")
                .containsEntry("TRIBUTARY_BROKER_SASL_ENABLED_MECHANISMS", "SCRAM-SHA-512,SCRAM-SHA-256")
                .containsEntry("TRIBUTARY_KAFKA_PORT", "9093")
                .containsEntry("TRIBUTARY_BROKER_CLUSTER_SECRET_FILE", SECRETS + "/cluster/cluster.secret")
                .containsEntry("TRIBUTARY_BROKER_AUTHORIZER_ENABLED", "true")
                .containsEntry("TRIBUTARY_BROKER_ALLOW_EVERYONE_IF_NO_ACL_FOUND", "false")
                .containsEntry("TRIBUTARY_BROKER_SUPER_USERS", "User:admin;User:gateway")
                .doesNotContainKeys("TRIBUTARY_BROKER_SSL_KEYSTORE_LOCATION");
        assertThat(broker.getPorts())
                .extracting(ContainerPort::getName, ContainerPort::getContainerPort)
                .containsExactly(
                        org.assertj.core.api.Assertions.tuple("http", 8081),
                        org.assertj.core.api.Assertions.tuple("kafka", 9092),
                        org.assertj.core.api.Assertions.tuple("internal", 9093));
        List<String> names = broker.getEnv().stream().map(EnvVar::getName).toList();
        assertThat(names.indexOf("TRIBUTARY_INSTANCE"))
                .as("Kubernetes expands $(VAR) only from variables defined earlier")
                .isLessThan(names.indexOf("TRIBUTARY_BROKER_ADVERTISED_LISTENERS"));
        assertThat(named(resources, Service.class, "demo-tributary-broker")
                        .getSpec()
                        .getPorts())
                .as("clients bootstrap on the client listener")
                .extracting(ServicePort::getName)
                .containsExactly("http", "kafka");
        assertThat(named(resources, Service.class, "demo-tributary-broker-headless")
                        .getSpec()
                        .getPorts())
                .extracting(ServicePort::getName)
                .containsExactly("http", "kafka", "internal");
        assertThat(env(container(resources, StatefulSet.class, "coordinator")))
                .containsEntry("TRIBUTARY_COORDINATOR_CONTROL_SECRET_FILE", SECRETS + "/cluster/cluster.secret");
        for (var workload : List.of(
                container(resources, StatefulSet.class, "broker"),
                container(resources, StatefulSet.class, "coordinator"),
                container(resources, Deployment.class, "gateway"))) {
            for (Probe probe :
                    List.of(workload.getStartupProbe(), workload.getLivenessProbe(), workload.getReadinessProbe())) {
                assertThat(probe.getHttpGet().getPort().getStrVal())
                        .as(workload.getName() + ": probes stay on the HTTP actuator port")
                        .isEqualTo("http");
                assertThat(probe.getHttpGet().getScheme())
                        .as(workload.getName())
                        .isNull();
            }
        }
    }

    @Test
    void theCoordinatorsWriteTheAdminForEverySaslScramMechanismAndTheGatewayOnce() {
        Map<String, String> coordinator =
                env(container(render(Optional.empty(), Map.of()), StatefulSet.class, "coordinator"));

        assertThat(coordinator)
                .containsEntry("SPRING_CONFIG_IMPORT", "configtree:" + SECRETS + "/users/")
                .containsEntry("TRIBUTARY_COORDINATOR_SECURITY_BOOTSTRAPSCRAMUSERS_0_NAME", "admin")
                .containsEntry("TRIBUTARY_COORDINATOR_SECURITY_BOOTSTRAPSCRAMUSERS_0_MECHANISM", "SCRAM-SHA-512")
                .containsEntry(
                        "TRIBUTARY_COORDINATOR_SECURITY_BOOTSTRAPSCRAMUSERS_0_PASSWORD",
                        "${tributary.secrets.admin-password}")
                .containsEntry("TRIBUTARY_COORDINATOR_SECURITY_BOOTSTRAPSCRAMUSERS_1_NAME", "admin")
                .containsEntry("TRIBUTARY_COORDINATOR_SECURITY_BOOTSTRAPSCRAMUSERS_1_MECHANISM", "SCRAM-SHA-256")
                .containsEntry("TRIBUTARY_COORDINATOR_SECURITY_BOOTSTRAPSCRAMUSERS_2_NAME", "gateway")
                .containsEntry("TRIBUTARY_COORDINATOR_SECURITY_BOOTSTRAPSCRAMUSERS_2_MECHANISM", "SCRAM-SHA-512")
                .containsEntry(
                        "TRIBUTARY_COORDINATOR_SECURITY_BOOTSTRAPSCRAMUSERS_2_PASSWORD",
                        "${tributary.secrets.gateway-password}")
                .doesNotContainKey("TRIBUTARY_COORDINATOR_SECURITY_BOOTSTRAPSCRAMUSERS_3_NAME");

        Map<String, String> plainToo =
                env(container(render(Optional.of(SECURED_TLS), Map.of()), StatefulSet.class, "coordinator"));
        assertThat(plainToo)
                .as("PLAIN is checked against the SCRAM credentials: no credential of its own")
                .containsEntry("TRIBUTARY_COORDINATOR_SECURITY_BOOTSTRAPSCRAMUSERS_0_NAME", "ops")
                .containsEntry("TRIBUTARY_COORDINATOR_SECURITY_BOOTSTRAPSCRAMUSERS_0_MECHANISM", "SCRAM-SHA-512")
                .containsEntry("TRIBUTARY_COORDINATOR_SECURITY_BOOTSTRAPSCRAMUSERS_1_NAME", "gateway")
                .doesNotContainKey("TRIBUTARY_COORDINATOR_SECURITY_BOOTSTRAPSCRAMUSERS_2_NAME");
    }

    @Test
    void theGatewayLogsInOnTheInternalListenerWithItsOwnPasswordFileOnly() {
        List<HasMetadata> resources = render(Optional.empty(), Map.of());
        Container gateway = container(resources, Deployment.class, "gateway");

        assertThat(env(gateway))
                .containsEntry("SPRING_CONFIG_IMPORT", "configtree:" + SECRETS + "/login/")
                .containsEntry("TRIBUTARY_GATEWAY_CLIENTPROPERTIES_SECURITY_PROTOCOL", "SASL_PLAINTEXT")
                .containsEntry("TRIBUTARY_GATEWAY_CLIENTPROPERTIES_SASL_MECHANISM", "SCRAM-SHA-512")
                .containsEntry(
                        "TRIBUTARY_GATEWAY_CLIENTPROPERTIES_SASL_JAAS_CONFIG",
                        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"gateway\""
                                + " password=\"${tributary.secrets.gateway-password}\";");
        assertThat(env(gateway).get("TRIBUTARY_GATEWAY_BOOTSTRAP_SERVERS")).endsWith(":9093");
        assertThat(mountPath(gateway, "login")).isEqualTo(SECRETS + "/login");
        assertThat(projectedFiles(podSpec(resources, "demo-tributary-gateway"), "login"))
                .as("the gateway sees its own password, not the admin's")
                .containsExactly("demo-tributary-users:gateway-password->tributary.secrets.gateway-password");
        assertThat(projectedFiles(podSpec(resources, "demo-tributary-coordinator"), "users"))
                .containsExactly(
                        "demo-tributary-users:admin-password->tributary.secrets.admin-password",
                        "demo-tributary-users:gateway-password->tributary.secrets.gateway-password");
        assertThat(podSpec(resources, "demo-tributary-broker").getVolumes())
                .extracting(Volume::getName)
                .as("brokers verify logins against the cluster's SCRAM store: no password file")
                .doesNotContain("users", "login");
    }

    @Test
    void everySecretIsAReadOnlyFileReadableByTheOwnerAndGroupNeverAnEnvironmentValue() {
        for (Optional<Path> file : List.of(Optional.<Path>empty(), Optional.of(SECURED_TLS))) {
            List<HasMetadata> resources = render(file, Map.of());
            List<String> secretValues = new ArrayList<>();
            for (Secret secret : ofKind(resources, Secret.class)) {
                secret.getData().values().forEach(v -> secretValues.add(decode(v)));
            }
            for (HasMetadata workload : resources) {
                if (podTemplate(workload).isEmpty()) {
                    continue;
                }
                String what = file.map(Path::toString).orElse("defaults") + " " + HelmChart.describe(workload);
                PodSpec pod = podTemplate(workload).orElseThrow().getSpec();
                Container container = pod.getContainers().getFirst();
                for (Volume volume : pod.getVolumes()) {
                    Integer mode = volume.getSecret() != null
                            ? volume.getSecret().getDefaultMode()
                            : volume.getProjected() != null
                                    ? volume.getProjected().getDefaultMode()
                                    : null;
                    if (volume.getSecret() == null && volume.getProjected() == null) {
                        continue;
                    }
                    assertThat(mode).as(what + " volume " + volume.getName()).isEqualTo(FILE_MODE);
                    VolumeMount mount = container.getVolumeMounts().stream()
                            .filter(m -> m.getName().equals(volume.getName()))
                            .findFirst()
                            .orElseThrow();
                    assertThat(mount.getReadOnly())
                            .as(what + " " + mount.getName())
                            .isTrue();
                    assertThat(mount.getMountPath()).as(what).startsWith(SECRETS + "/");
                }
                for (EnvVar var : container.getEnv()) {
                    assertThat(var.getValueFrom() == null || var.getValueFrom().getSecretKeyRef() == null)
                            .as(what + " env " + var.getName() + " from a Secret")
                            .isTrue();
                    String value = Optional.ofNullable(var.getValue()).orElse("");
                    assertThat(secretValues)
                            .as(what + " env " + var.getName() + " holds a secret")
                            .noneMatch(secret -> value.contains(secret));
                }
                assertThat(container.getArgs()).as(what).isNullOrEmpty();
                assertThat(container.getCommand()).as(what).isNullOrEmpty();
            }
        }
    }

    @Test
    void theClusterSecretAndPasswordsAreGeneratedOnceAndKeptByTheSecretsAlreadyThere() {
        List<HasMetadata> first = render(Optional.empty(), Map.of());
        Secret cluster = named(first, Secret.class, "demo-tributary-cluster-secret");
        Secret users = named(first, Secret.class, "demo-tributary-users");

        assertThat(decode(cluster.getData().get("cluster.secret")))
                .as("32 bytes or more, the services' minimum")
                .hasSizeGreaterThanOrEqualTo(32);
        assertThat(users.getData()).containsOnlyKeys("admin-password", "gateway-password");
        for (Secret secret : List.of(cluster, users)) {
            assertThat(secret.getMetadata().getAnnotations())
                    .as("kept on uninstall: the cluster's volumes outlive the release")
                    .containsEntry("helm.sh/resource-policy", "keep");
        }
        assertThat(named(render(Optional.empty(), Map.of()), Secret.class, "demo-tributary-cluster-secret")
                        .getData())
                .as("without a cluster (helm template) every render generates anew")
                .isNotEqualTo(cluster.getData());

        // What helm upgrade sees: lookup answers the Secrets in the cluster, one of them missing a key.
        String kept = Base64.getEncoder().encodeToString("kept-cluster-secret-of-forty-bytes-------".getBytes());
        String keptAdmin = Base64.getEncoder().encodeToString("kept-admin".getBytes());
        String stub =
                "(dict \"data\" (dict \"cluster.secret\" \"" + kept + "\" \"admin-password\" \"" + keptAdmin + "\"))";
        List<HasMetadata> upgraded = HelmChart.renderCopy(
                (path, text) -> {
                    if (path.endsWith("_security.tpl")) {
                        assertThat(text).as("the one lookup of the chart").contains(HelmChart.SECRET_LOOKUP);
                    }
                    return text.replace(HelmChart.SECRET_LOOKUP, stub);
                },
                Map.of());
        assertThat(named(upgraded, Secret.class, "demo-tributary-cluster-secret")
                        .getData())
                .containsEntry("cluster.secret", kept);
        Map<String, String> upgradedUsers =
                named(upgraded, Secret.class, "demo-tributary-users").getData();
        assertThat(upgradedUsers).containsEntry("admin-password", keptAdmin);
        assertThat(decode(upgradedUsers.get("gateway-password")))
                .as("a key the Secret lacks is generated")
                .hasSize(48);
    }

    @Test
    void existingSecretsReplaceTheGeneratedOnes() {
        List<HasMetadata> resources = render(
                Optional.empty(),
                Map.of(
                        "security.users.existingSecret", "kafka-admin",
                        "security.users.adminPasswordKey", "password",
                        "security.gateway.existingSecret", "kafka-gateway",
                        "security.gateway.passwordKey", "pw",
                        "security.clusterSecret.existingSecret", "cluster",
                        "security.clusterSecret.key", "secret"));

        assertThat(ofKind(resources, Secret.class))
                .as("nothing left to generate")
                .isEmpty();
        PodSpec coordinator = podSpec(resources, "demo-tributary-coordinator");
        assertThat(projectedFiles(coordinator, "users"))
                .containsExactly(
                        "kafka-admin:password->tributary.secrets.admin-password",
                        "kafka-gateway:pw->tributary.secrets.gateway-password");
        assertThat(projectedFiles(coordinator, "cluster-secret")).containsExactly("cluster:secret->cluster.secret");
        Volume cluster = volume(podSpec(resources, "demo-tributary-broker"), "cluster-secret");
        assertThat(cluster.getSecret().getSecretName()).isEqualTo("cluster");
        assertThat(cluster.getSecret().getItems())
                .extracting(KeyToPath::getKey, KeyToPath::getPath)
                .containsExactly(org.assertj.core.api.Assertions.tuple("secret", "cluster.secret"));
        assertThat(projectedFiles(podSpec(resources, "demo-tributary-gateway"), "login"))
                .containsExactly("kafka-gateway:pw->tributary.secrets.gateway-password");

        List<HasMetadata> adminOnly = render(Optional.empty(), Map.of("security.users.existingSecret", "kafka-admin"));
        assertThat(named(adminOnly, Secret.class, "demo-tributary-users").getData())
                .as("the gateway's password is still generated")
                .containsOnlyKeys("gateway-password");
    }

    /**
     * The chart's steps of a cluster secret rotation (docs/security.md): the coordinators take the
     * new secret and accept the old one while the brokers keep the old one; then the brokers take
     * the new one; then the coordinators stop accepting the old one.
     */
    @Test
    void aClusterSecretRotationMovesTheCoordinatorsFirstAndTheyAcceptThePreviousSecretMeanwhile() {
        Map<String, Object> coordinatorsMoved = Map.of(
                "security.clusterSecret.rotation.coordinatorExistingSecret", "cluster-secret-2",
                "security.clusterSecret.rotation.previousExistingSecret", "demo-tributary-cluster-secret");
        List<HasMetadata> step2 = render(Optional.empty(), coordinatorsMoved);
        PodSpec coordinator = podSpec(step2, "demo-tributary-coordinator");
        assertThat(projectedFiles(coordinator, "cluster-secret"))
                .containsExactly(
                        "cluster-secret-2:cluster.secret->cluster.secret",
                        "demo-tributary-cluster-secret:cluster.secret->previous.secret");
        assertThat(env(container(step2, StatefulSet.class, "coordinator")))
                .containsEntry("TRIBUTARY_COORDINATOR_CONTROL_SECRET_FILE", SECRETS + "/cluster/cluster.secret")
                .containsEntry(
                        "TRIBUTARY_COORDINATOR_CONTROL_PREVIOUS_SECRET_FILE", SECRETS + "/cluster/previous.secret");
        assertThat(volume(podSpec(step2, "demo-tributary-broker"), "cluster-secret")
                        .getSecret()
                        .getSecretName())
                .as("the brokers keep the old secret")
                .isEqualTo("demo-tributary-cluster-secret");

        Map<String, Object> brokersMoved = new LinkedHashMap<>(coordinatorsMoved);
        brokersMoved.put("security.clusterSecret.existingSecret", "cluster-secret-2");
        List<HasMetadata> step3 = render(Optional.empty(), brokersMoved);
        assertThat(volume(podSpec(step3, "demo-tributary-broker"), "cluster-secret")
                        .getSecret()
                        .getSecretName())
                .isEqualTo("cluster-secret-2");
        assertThat(podSpec(step3, "demo-tributary-coordinator"))
                .as("the coordinators' pods do not change (no restart) when the brokers move")
                .isEqualTo(coordinator);

        List<HasMetadata> step4 =
                render(Optional.empty(), Map.of("security.clusterSecret.existingSecret", "cluster-secret-2"));
        assertThat(projectedFiles(podSpec(step4, "demo-tributary-coordinator"), "cluster-secret"))
                .containsExactly("cluster-secret-2:cluster.secret->cluster.secret");
        assertThat(env(container(step4, StatefulSet.class, "coordinator")))
                .doesNotContainKey("TRIBUTARY_COORDINATOR_CONTROL_PREVIOUS_SECRET_FILE");

        assertThatThrownBy(() -> HelmChart.template(
                        Optional.empty(),
                        Map.of(
                                "security.clusterSecret.rotation.previousExistingSecret",
                                "demo-tributary-cluster-secret")))
                .as("the previous secret may not be the current one")
                .hasMessageContaining("names the coordinators' current secret");
    }

    @Test
    void aTlsSecretMakesTheClientListenerSaslSslWithItsPemFiles() {
        List<HasMetadata> resources = render(Optional.empty(), Map.of("security.tls.existingSecret", "kafka-tls"));
        Container broker = container(resources, StatefulSet.class, "broker");

        assertThat(env(broker))
                .containsEntry("TRIBUTARY_BROKER_LISTENER_SECURITY_PROTOCOL_MAP", "CLIENT:SASL_SSL")
                .containsEntry("TRIBUTARY_BROKER_SSL_KEYSTORE_TYPE", "PEM")
                .containsEntry("TRIBUTARY_BROKER_SSL_KEYSTORE_LOCATION", SECRETS + "/tls/tls.key")
                .containsEntry("TRIBUTARY_BROKER_SSL_KEYSTORE_CERTIFICATE_CHAIN_LOCATION", SECRETS + "/tls/tls.crt")
                .doesNotContainKeys("TRIBUTARY_BROKER_SSL_CLIENT_AUTH");
        assertThat(mountPath(broker, "tls")).isEqualTo(SECRETS + "/tls");
        Volume tls = volume(podSpec(resources, "demo-tributary-broker"), "tls");
        assertThat(tls.getSecret().getSecretName()).isEqualTo("kafka-tls");
        assertThat(tls.getSecret().getItems())
                .extracting(KeyToPath::getKey)
                .containsExactly("tls.crt", "tls.key", "ca.crt");
        assertThat(podSpec(
                                render(
                                        Optional.empty(),
                                        Map.of(
                                                "security.tls.existingSecret",
                                                "kafka-tls",
                                                "security.internalTls.enabled",
                                                false)),
                                "demo-tributary-coordinator")
                        .getVolumes())
                .as("coordinators without HTTPS, Raft TLS or internal TLS need no certificate")
                .extracting(Volume::getName)
                .doesNotContain("tls");
        assertThat(ofKind(resources, GenericKubernetesResource.class))
                .as("a Certificate only when asked")
                .noneMatch(r -> r.getKind().equals("Certificate"));

        Map<String, String> ssl = env(container(
                render(
                        Optional.empty(),
                        Map.of("security.tls.existingSecret", "kafka-tls", "security.clientProtocol", "SSL")),
                StatefulSet.class,
                "broker"));
        assertThat(ssl)
                .as("SSL: client certificates signed by the Secret's CA, required")
                .containsEntry("TRIBUTARY_BROKER_LISTENER_SECURITY_PROTOCOL_MAP", "CLIENT:SSL")
                .containsEntry("TRIBUTARY_BROKER_SSL_CLIENT_AUTH", "required")
                .containsEntry("TRIBUTARY_BROKER_SSL_TRUSTSTORE_LOCATION", SECRETS + "/tls/ca.crt")
                .doesNotContainKey("TRIBUTARY_BROKER_SASL_ENABLED_MECHANISMS");
    }

    @Test
    void withATlsSourceTheInternalListenersAreSaslSslAndEveryInternalClientTrustsTheCa() {
        List<HasMetadata> resources = render(Optional.empty(), Map.of("security.tls.existingSecret", "kafka-tls"));
        Map<String, String> internalTls = Map.of(
                "TRIBUTARY_KAFKA_SSL_KEYSTORE_TYPE", "PEM",
                "TRIBUTARY_KAFKA_SSL_KEYSTORE_LOCATION", SECRETS + "/tls/tls.key",
                "TRIBUTARY_KAFKA_SSL_KEYSTORE_CERTIFICATE_CHAIN_LOCATION", SECRETS + "/tls/tls.crt",
                "TRIBUTARY_KAFKA_SSL_TRUSTSTORE_TYPE", "PEM",
                "TRIBUTARY_KAFKA_SSL_TRUSTSTORE_LOCATION", SECRETS + "/tls/ca.crt");
        for (String component : List.of("broker", "coordinator")) {
            Container container = container(resources, StatefulSet.class, component);
            assertThat(env(container)).as(component).containsAllEntriesOf(internalTls);
            assertThat(mountPath(container, "tls")).isEqualTo(SECRETS + "/tls");
            assertThat(volume(podSpec(resources, "demo-tributary-" + component), "tls")
                            .getSecret()
                            .getSecretName())
                    .isEqualTo("kafka-tls");
        }
        Container gateway = container(resources, Deployment.class, "gateway");
        assertThat(env(gateway))
                .containsEntry("TRIBUTARY_GATEWAY_CLIENTPROPERTIES_SECURITY_PROTOCOL", "SASL_SSL")
                .containsEntry("TRIBUTARY_GATEWAY_CLIENTPROPERTIES_SSL_TRUSTSTORE_TYPE", "PEM")
                .containsEntry(
                        "TRIBUTARY_GATEWAY_CLIENTPROPERTIES_SSL_TRUSTSTORE_LOCATION", SECRETS + "/tls-ca/ca.crt");
        assertThat(mountPath(gateway, "tls-ca")).isEqualTo(SECRETS + "/tls-ca");
        assertThat(volume(podSpec(resources, "demo-tributary-gateway"), "tls-ca")
                        .getSecret()
                        .getItems())
                .as("the gateway gets the CA, not the private key")
                .extracting(KeyToPath::getKey)
                .containsExactly("ca.crt");

        List<HasMetadata> off = render(
                Optional.empty(),
                Map.of("security.tls.existingSecret", "kafka-tls", "security.internalTls.enabled", false));
        assertThat(env(container(off, StatefulSet.class, "broker")))
                .as("internal TLS turned off")
                .doesNotContainKey("TRIBUTARY_KAFKA_SSL_KEYSTORE_LOCATION");
        assertThat(env(container(off, Deployment.class, "gateway")))
                .containsEntry("TRIBUTARY_GATEWAY_CLIENTPROPERTIES_SECURITY_PROTOCOL", "SASL_PLAINTEXT");
        assertThat(env(container(render(Optional.empty(), Map.of()), StatefulSet.class, "coordinator")))
                .as("no TLS source: the internal traffic stays SASL_PLAINTEXT")
                .doesNotContainKey("TRIBUTARY_KAFKA_SSL_KEYSTORE_LOCATION");
    }

    @Test
    void certManagerIssuesACertificateForEveryBrokerAndCoordinatorNameWhenAsked() {
        List<HasMetadata> resources = render(Optional.of(SECURED_TLS), Map.of());
        assertThat(customResource(resources, "Certificate").getApiVersion()).isEqualTo("cert-manager.io/v1");
        Map<String, Object> spec = certificateSpec(resources);
        assertThat(spec).containsEntry("secretName", "demo-tributary-tls");
        assertThat(spec.get("issuerRef"))
                .isEqualTo(Map.of("name", "internal-ca", "kind", "ClusterIssuer", "group", "cert-manager.io"));
        @SuppressWarnings("unchecked")
        List<String> dnsNames = (List<String>) spec.get("dnsNames");
        List<String> needed = new ArrayList<>();
        IntStream.range(0, 3)
                .forEach(i -> needed.add(
                        "demo-tributary-broker-" + i + ".demo-tributary-broker-headless.streaming.svc.cluster.local"));
        IntStream.range(0, 3)
                .forEach(i -> needed.add("demo-tributary-coordinator-" + i
                        + ".demo-tributary-coordinator-headless.streaming.svc.cluster.local"));
        needed.add("demo-tributary-broker.streaming.svc.cluster.local");
        needed.add("kafka.example.com");
        for (String name : needed) {
            assertThat(dnsNames)
                    .as("a DNS name of the certificate covers " + name)
                    .anyMatch(pattern -> covers(pattern, name));
        }
        PodSpec broker = podSpec(resources, "demo-tributary-broker");
        assertThat(volume(broker, "tls").getSecret().getSecretName()).isEqualTo("demo-tributary-tls");
        assertThat(env(container(resources, StatefulSet.class, "broker")))
                .containsEntry("TRIBUTARY_BROKER_LISTENER_SECURITY_PROTOCOL_MAP", "CLIENT:SASL_SSL")
                .containsEntry("TRIBUTARY_BROKER_SASL_ENABLED_MECHANISMS", "SCRAM-SHA-512,PLAIN")
                .containsEntry("TRIBUTARY_BROKER_SUPER_USERS", "User:ops;User:gateway;User:connect");
    }

    @Test
    void coordinatorsOnHttpsAreProbedScrapedAndCalledOverHttps() {
        List<HasMetadata> resources = render(Optional.of(SECURED_TLS), Map.of());
        Container coordinator = container(resources, StatefulSet.class, "coordinator");

        assertThat(env(coordinator))
                .as("an SSL bundle that reloads renewed files")
                .containsEntry("SERVER_SSL_BUNDLE", "controlplane")
                .containsEntry("SPRING_SSL_BUNDLE_PEM_CONTROLPLANE_KEYSTORE_CERTIFICATE", SECRETS + "/tls/tls.crt")
                .containsEntry("SPRING_SSL_BUNDLE_PEM_CONTROLPLANE_KEYSTORE_PRIVATEKEY", SECRETS + "/tls/tls.key")
                .containsEntry("SPRING_SSL_BUNDLE_PEM_CONTROLPLANE_RELOADONUPDATE", "true")
                .as("followers redirect over the scheme the call came in on: the peers stay host:port")
                .hasEntrySatisfying(
                        "TRIBUTARY_COORDINATOR_HTTP_PEERS",
                        peers -> assertThat(peers).doesNotContain("https://"));
        for (Probe probe : List.of(
                coordinator.getStartupProbe(), coordinator.getLivenessProbe(), coordinator.getReadinessProbe())) {
            assertThat(probe.getHttpGet().getScheme()).isEqualTo("HTTPS");
        }
        assertThat(podTemplate(named(resources, StatefulSet.class, "demo-tributary-coordinator"))
                        .orElseThrow()
                        .getMetadata()
                        .getAnnotations())
                .containsEntry("prometheus.io/scheme", "https");
        Map<String, String> broker = env(container(resources, StatefulSet.class, "broker"));
        assertThat(broker.get("TRIBUTARY_BROKER_COORDINATORS").split(","))
                .hasSize(3)
                .allSatisfy(address -> assertThat(address).startsWith("https://demo-tributary-coordinator-"));
        assertThat(broker).containsEntry("TRIBUTARY_BROKER_CLUSTER_SSL_TRUSTSTORE_LOCATION", SECRETS + "/tls/ca.crt");
        assertThat(named(resources, Service.class, "demo-tributary-coordinator-headless")
                        .getSpec()
                        .getPorts()
                        .getFirst()
                        .getName())
                .isEqualTo("https");
        assertThat(customResource(resources, "ServiceMonitor")
                        .getAdditionalProperties()
                        .get("spec")
                        .toString())
                .contains("port=https", "scheme=https", "key=ca.crt", "name=demo-tributary-tls");
    }

    @Test
    void raftTlsGivesTheCoordinatorsTheTlsSecretAsMutualTlsAndTheCertificateClientAuth() {
        List<HasMetadata> resources = render(
                Optional.empty(),
                Map.of(
                        "security.raftTls.enabled", true,
                        "security.tls.certManager.enabled", true,
                        "security.tls.certManager.issuerRef.name", "ca"));
        Container coordinator = container(resources, StatefulSet.class, "coordinator");

        assertThat(env(coordinator))
                .containsEntry("TRIBUTARY_COORDINATOR_RAFT_SSL_KEYSTORE_TYPE", "PEM")
                .containsEntry("TRIBUTARY_COORDINATOR_RAFT_SSL_KEYSTORE_LOCATION", SECRETS + "/tls/tls.key")
                .containsEntry("TRIBUTARY_COORDINATOR_RAFT_SSL_CERTIFICATECHAIN", SECRETS + "/tls/tls.crt")
                .containsEntry("TRIBUTARY_COORDINATOR_RAFT_SSL_TRUSTSTORE_TYPE", "PEM")
                .containsEntry("TRIBUTARY_COORDINATOR_RAFT_SSL_TRUSTSTORE_LOCATION", SECRETS + "/tls/ca.crt")
                .as("the coordinators stay on HTTP: Raft TLS alone")
                .doesNotContainKey("SERVER_SSL_BUNDLE");
        assertThat(volume(podSpec(resources, "demo-tributary-coordinator"), "tls")
                        .getSecret()
                        .getSecretName())
                .isEqualTo("demo-tributary-tls");
        Map<String, Object> spec = certificateSpec(resources);
        assertThat(spec.get("usages").toString()).contains("client auth", "server auth");
        @SuppressWarnings("unchecked")
        List<String> dnsNames = (List<String>) spec.get("dnsNames");
        assertThat(dnsNames)
                .as("the voters' names, which gRPC checks the certificate against")
                .anyMatch(
                        pattern -> covers(
                                pattern,
                                "demo-tributary-coordinator-0.demo-tributary-coordinator-headless.streaming.svc.cluster.local"));
        assertThat(env(container(render(Optional.empty(), Map.of()), StatefulSet.class, "coordinator")))
                .as("off by default")
                .doesNotContainKey("TRIBUTARY_COORDINATOR_RAFT_SSL_KEYSTORE_LOCATION");
    }

    @Test
    void withSecurityOffTheChartIsThePlaintextOneOfOld() {
        List<HasMetadata> resources = render(Optional.of(chartDir().resolve("ci/plaintext-values.yaml")), Map.of());
        Container broker = container(resources, StatefulSet.class, "broker");

        assertThat(ofKind(resources, Secret.class)).isEmpty();
        assertThat(env(broker))
                .containsEntry("TRIBUTARY_KAFKA_PORT", "9092")
                .doesNotContainKeys(
                        "TRIBUTARY_BROKER_LISTENERS",
                        "TRIBUTARY_BROKER_CLUSTER_SECRET_FILE",
                        "TRIBUTARY_BROKER_AUTHORIZER_ENABLED");
        assertThat(broker.getPorts()).extracting(ContainerPort::getName).containsExactly("http", "kafka");
        assertThat(env(container(resources, Deployment.class, "gateway")))
                .doesNotContainKeys("SPRING_CONFIG_IMPORT", "TRIBUTARY_GATEWAY_CLIENTPROPERTIES_SASL_JAAS_CONFIG")
                .hasEntrySatisfying(
                        "TRIBUTARY_GATEWAY_BOOTSTRAP_SERVERS",
                        servers -> assertThat(servers).endsWith(":9092"));
        assertThat(env(container(resources, StatefulSet.class, "coordinator")))
                .doesNotContainKeys("TRIBUTARY_COORDINATOR_CONTROL_SECRET_FILE", "SPRING_CONFIG_IMPORT");
    }

    @Test
    void plaintextClientsAndThePlaintextExternalListenerOnlyWhenChosen() {
        assertThat(env(container(
                        render(Optional.empty(), Map.of("security.clientProtocol", "PLAINTEXT")),
                        StatefulSet.class,
                        "broker")))
                .containsEntry("TRIBUTARY_BROKER_LISTENER_SECURITY_PROTOCOL_MAP", "CLIENT:PLAINTEXT")
                .doesNotContainKey("TRIBUTARY_BROKER_SASL_ENABLED_MECHANISMS")
                .as("the cluster stays authenticated inside")
                .containsKey("TRIBUTARY_BROKER_CLUSTER_SECRET_FILE");
        assertThatThrownBy(() -> HelmChart.template(
                        Optional.empty(),
                        Map.of("broker.external.enabled", true, "broker.external.advertisedHost", "n.example.com")))
                .as("the external listener is SASL_SSL by default, which needs a certificate")
                .hasMessageContaining("broker.external.securityProtocol SASL_SSL (SASL_SSL is the default with"
                        + " security.enabled) needs a TLS source");
        assertThat(env(container(
                        render(
                                Optional.empty(),
                                Map.of(
                                        "broker.external.enabled", true,
                                        "broker.external.advertisedHost", "n.example.com",
                                        "broker.external.securityProtocol", "PLAINTEXT")),
                        StatefulSet.class,
                        "broker")))
                .as("PLAINTEXT when chosen")
                .containsEntry("TRIBUTARY_BROKER_EXTERNAL_LISTENER_SECURITY_PROTOCOL", "PLAINTEXT")
                .doesNotContainKey("TRIBUTARY_BROKER_LISTENER_NAME_EXTERNAL_SSL_CLIENT_AUTH");
        assertThatThrownBy(() -> HelmChart.template(Optional.empty(), Map.of("security.gateway.username", "admin")))
                .as("the coordinators would refuse the same user and mechanism twice at start")
                .hasMessageContaining("security.users.adminUsername and security.gateway.username are both \"admin\"");
    }

    @Test
    void theNotesTellKafkaClientsHowToLogInAndWhereThePasswordIs() {
        assertThat(HelmChart.installDryRunOutput(Map.of()))
                .contains(
                        "security.protocol=SASL_PLAINTEXT, sasl.mechanism one of SCRAM-SHA-512, SCRAM-SHA-256",
                        "The super user is admin",
                        "get secret demo-tributary-users -o jsonpath='{.data.admin-password}' | base64 -d");
        assertThat(HelmChart.installDryRunOutput(Map.of(
                        "security.tls.existingSecret", "kafka-tls",
                        "security.users.existingSecret", "kafka-admin",
                        "security.users.adminPasswordKey", "password")))
                .contains(
                        "security.protocol=SASL_SSL", "trust the ca.crt of Secret kafka-tls", "get secret kafka-admin")
                .contains("jsonpath='{.data.password}'");
        assertThat(HelmChart.installDryRunOutput(Map.of("security.enabled", false)))
                .contains("security.enabled=false: the Kafka listeners and the control plane accept anyone");
    }

    static Stream<Arguments> badSecurityValues() {
        return Stream.of(
                Arguments.of(Map.of("security.sasl.mechanisms[0]", "GSSAPI"), "/security/sasl/mechanisms/0"),
                Arguments.of(Map.of("security.clientProtocol", "SASL_SSL"), "/security"),
                Arguments.of(Map.of("security.clientProtocol", "SSL"), "/security"),
                Arguments.of(Map.of("security.coordinatorHttps.enabled", true), "/security"),
                Arguments.of(Map.of("security.raftTls.enabled", true), "/security"),
                Arguments.of(Map.of("security.clientProtocol", "TLS"), "/security/clientProtocol"),
                Arguments.of(Map.of("security.tls.certManager.enabled", true), "/security/tls/certManager"),
                Arguments.of(
                        Map.of(
                                "security.tls.existingSecret", "kafka-tls",
                                "security.tls.certManager.enabled", true,
                                "security.tls.certManager.issuerRef.name", "ca"),
                        "/security/tls"),
                Arguments.of(
                        Map.of("security.users.adminUsername", "tributary-coordinator"),
                        "/security/users/adminUsername"),
                Arguments.of(
                        Map.of("security.authorization.superUsers[0]", "admin"),
                        "/security/authorization/superUsers/0"),
                Arguments.of(Map.of("broker.external.securityProtocol", "TLS"), "/broker/external/securityProtocol"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badSecurityValues")
    void theSchemaRejectsBadSecurityValues(Map<String, Object> sets, String mentioned) {
        assertThatThrownBy(() -> HelmChart.template(Optional.empty(), sets))
                .as("--set %s", sets)
                .hasMessageContaining("values don't meet the specifications of the schema")
                .hasMessageContaining(mentioned);
    }

    @Test
    void aTlsListenerWithATlsSourceAndAnIssuerRenders() {
        assertThat(render(
                        Optional.empty(),
                        Map.of(
                                "security.clientProtocol", "SASL_SSL",
                                "security.tls.certManager.enabled", true,
                                "security.tls.certManager.issuerRef.name", "ca")))
                .as("the schema's conditions accept what they should")
                .isNotEmpty();
    }

    // ---- helpers ----------------------------------------------------------------------------

    /** The first rendered resource of a kind the Kubernetes client has no class for (a CRD's). */
    private static GenericKubernetesResource customResource(List<HasMetadata> resources, String kind) {
        return ofKind(resources, GenericKubernetesResource.class).stream()
                .filter(r -> r.getKind().equals(kind))
                .findFirst()
                .orElseThrow();
    }

    /** The spec of the rendered cert-manager Certificate. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> certificateSpec(List<HasMetadata> resources) {
        return (Map<String, Object>) customResource(resources, "Certificate")
                .getAdditionalProperties()
                .get("spec");
    }

    /** Whether a certificate DNS name (possibly "*.suffix", one label) covers a host name. */
    private static boolean covers(String pattern, String host) {
        if (pattern.startsWith("*.")) {
            int dot = host.indexOf('.');
            return dot > 0 && host.substring(dot + 1).equals(pattern.substring(2));
        }
        return pattern.equals(host);
    }

    private static String decode(String base64) {
        return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
    }

    static PodSpec podSpec(List<HasMetadata> resources, String workload) {
        return resources.stream()
                .filter(r -> r.getMetadata().getName().equals(workload))
                .flatMap(r -> podTemplate(r).stream())
                .findFirst()
                .orElseThrow(() -> new AssertionError("no workload " + workload))
                .getSpec();
    }

    static Volume volume(PodSpec pod, String name) {
        return pod.getVolumes().stream()
                .filter(v -> v.getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no volume " + name + " in " + pod.getVolumes()));
    }

    static String mountPath(Container container, String volume) {
        return container.getVolumeMounts().stream()
                .filter(m -> m.getName().equals(volume))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no mount of " + volume + " in " + container.getName()))
                .getMountPath();
    }

    /** The files of a projected volume as "secret:key->path". */
    private static List<String> projectedFiles(PodSpec pod, String name) {
        Map<String, String> files = new LinkedHashMap<>();
        for (VolumeProjection source : volume(pod, name).getProjected().getSources()) {
            for (KeyToPath item : source.getSecret().getItems()) {
                files.put(source.getSecret().getName() + ":" + item.getKey(), item.getPath());
            }
        }
        return files.entrySet().stream()
                .map(e -> e.getKey() + "->" + e.getValue())
                .toList();
    }
}
