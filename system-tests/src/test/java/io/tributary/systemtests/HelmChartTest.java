package io.tributary.systemtests;

import static io.tributary.systemtests.HelmChart.NAMESPACE;
import static io.tributary.systemtests.HelmChart.chartDir;
import static io.tributary.systemtests.HelmChart.describe;
import static io.tributary.systemtests.HelmChart.named;
import static io.tributary.systemtests.HelmChart.ofKind;
import static io.tributary.systemtests.HelmChart.podTemplate;
import static io.tributary.systemtests.HelmChart.render;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.marcnuri.helm.LintResult;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The Helm chart {@code helm/tributary}, rendered for real by Helm (helm-java) and parsed strictly
 * into the Kubernetes model: it lints, renders with its defaults and with every {@code ci/} values
 * file, has no unknown fields, wires the components to each other, and its schema rejects bad values.
 */
class HelmChartTest {

    private static final YAMLMapper YAML = new YAMLMapper();
    private static final JsonMapper JSON = new JsonMapper();
    private static final Set<String> ACTUATOR_PROBES =
            Set.of("/actuator/health/liveness", "/actuator/health/readiness");

    /** The default values, then each file under ci/. */
    static Stream<Arguments> valueSets() throws IOException {
        List<Arguments> sets = new ArrayList<>();
        sets.add(Arguments.of("defaults", Optional.empty()));
        try (Stream<Path> files = Files.list(chartDir().resolve("ci"))) {
            files.filter(f -> f.toString().endsWith(".yaml"))
                    .sorted()
                    .forEach(f -> sets.add(Arguments.of(f.getFileName().toString(), Optional.of(f))));
        }
        assertThat(sets).as("ci/*.yaml value files").hasSizeGreaterThan(3);
        return sets.stream();
    }

    @Test
    void lintStrictPasses() {
        LintResult result = HelmChart.helm().lint().strict().call();

        assertThat(result.isFailed())
                .as(String.join("\n", result.getMessages()))
                .isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("valueSets")
    void rendersIntoKnownKubernetesFieldsOnly(String name, Optional<Path> valuesFile) {
        List<HasMetadata> resources = render(valuesFile, Map.of());

        assertThat(resources).as(name).isNotEmpty();
        List<String> unknown = resources.stream()
                .flatMap(r -> HelmChart.unknownFields(r).stream())
                .toList();
        assertThat(unknown)
                .as(name + ": fields the Kubernetes model does not know")
                .isEmpty();
        assertThat(resources)
                .as("kinds fabric8 has no model for")
                .filteredOn(r -> r instanceof GenericKubernetesResource)
                .allSatisfy(r -> assertThat(r.getApiVersion()).isIn("monitoring.coreos.com/v1", "cert-manager.io/v1"));
        for (HasMetadata resource : resources) {
            assertThat(resource.getMetadata().getNamespace())
                    .as(describe(resource))
                    .isEqualTo(NAMESPACE);
            assertThat(resource.getMetadata().getLabels())
                    .as(describe(resource))
                    .containsEntry("app.kubernetes.io/instance", HelmChart.RELEASE);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("valueSets")
    void everyWorkloadRunsNonRootWithProbesPortsAndAWritableTmp(String name, Optional<Path> valuesFile) {
        List<HasMetadata> resources = render(valuesFile, Map.of());
        List<HasMetadata> workloads =
                resources.stream().filter(r -> podTemplate(r).isPresent()).toList();

        assertThat(workloads).extracting(HelmChart::describe).hasSize(3);
        for (HasMetadata workload : workloads) {
            String what = name + " " + describe(workload);
            PodSpec pod = podTemplate(workload).orElseThrow().getSpec();
            assertThat(pod.getSecurityContext().getRunAsNonRoot()).as(what).isTrue();
            assertThat(pod.getSecurityContext().getRunAsUser()).as(what).isPositive();
            assertThat(pod.getAffinity()).as(what + " anti-affinity").isNotNull();
            assertThat(pod.getContainers()).as(what).hasSize(1);
            Container container = pod.getContainers().getFirst();
            assertThat(container.getImage()).as(what).matches("tributary/[a-z]+:.+");
            assertThat(container.getSecurityContext().getRunAsNonRoot())
                    .as(what)
                    .isTrue();
            assertThat(container.getSecurityContext().getReadOnlyRootFilesystem())
                    .as(what)
                    .isTrue();
            assertThat(container.getSecurityContext().getAllowPrivilegeEscalation())
                    .as(what)
                    .isFalse();
            assertThat(container.getSecurityContext().getCapabilities().getDrop())
                    .as(what)
                    .containsExactly("ALL");
            assertThat(container.getPorts())
                    .as(what)
                    .extracting(ContainerPort::getName)
                    .contains("http");
            assertThat(container.getResources().getRequests()).as(what).containsKeys("cpu", "memory");
            assertThat(container.getResources().getLimits()).as(what).containsKey("memory");
            for (Probe probe :
                    List.of(container.getStartupProbe(), container.getLivenessProbe(), container.getReadinessProbe())) {
                assertThat(probe.getHttpGet().getPath()).as(what).isIn(ACTUATOR_PROBES);
                assertThat(probe.getHttpGet().getPort().getStrVal()).as(what).isEqualTo("http");
            }
            assertThat(container.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/actuator/health/readiness");
            assertThat(container.getVolumeMounts())
                    .as(what)
                    .extracting(VolumeMount::getMountPath)
                    .contains("/tmp", "/etc/tributary");
            assertThat(pod.getVolumes()).as(what + " /tmp is an emptyDir").anySatisfy(v -> {
                assertThat(v.getName()).isEqualTo("tmp");
                assertThat(v.getEmptyDir()).isNotNull();
            });
            assertThat(env(container))
                    .as(what)
                    .containsEntry("SERVER_ADDRESS", "0.0.0.0")
                    .containsKey("SERVER_PORT")
                    .containsEntry("SPRING_CONFIG_ADDITIONAL_LOCATION", "optional:file:/etc/tributary/");
            assertThat(envField(container, "TRIBUTARY_INSTANCE")).as(what).isEqualTo("metadata.name");
            Map<String, String> annotations =
                    podTemplate(workload).orElseThrow().getMetadata().getAnnotations();
            assertThat(annotations)
                    .as(what)
                    .containsEntry("prometheus.io/scrape", "true")
                    .containsEntry("prometheus.io/path", "/actuator/prometheus")
                    .containsEntry(
                            "prometheus.io/port",
                            Integer.toString(port(container, "http").getContainerPort()));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("valueSets")
    void everyServiceSelectsAWorkloadAndTargetsNamedContainerPorts(String name, Optional<Path> valuesFile) {
        List<HasMetadata> resources = render(valuesFile, Map.of());
        List<PodTemplateSpec> templates =
                resources.stream().flatMap(r -> podTemplate(r).stream()).toList();

        for (Service service : ofKind(resources, Service.class)) {
            String what = name + " " + describe(service);
            Map<String, String> selector = service.getSpec().getSelector();
            List<PodTemplateSpec> selected = templates.stream()
                    .filter(t -> t.getMetadata()
                            .getLabels()
                            .entrySet()
                            .containsAll(withoutPodName(selector).entrySet()))
                    .toList();
            assertThat(selected).as(what + " selects exactly one workload").hasSize(1);
            Container container = selected.getFirst().getSpec().getContainers().getFirst();
            for (ServicePort port : service.getSpec().getPorts()) {
                assertThat(container.getPorts())
                        .as(what + " port " + port.getName())
                        .extracting(ContainerPort::getName)
                        .contains(port.getTargetPort().getStrVal());
            }
        }
    }

    @Test
    void coordinatorsFindTheirPeersByPodNameThroughAHeadlessServiceThatPublishesNotReadyPods() {
        List<HasMetadata> resources = render(Optional.empty(), Map.of("coordinator.replicas", 3));
        StatefulSet coordinators = named(resources, StatefulSet.class, "demo-tributary-coordinator");
        Service headless = named(resources, Service.class, "demo-tributary-coordinator-headless");
        Container container =
                coordinators.getSpec().getTemplate().getSpec().getContainers().getFirst();

        assertThat(coordinators.getSpec().getReplicas()).isEqualTo(3);
        assertThat(coordinators.getSpec().getServiceName())
                .isEqualTo(headless.getMetadata().getName());
        assertThat(coordinators.getSpec().getPodManagementPolicy()).isEqualTo("Parallel");
        assertThat(headless.getSpec().getClusterIP()).isEqualTo("None");
        assertThat(headless.getSpec().getPublishNotReadyAddresses()).isTrue();
        assertThat(env(container).get("TRIBUTARY_COORDINATOR_PEERS"))
                .isEqualTo(IntStream.range(0, 3)
                        .mapToObj(i -> "demo-tributary-coordinator-" + i
                                + ".demo-tributary-coordinator-headless.streaming.svc.cluster.local:9291")
                        .reduce((a, b) -> a + "," + b)
                        .orElseThrow());
        assertThat(env(container).get("TRIBUTARY_COORDINATOR_HTTP_PEERS"))
                .isEqualTo(IntStream.range(0, 3)
                        .mapToObj(i -> "demo-tributary-coordinator-" + i
                                + ".demo-tributary-coordinator-headless.streaming.svc.cluster.local:8091")
                        .reduce((a, b) -> a + "," + b)
                        .orElseThrow());
        assertThat(env(container).get("TRIBUTARY_COORDINATOR_KAFKA_PEERS"))
                .isEqualTo(IntStream.range(0, 3)
                        .mapToObj(i -> "demo-tributary-coordinator-" + i
                                + ".demo-tributary-coordinator-headless.streaming.svc.cluster.local:9191")
                        .reduce((a, b) -> a + "," + b)
                        .orElseThrow());
        assertThat(envField(container, "TRIBUTARY_COORDINATOR_ID"))
                .isEqualTo("metadata.labels['apps.kubernetes.io/pod-index']");
        assertThat(env(container))
                .containsEntry("TRIBUTARY_COORDINATOR_RAFT_HOST", "0.0.0.0")
                .containsEntry("TRIBUTARY_COORDINATOR_RAFT_PORT", "9291")
                .containsEntry("TRIBUTARY_KAFKA_HOST", "0.0.0.0")
                .containsEntry("TRIBUTARY_COORDINATOR_DATA_DIR", "/var/lib/tributary/coordinator")
                .containsEntry("TRIBUTARY_KAFKA_PORT", "9191")
                .containsEntry("TRIBUTARY_KAFKA_MAX_CONNECTIONS", "1000");
        assertThat(coordinators.getSpec().getVolumeClaimTemplates())
                .singleElement()
                .satisfies(claim -> assertThat(claim.getMetadata().getName()).isEqualTo("data"));
        assertThat(named(resources, PodDisruptionBudget.class, "demo-tributary-coordinator")
                        .getSpec()
                        .getMaxUnavailable()
                        .getIntVal())
                .isEqualTo(1);
    }

    @Test
    void brokersTakeTheirIdFromTheOrdinalAndKnowEveryCoordinator() {
        List<HasMetadata> resources = render(Optional.empty(), Map.of());
        StatefulSet brokers = named(resources, StatefulSet.class, "demo-tributary-broker");
        Container container =
                brokers.getSpec().getTemplate().getSpec().getContainers().getFirst();

        assertThat(brokers.getSpec().getReplicas()).isEqualTo(3);
        assertThat(envField(container, "TRIBUTARY_BROKER_ID"))
                .isEqualTo("metadata.labels['apps.kubernetes.io/pod-index']");
        assertThat(envField(container, "TRIBUTARY_BROKER_RACK"))
                .isEqualTo("metadata.labels['topology.kubernetes.io/zone']");
        assertThat(env(container).get("TRIBUTARY_BROKER_COORDINATORS"))
                .isEqualTo(
                        "demo-tributary-coordinator-0.demo-tributary-coordinator-headless.streaming.svc.cluster.local:8091,"
                                + "demo-tributary-coordinator-1.demo-tributary-coordinator-headless.streaming.svc.cluster.local:8091,"
                                + "demo-tributary-coordinator-2.demo-tributary-coordinator-headless.streaming.svc.cluster.local:8091");
        assertThat(env(container))
                .containsEntry("TRIBUTARY_KAFKA_HOST", "0.0.0.0")
                .as("secured by default: the internal listener on its own port, clients on containerPorts.kafka")
                .containsEntry("TRIBUTARY_KAFKA_PORT", "9093")
                .containsEntry("TRIBUTARY_KAFKA_MAX_FRAME_SIZE", "100MB")
                .containsEntry("TRIBUTARY_BROKER_DATA_DIR", "/var/lib/tributary/broker");
        assertThat(env(container).get("TRIBUTARY_KAFKA_ADVERTISED_HOST"))
                .as("the pod's stable DNS name, from the pod name set before it")
                .isEqualTo("$(TRIBUTARY_INSTANCE).demo-tributary-broker-headless.streaming.svc.cluster.local");
        List<String> names = container.getEnv().stream().map(EnvVar::getName).toList();
        assertThat(names.indexOf("TRIBUTARY_INSTANCE"))
                .as("Kubernetes expands $(VAR) only from variables defined earlier")
                .isLessThan(names.indexOf("TRIBUTARY_KAFKA_ADVERTISED_HOST"));
        assertThat(named(resources, Service.class, "demo-tributary-broker-headless")
                        .getSpec()
                        .getPublishNotReadyAddresses())
                .isTrue();
        Deployment gateway = named(resources, Deployment.class, "demo-tributary-gateway");
        assertThat(env(gateway.getSpec().getTemplate().getSpec().getContainers().getFirst())
                        .get("TRIBUTARY_GATEWAY_BOOTSTRAP_SERVERS"))
                .as("the gateway logs in on the brokers' internal listener")
                .isEqualTo("demo-tributary-broker-0.demo-tributary-broker-headless.streaming.svc.cluster.local:9093,"
                        + "demo-tributary-broker-1.demo-tributary-broker-headless.streaming.svc.cluster.local:9093,"
                        + "demo-tributary-broker-2.demo-tributary-broker-headless.streaming.svc.cluster.local:9093");
    }

    @Test
    void consumerGroupAndLagValuesBecomeTheCoordinatorsEnvironment() {
        Container defaults = container(render(Optional.empty(), Map.of()), StatefulSet.class, "coordinator");
        Container tuned = container(
                render(
                        Optional.empty(),
                        Map.of(
                                "coordinator.groups.sessionTimeout", "30s",
                                "coordinator.groups.heartbeatInterval", "3s",
                                "coordinator.groups.maxGroups", 5000000,
                                "coordinator.groups.defaultAssignor", "range",
                                "coordinator.groups.consumerMigrationPolicy", "upgrade",
                                "coordinator.groups.offsetsRetention", "30d",
                                "coordinator.groups.streamsReplicationFactor", 2,
                                "coordinator.lag.maxSeries", 0)),
                StatefulSet.class,
                "coordinator");

        assertThat(env(defaults))
                .containsEntry("TRIBUTARY_COORDINATOR_GROUPS_SESSION_TIMEOUT", "45s")
                .containsEntry("TRIBUTARY_COORDINATOR_GROUPS_HEARTBEAT_INTERVAL", "5s")
                .containsEntry("TRIBUTARY_COORDINATOR_GROUPS_MAX_REBALANCE_TIMEOUT", "15m")
                .containsEntry("TRIBUTARY_COORDINATOR_GROUPS_MAX_GROUP_SIZE", "1000")
                .containsEntry("TRIBUTARY_COORDINATOR_GROUPS_MAX_GROUPS", "10000")
                .containsEntry("TRIBUTARY_COORDINATOR_GROUPS_MAX_METADATA_SIZE", "4KB")
                .containsEntry("TRIBUTARY_COORDINATOR_GROUPS_DEFAULT_ASSIGNOR", "uniform")
                .containsEntry("TRIBUTARY_COORDINATOR_GROUPS_CONSUMER_MIGRATION_POLICY", "bidirectional")
                .containsEntry("TRIBUTARY_COORDINATOR_GROUPS_OFFSETS_RETENTION", "7d")
                .as("streams groups' internal topics: 0, the lesser of 3 and broker.replicas (3)")
                .containsEntry("TRIBUTARY_COORDINATOR_GROUPS_STREAMS_REPLICATION_FACTOR", "3")
                .containsEntry("TRIBUTARY_COORDINATOR_LAG_REFRESH_INTERVAL", "10s")
                .containsEntry("TRIBUTARY_COORDINATOR_LAG_MAX_SERIES", "1000");
        assertThat(env(tuned))
                .containsEntry("TRIBUTARY_COORDINATOR_GROUPS_SESSION_TIMEOUT", "30s")
                .containsEntry("TRIBUTARY_COORDINATOR_GROUPS_HEARTBEAT_INTERVAL", "3s")
                .as("a large integer is rendered as digits, not 5e+06")
                .containsEntry("TRIBUTARY_COORDINATOR_GROUPS_MAX_GROUPS", "5000000")
                .containsEntry("TRIBUTARY_COORDINATOR_GROUPS_DEFAULT_ASSIGNOR", "range")
                .containsEntry("TRIBUTARY_COORDINATOR_GROUPS_CONSUMER_MIGRATION_POLICY", "upgrade")
                .containsEntry("TRIBUTARY_COORDINATOR_GROUPS_OFFSETS_RETENTION", "30d")
                .containsEntry("TRIBUTARY_COORDINATOR_GROUPS_STREAMS_REPLICATION_FACTOR", "2")
                .containsEntry("TRIBUTARY_COORDINATOR_LAG_MAX_SERIES", "0");
        assertThat(env(container(
                        render(Optional.empty(), Map.of("broker.replicas", 1)), StatefulSet.class, "coordinator")))
                .as("one broker: internal topics of one replica")
                .containsEntry("TRIBUTARY_COORDINATOR_GROUPS_STREAMS_REPLICATION_FACTOR", "1");
    }

    @Test
    void theCoordinatorsRebalanceTimeoutCapIsAlsoTheBrokersForwardingWait() {
        Map<String, Object> raised = Map.of("coordinator.groups.maxRebalanceTimeout", "40m");
        assertThat(env(container(render(Optional.empty(), Map.of()), StatefulSet.class, "broker")))
                .containsEntry("TRIBUTARY_BROKER_CLUSTER_GROUP_COORDINATOR_MAX_REBALANCE_WAIT", "15m");
        assertThat(env(container(render(Optional.empty(), raised), StatefulSet.class, "broker")))
                .containsEntry("TRIBUTARY_BROKER_CLUSTER_GROUP_COORDINATOR_MAX_REBALANCE_WAIT", "40m");
        assertThat(env(container(render(Optional.empty(), raised), StatefulSet.class, "coordinator")))
                .containsEntry("TRIBUTARY_COORDINATOR_GROUPS_MAX_REBALANCE_TIMEOUT", "40m");
    }

    @Test
    void aHeartbeatIntervalNotShorterThanTheSessionTimeoutFailsTheRender() {
        assertThatThrownBy(() -> HelmChart.template(
                        Optional.empty(),
                        Map.of(
                                "coordinator.groups.sessionTimeout", "10s",
                                "coordinator.groups.heartbeatInterval", "10000ms")))
                .hasMessageContaining("coordinator.groups.heartbeatInterval (10000ms) must be shorter");
        assertThat(env(container(
                        render(
                                Optional.empty(),
                                Map.of(
                                        "coordinator.groups.sessionTimeout", "1m",
                                        "coordinator.groups.heartbeatInterval", "59999ms")),
                        StatefulSet.class,
                        "coordinator")))
                .containsEntry("TRIBUTARY_COORDINATOR_GROUPS_HEARTBEAT_INTERVAL", "59999ms");
    }

    @Test
    void theBrokersGracePeriodCoversTheControlledShutdown() {
        List<HasMetadata> resources = render(Optional.empty(), Map.of());
        StatefulSet brokers = named(resources, StatefulSet.class, "demo-tributary-broker");

        assertThat(env(container(resources, StatefulSet.class, "broker")))
                .containsEntry("TRIBUTARY_BROKER_CLUSTER_CONTROLLED_SHUTDOWN_TIMEOUT", "5s");
        // 20 s graceful phase + 5 s controlled shutdown + 10 s listener shutdown + 10 s flush.
        assertThat(brokers.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds())
                .isGreaterThanOrEqualTo(45L);
        assertThatThrownBy(() ->
                        HelmChart.template(Optional.empty(), Map.of("broker.cluster.controlledShutdownTimeout", "30s")))
                .hasMessageContaining("broker.terminationGracePeriodSeconds (60) must be at least 70");
        assertThatThrownBy(
                        () -> HelmChart.template(Optional.empty(), Map.of("broker.terminationGracePeriodSeconds", 44)))
                .hasMessageContaining("must be at least 45");
        assertThat(env(container(
                        render(
                                Optional.empty(),
                                Map.of(
                                        "broker.cluster.controlledShutdownTimeout", "0s",
                                        "broker.kafka.shutdownTimeout", "1500ms",
                                        "broker.terminationGracePeriodSeconds", 32)),
                        StatefulSet.class,
                        "broker")))
                .as("0s turns the controlled shutdown off; 1500ms rounds up to 2 s: 20 + 0 + 2 + 10")
                .containsEntry("TRIBUTARY_BROKER_CLUSTER_CONTROLLED_SHUTDOWN_TIMEOUT", "0s");
    }

    @Test
    void theKafkaListenersConnectionThreadsAreAutoUnlessSetPerService() {
        assertThat(env(container(render(Optional.empty(), Map.of()), StatefulSet.class, "broker")))
                .containsEntry("TRIBUTARY_KAFKA_CONNECTION_THREADS", "auto");
        List<HasMetadata> platform = render(Optional.empty(), Map.of("broker.kafka.connectionThreads", "platform"));
        assertThat(env(container(platform, StatefulSet.class, "broker")))
                .containsEntry("TRIBUTARY_KAFKA_CONNECTION_THREADS", "platform");
        assertThat(env(container(platform, StatefulSet.class, "coordinator")))
                .containsEntry("TRIBUTARY_KAFKA_CONNECTION_THREADS", "auto");
    }

    @Test
    void everyGatewayAdvertisesItsPodUrlForForwardedCommitsUnlessTurnedOff() {
        Container gateway = container(render(Optional.empty(), Map.of()), Deployment.class, "gateway");

        assertThat(env(gateway))
                .containsEntry("TRIBUTARY_GATEWAY_GROUPS_MAX_STREAMS", "200")
                .containsEntry("TRIBUTARY_GATEWAY_GROUPS_CLOSE_TIMEOUT", "5s")
                .containsEntry("TRIBUTARY_GATEWAY_GROUPS_COMMIT_TIMEOUT", "10s")
                .containsEntry("TRIBUTARY_GATEWAY_GROUPS_ADVERTISED_URL", "http://$(POD_IP):8080")
                .as("unset: the coordinators' group session timeout and heartbeat interval apply")
                .doesNotContainKeys(
                        "TRIBUTARY_GATEWAY_GROUPS_SESSION_TIMEOUT", "TRIBUTARY_GATEWAY_GROUPS_HEARTBEAT_INTERVAL");
        assertThat(envField(gateway, "POD_IP")).isEqualTo("status.podIP");
        List<String> names = gateway.getEnv().stream().map(EnvVar::getName).toList();
        assertThat(names.indexOf("POD_IP"))
                .as("Kubernetes expands $(VAR) only from variables defined earlier")
                .isLessThan(names.indexOf("TRIBUTARY_GATEWAY_GROUPS_ADVERTISED_URL"));

        Container tuned = container(
                render(
                        Optional.empty(),
                        Map.of(
                                "gateway.containerPorts.http", 8181,
                                "gateway.groups.podIpFamily", "IPv6",
                                "gateway.groups.sessionTimeout", "20s",
                                "gateway.groups.heartbeatInterval", "2s")),
                Deployment.class,
                "gateway");
        assertThat(env(tuned))
                .containsEntry("TRIBUTARY_GATEWAY_GROUPS_ADVERTISED_URL", "http://[$(POD_IP)]:8181")
                .containsEntry("TRIBUTARY_GATEWAY_GROUPS_SESSION_TIMEOUT", "20s")
                .containsEntry("TRIBUTARY_GATEWAY_GROUPS_HEARTBEAT_INTERVAL", "2s");

        Container off = container(
                render(Optional.empty(), Map.of("gateway.groups.advertisePodUrl", false)), Deployment.class, "gateway");
        assertThat(off.getEnv())
                .extracting(EnvVar::getName)
                .doesNotContain("POD_IP", "TRIBUTARY_GATEWAY_GROUPS_ADVERTISED_URL");
    }

    @Test
    void gatewaysGetTheIdempotencySettingsWithAReplicatedTopicByDefault() throws IOException {
        Container gateway = container(render(Optional.empty(), Map.of()), Deployment.class, "gateway");
        assertThat(env(gateway))
                .as("0: the lesser of 3 and broker.replicas (3)")
                .containsEntry("TRIBUTARY_GATEWAY_IDEMPOTENCY_TOPIC_REPLICATION_FACTOR", "3")
                .containsEntry("TRIBUTARY_GATEWAY_IDEMPOTENCY_KEY_TTL", "24h")
                .containsEntry("TRIBUTARY_GATEWAY_IDEMPOTENCY_CLAIM_TIMEOUT", "2m");

        Container oneBroker =
                container(render(Optional.empty(), Map.of("broker.replicas", 1)), Deployment.class, "gateway");
        assertThat(env(oneBroker)).containsEntry("TRIBUTARY_GATEWAY_IDEMPOTENCY_TOPIC_REPLICATION_FACTOR", "1");

        Container tuned = container(
                render(
                        Optional.empty(),
                        Map.of(
                                "gateway.idempotency.topicReplicationFactor", 2,
                                "gateway.idempotency.keyTtl", "1h",
                                "gateway.idempotency.claimTimeout", "90s")),
                Deployment.class,
                "gateway");
        assertThat(env(tuned))
                .containsEntry("TRIBUTARY_GATEWAY_IDEMPOTENCY_TOPIC_REPLICATION_FACTOR", "2")
                .containsEntry("TRIBUTARY_GATEWAY_IDEMPOTENCY_KEY_TTL", "1h")
                .containsEntry("TRIBUTARY_GATEWAY_IDEMPOTENCY_CLAIM_TIMEOUT", "90s");
    }

    @Test
    void theExternalListenerIsOneServicePerBrokerPinnedToItsPodAtItsExternalContainerPort() throws IOException {
        List<HasMetadata> resources =
                render(Optional.of(chartDir().resolve("ci/external-listener-values.yaml")), Map.of());

        for (int i = 0; i < 3; i++) {
            Service external = named(resources, Service.class, "demo-tributary-broker-" + i + "-external");
            assertThat(external.getSpec().getType()).isEqualTo("LoadBalancer");
            assertThat(external.getSpec().getSelector())
                    .containsEntry("statefulset.kubernetes.io/pod-name", "demo-tributary-broker-" + i);
            assertThat(external.getSpec().getLoadBalancerSourceRanges()).containsExactly("10.0.0.0/8");
            assertThat(external.getSpec().getPorts().getFirst().getTargetPort().getStrVal())
                    .isEqualTo("external");
        }
        Container broker = container(resources, StatefulSet.class, "broker");
        assertThat(broker.getPorts())
                .extracting(ContainerPort::getName, ContainerPort::getContainerPort)
                .contains(tuple("kafka", 9092), tuple("external", 9094));
        assertThat(env(broker))
                .containsEntry("TRIBUTARY_BROKER_EXTERNAL_LISTENER_ENABLED", "true")
                .containsEntry("TRIBUTARY_BROKER_EXTERNAL_LISTENER_HOST", "0.0.0.0")
                .containsEntry("TRIBUTARY_BROKER_EXTERNAL_LISTENER_PORT", "9094")
                .containsEntry("TRIBUTARY_BROKER_EXTERNAL_LISTENER_MAX_CONNECTIONS", "500")
                .as("a LoadBalancer broker advertises its name at the Service port")
                .containsEntry(
                        "TRIBUTARY_BROKER_EXTERNAL_LISTENER_ADVERTISED_ADDRESSES",
                        "broker-0.kafka.example.com:9094,broker-1.kafka.example.com:9094,broker-2.kafka.example.com:9094");

        List<HasMetadata> nodePorts = render(
                Optional.empty(),
                Map.of(
                        "broker.external.enabled",
                        true,
                        "broker.external.securityProtocol",
                        "PLAINTEXT",
                        "broker.external.nodePortBase",
                        31000,
                        "broker.external.advertisedHost",
                        "nodes.example.com"));
        assertThat(named(nodePorts, Service.class, "demo-tributary-broker-2-external")
                        .getSpec()
                        .getPorts()
                        .getFirst()
                        .getNodePort())
                .isEqualTo(31002);
        assertThat(env(container(nodePorts, StatefulSet.class, "broker")))
                .as("a NodePort broker advertises the node address at its own node port")
                .containsEntry(
                        "TRIBUTARY_BROKER_EXTERNAL_LISTENER_ADVERTISED_ADDRESSES",
                        "nodes.example.com:31000,nodes.example.com:31001,nodes.example.com:31002");

        List<HasMetadata> explicit =
                render(Optional.of(chartDir().resolve("ci/external-nodeport-values.yaml")), Map.of());
        assertThat(env(container(explicit, StatefulSet.class, "broker")))
                .containsEntry("TRIBUTARY_BROKER_EXTERNAL_LISTENER_PORT", "19094")
                .containsEntry(
                        "TRIBUTARY_BROKER_EXTERNAL_LISTENER_ADVERTISED_ADDRESSES",
                        "node-a.example.com:30092,node-b.example.com:30093");
    }

    @Test
    void withoutTheExternalListenerTheBrokersHaveNoExternalPortNorSettings() throws IOException {
        Container broker = container(render(Optional.empty(), Map.of()), StatefulSet.class, "broker");

        assertThat(broker.getPorts()).extracting(ContainerPort::getName).containsExactly("http", "kafka", "internal");
        assertThat(env(broker).keySet()).noneMatch(name -> name.startsWith("TRIBUTARY_BROKER_EXTERNAL_LISTENER_"));
    }

    @Test
    void anExternalListenerWithoutAnAdvertisedAddressForEveryBrokerFailsTheRender(@TempDir Path dir)
            throws IOException {
        assertThatThrownBy(() -> HelmChart.template(
                        Optional.empty(),
                        Map.of("broker.external.enabled", true, "broker.external.securityProtocol", "PLAINTEXT")))
                .hasMessageContaining("broker.external.advertisedHost or broker.external.advertisedAddresses");
        Path tooFew = Files.writeString(dir.resolve("too-few.yaml"), """
                broker:
                  replicas: 3
                  external:
                    enabled: true
                    securityProtocol: PLAINTEXT
                    advertisedAddresses: [a.example.com:1, b.example.com:2]
                """);
        assertThatThrownBy(() -> HelmChart.template(Optional.of(tooFew), Map.of()))
                .hasMessageContaining("broker.external.advertisedAddresses has 2 entries, broker.replicas is 3");
        Path noPort = Files.writeString(dir.resolve("no-port.yaml"), """
                broker:
                  external:
                    advertisedAddresses: [a.example.com]
                """);
        assertThatThrownBy(() -> HelmChart.template(Optional.of(noPort), Map.of()))
                .hasMessageContaining("values don't meet the specifications of the schema")
                .hasMessageContaining("/broker/external/advertisedAddresses/0");
    }

    @Test
    void theNotesListTheAddressesExternalClientsAreTold() {
        String notes = HelmChart.installDryRunOutput(Map.of(
                "broker.external.enabled",
                true,
                "broker.external.securityProtocol",
                "PLAINTEXT",
                "broker.replicas",
                2,
                "broker.external.advertisedHost",
                "n.example.com"));

        assertThat(notes).contains("n.example.com:31092,n.example.com:31093");
    }

    @Test
    void theGatewayScalesWithAnHpaAndItsIngressDoesNotBufferStreams() {
        List<HasMetadata> resources =
                render(Optional.of(chartDir().resolve("ci/ingress-monitoring-values.yaml")), Map.of());
        Deployment gateway = named(resources, Deployment.class, "demo-tributary-gateway");
        PodSpec pod = gateway.getSpec().getTemplate().getSpec();

        assertThat(gateway.getSpec().getReplicas())
                .as("the HPA owns the replica count")
                .isNull();
        assertThat(pod.getTerminationGracePeriodSeconds()).isGreaterThan(20 + 5);
        assertThat(pod.getContainers()
                        .getFirst()
                        .getLifecycle()
                        .getPreStop()
                        .getSleep()
                        .getSeconds())
                .isEqualTo(5);
        HorizontalPodAutoscaler hpa = named(resources, HorizontalPodAutoscaler.class, "demo-tributary-gateway");
        assertThat(hpa.getSpec().getScaleTargetRef().getName()).isEqualTo("demo-tributary-gateway");
        assertThat(hpa.getSpec().getMinReplicas()).isEqualTo(2);
        Ingress ingress = named(resources, Ingress.class, "demo-tributary-gateway");
        assertThat(ingress.getMetadata().getAnnotations())
                .containsEntry("nginx.ingress.kubernetes.io/proxy-buffering", "off")
                .containsEntry("nginx.ingress.kubernetes.io/proxy-read-timeout", "3600");
        assertThat(ingress.getSpec().getRules().getFirst().getHost()).isEqualTo("events.example.com");
        assertThat(ingress.getSpec().getTls().getFirst().getSecretName()).isEqualTo("events.example.com-tls");
        assertThat(ingress.getSpec()
                        .getRules()
                        .getFirst()
                        .getHttp()
                        .getPaths()
                        .getFirst()
                        .getBackend()
                        .getService()
                        .getName())
                .isEqualTo("demo-tributary-gateway");
    }

    @Test
    void theHelmTestPodChecksTheGatewayAndProducesAndConsumesWhenAsked() throws IOException {
        List<HasMetadata> hooks = HelmChart.renderTestHooks(Map.of());
        Pod on = named(hooks, Pod.class, "demo-tributary-test-gateway");
        Pod off = named(
                HelmChart.renderTestHooks(Map.of("tests.produceConsume", false)),
                Pod.class,
                "demo-tributary-test-gateway");

        assertThat(Files.readString(chartDir().resolve("templates/tests/test-gateway.yaml")))
                .contains("helm.sh/hook: test");
        assertThat(hooks.stream().flatMap(r -> HelmChart.unknownFields(r).stream()))
                .isEmpty();
        assertThat(off.getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(off.getSpec().getRestartPolicy()).isEqualTo("Never");
        Container test = off.getSpec().getContainers().getFirst();
        assertThat(env(test)).containsEntry("GATEWAY", "http://demo-tributary-gateway:8080");
        assertThat(env(test)).containsEntry("PRODUCE_CONSUME", "false");
        assertThat(String.join("\n", test.getCommand()))
                .contains("/actuator/health/readiness", "/v3/api-docs", "/v1/topics/$TOPIC/partitions/0/records");
        assertThat(env(on.getSpec().getContainers().getFirst())).containsEntry("PRODUCE_CONSUME", "true");
    }

    @Test
    void configValuesBecomeTheApplicationYamlAndRollThePods() throws IOException {
        List<HasMetadata> plain = render(Optional.empty(), Map.of());
        List<HasMetadata> configured = render(
                Optional.empty(), Map.of("coordinator.config.tributary.coordinator.metadata.session-timeout", "10s"));

        ConfigMap config = named(configured, ConfigMap.class, "demo-tributary-coordinator");
        JsonNode yaml = YAML.readTree(config.getData().get("application.yaml"));
        assertThat(yaml.at("/tributary/coordinator/metadata/session-timeout").asString())
                .isEqualTo("10s");
        assertThat(checksum(configured, "demo-tributary-coordinator"))
                .isNotEqualTo(checksum(plain, "demo-tributary-coordinator"));
        assertThat(checksum(configured, "demo-tributary-broker")).isEqualTo(checksum(plain, "demo-tributary-broker"));
    }

    @Test
    void monitoringResourcesCarryTheSharedAlertsAndDashboardFiles() throws IOException {
        List<HasMetadata> resources =
                render(Optional.of(chartDir().resolve("ci/ingress-monitoring-values.yaml")), Map.of());

        GenericKubernetesResource rule = ofKind(resources, GenericKubernetesResource.class).stream()
                .filter(r -> r.getKind().equals("PrometheusRule"))
                .findFirst()
                .orElseThrow();
        JsonNode alerts = YAML.readTree(chartDir().resolve("files/alerts.yml").toFile());
        JsonNode ruleSpec = JSON.valueToTree(rule.getAdditionalProperties().get("spec"));
        assertThat(ruleSpec).isEqualTo(alerts);
        assertThat(rule.getMetadata().getLabels()).containsEntry("release", "kube-prometheus-stack");

        GenericKubernetesResource monitor = ofKind(resources, GenericKubernetesResource.class).stream()
                .filter(r -> r.getKind().equals("ServiceMonitor"))
                .findFirst()
                .orElseThrow();
        JsonNode spec = JSON.valueToTree(monitor.getAdditionalProperties().get("spec"));
        assertThat(spec.at("/endpoints/0/port").asString()).isEqualTo("http");
        assertThat(spec.at("/endpoints/0/path").asString()).isEqualTo("/actuator/prometheus");
        assertThat(spec.at("/jobLabel").asString()).isEqualTo("tributary.io/job");
        Map<String, String> selector = JSON.convertValue(spec.at("/selector/matchLabels"), Map.class);
        List<String> scraped = ofKind(resources, Service.class).stream()
                .filter(s -> s.getMetadata().getLabels().entrySet().containsAll(selector.entrySet()))
                .map(s -> s.getMetadata().getLabels().get("tributary.io/job"))
                .toList();
        assertThat(scraped)
                .as("one scraped Service per component, covering not-ready pods")
                .containsExactlyInAnyOrder("tributary-coordinator", "tributary-broker", "tributary-gateway");

        ConfigMap dashboard = named(resources, ConfigMap.class, "demo-tributary-dashboard");
        assertThat(dashboard.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
        assertThat(JSON.readTree(dashboard.getData().get("tributary.json")))
                .isEqualTo(JSON.readTree(
                        chartDir().resolve("files/dashboards/tributary.json").toFile()));
    }

    @Test
    void notesTellHowToReachTheGatewayAndProduceAFirstEvent() {
        String notes = HelmChart.installDryRunOutput(Map.of());
        String withIngress = HelmChart.installDryRunOutput(
                Map.of("gateway.ingress.enabled", true, "gateway.ingress.hostname", "events.example.com"));

        assertThat(notes)
                .contains(
                        "port-forward svc/demo-tributary-gateway 8080:8080",
                        "/actuator/health/readiness",
                        "/v1/topics/orders/records",
                        "demo-tributary-broker.streaming.svc.cluster.local:9092",
                        "helm test demo");
        assertThat(withIngress).contains("http://events.example.com/").doesNotContain("port-forward");
    }

    @Test
    void theUnknownFieldWalkerReportsMisspelledFieldsWithTheirPath() {
        List<HasMetadata> parsed = HelmChart.parse("""
                apiVersion: apps/v1
                kind: StatefulSet
                metadata:
                  name: typo
                spec:
                  serviceNme: x
                  selector:
                    matchLabels: {a: b}
                  template:
                    spec:
                      contaners: []
                      containers:
                        - name: c
                          image: i
                          livenessProbe:
                            httpGet: {path: /, port: http, sheme: HTTP}
                """);

        assertThat(HelmChart.unknownFields(parsed.getFirst()))
                .containsExactlyInAnyOrder(
                        "StatefulSet/typo.spec: unknown field 'serviceNme'",
                        "StatefulSet/typo.spec.template.spec: unknown field 'contaners'",
                        "StatefulSet/typo.spec.template.spec.containers[0].livenessProbe.httpGet: unknown field 'sheme'");
    }

    static Stream<Arguments> badValues() {
        return Stream.of(
                Arguments.of("coordinator.replicas", 2, "/coordinator/replicas"),
                Arguments.of("broker.replicas", "three", "/broker/replicas"),
                Arguments.of("broker.replicas", 0, "/broker/replicas"),
                Arguments.of("broker.kafka.maxFrameSize", "lots", "maxFrameSize"),
                Arguments.of("coordinator.kafka.maxConnections", 0, "maxConnections"),
                Arguments.of("broker.kafka.idleTimeout", "10 minutes", "idleTimeout"),
                Arguments.of("gateway.ingress.path", "events", "path"),
                Arguments.of("gateway.service.type", "Magic", "type"),
                Arguments.of("coordinator.podAntiAffinityPreset", "sometimes", "podAntiAffinityPreset"),
                Arguments.of("brokers.replicas", 3, "brokers"),
                Arguments.of("gateway.containerPorts.http", 70000, "http"),
                Arguments.of("coordinator.groups.defaultAssignor", "sticky", "defaultAssignor"),
                Arguments.of("coordinator.groups.consumerMigrationPolicy", "both", "consumerMigrationPolicy"),
                Arguments.of("coordinator.groups.sessionTimeout", "0s", "sessionTimeout"),
                Arguments.of("coordinator.groups.maxGroupSize", 0, "maxGroupSize"),
                Arguments.of("coordinator.groups.maxMetadataSize", "4 KB", "maxMetadataSize"),
                Arguments.of("coordinator.lag.refreshInterval", "10", "refreshInterval"),
                Arguments.of("coordinator.lag.maxSeries", -1, "maxSeries"),
                Arguments.of("broker.cluster.controlledShutdownTimeout", "5 seconds", "controlledShutdownTimeout"),
                Arguments.of("gateway.groups.maxStreams", 0, "maxStreams"),
                Arguments.of("gateway.groups.sessionTimeout", "45", "sessionTimeout"),
                Arguments.of("gateway.groups.advertisePodUrl", "yes", "advertisePodUrl"),
                Arguments.of("gateway.groups.podIpFamily", "IPv5", "podIpFamily"),
                Arguments.of("broker.external.maxConnections", 0, "maxConnections"),
                Arguments.of("broker.kafka.connectionThreads", "green", "connectionThreads"),
                Arguments.of("broker.containerPorts.external", 70000, "external"));
    }

    @ParameterizedTest(name = "{0}={1}")
    @MethodSource("badValues")
    void theSchemaRejectsBadValues(String key, Object value, String mentioned) {
        assertThatThrownBy(() -> HelmChart.template(Optional.empty(), Map.of(key, value)))
                .as("--set %s=%s", key, value)
                .hasMessageContaining("values don't meet the specifications of the schema")
                .hasMessageContaining(mentioned);
    }

    @Test
    void valuesYamlDocumentsEveryValueAndOnlyValuesThatExist() throws IOException {
        Path valuesFile = chartDir().resolve("values.yaml");
        JsonNode values = YAML.readTree(valuesFile.toFile());
        Set<String> documented = new LinkedHashSet<>();
        Matcher param = Pattern.compile("(?m)^\\s*## @param (\\S+) \\S").matcher(Files.readString(valuesFile));
        while (param.find()) {
            documented.add(param.group(1));
        }
        List<String> leaves = new ArrayList<>();
        Set<String> paths = new LinkedHashSet<>();
        collect(values, "", leaves, paths);

        assertThat(leaves)
                .as("values without a `## @param` on themselves or an enclosing map")
                .allSatisfy(leaf -> assertThat(
                                documented.stream().anyMatch(d -> leaf.equals(d) || leaf.startsWith(d + ".")))
                        .as(leaf)
                        .isTrue());
        assertThat(documented)
                .as("`## @param` lines naming no value")
                .allSatisfy(d -> assertThat(paths).contains(d));
        JsonNode schema = JSON.readTree(chartDir().resolve("values.schema.json").toFile());
        values.properties()
                .forEach(top -> assertThat(
                                schema.at("/properties/" + top.getKey()).isMissingNode())
                        .as("values.schema.json describes " + top.getKey())
                        .isFalse());
    }

    @Test
    void theChartReadmeListsExactlyTheDocumentedValues() throws IOException {
        Set<String> documented = new LinkedHashSet<>();
        Matcher param = Pattern.compile("(?m)^\\s*## @param (\\S+) ")
                .matcher(Files.readString(chartDir().resolve("values.yaml")));
        while (param.find()) {
            documented.add(param.group(1));
        }
        Set<String> listed = new LinkedHashSet<>();
        Matcher row = Pattern.compile("(?m)^\\| `([^`]+)` \\|")
                .matcher(Files.readString(chartDir().resolve("README.md")));
        while (row.find()) {
            listed.add(row.group(1));
        }

        assertThat(listed).as("helm/tributary/README.md parameter tables").isEqualTo(documented);
    }

    // ---- helpers ----------------------------------------------------------------------------

    private static void collect(JsonNode node, String path, List<String> leaves, Set<String> paths) {
        if (!path.isEmpty()) {
            paths.add(path);
        }
        if (node.isObject() && !node.isEmpty()) {
            node.properties()
                    .forEach(e -> collect(
                            e.getValue(), path.isEmpty() ? e.getKey() : path + "." + e.getKey(), leaves, paths));
        } else {
            leaves.add(path);
        }
    }

    private static Map<String, String> withoutPodName(Map<String, String> selector) {
        var copy = new java.util.HashMap<>(selector);
        copy.remove("statefulset.kubernetes.io/pod-name");
        return copy;
    }

    private static String checksum(List<HasMetadata> resources, String workload) {
        return resources.stream()
                .filter(r -> r.getMetadata().getName().equals(workload))
                .flatMap(r -> podTemplate(r).stream())
                .findFirst()
                .orElseThrow()
                .getMetadata()
                .getAnnotations()
                .get("checksum/config");
    }

    /** The container of the one workload of this kind whose name ends with the component. */
    static Container container(List<HasMetadata> resources, Class<? extends HasMetadata> kind, String component) {
        return podTemplate(named(resources, kind, "demo-tributary-" + component))
                .orElseThrow()
                .getSpec()
                .getContainers()
                .getFirst();
    }

    static Map<String, String> env(Container container) {
        Map<String, String> env = new java.util.LinkedHashMap<>();
        for (EnvVar var : container.getEnv()) {
            if (var.getValue() != null) {
                env.put(var.getName(), var.getValue());
            }
        }
        return env;
    }

    static String envField(Container container, String name) {
        return container.getEnv().stream()
                .filter(e -> e.getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no env " + name + " in " + container.getName()))
                .getValueFrom()
                .getFieldRef()
                .getFieldPath();
    }

    static ContainerPort port(Container container, String name) {
        return container.getPorts().stream()
                .filter(p -> p.getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no port " + name + " in " + container.getName()));
    }
}
